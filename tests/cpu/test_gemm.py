"""The GEMM ladder (csrc/cpu/gemm) against numpy.

Every version of the ladder, and the library's gemm entry point, computes
C = alpha * A @ B + beta * C on 2-D float32/float64 operands of any strides.
The reference is numpy in float64; the tolerance is the classical bound for a
sum of K products, |error| <= c * K * eps * (|A| @ |B|), so a wrong element,
a missed edge row or a dropped K block fails, while rounding differences from
a different summation order pass.
"""
import numpy as np
import pytest

from aakaar import _C

gemm = _C.gemm
VERSIONS = gemm.versions()
PACKED = [v for v in VERSIONS if v in ("v3_packed", "v4_microkernel_avx2", "v4_microkernel_avx512", "v5_threads",
                                      "v6_direct")]
DTYPES = [np.float32, np.float64]


def check(c, a, b, alpha=1.0, beta=0.0, c0=None):
    """Asserts c == alpha * a @ b + beta * c0 within the rounding bound."""
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    ref = alpha * (a64 @ b64)
    if beta != 0.0:
        ref += beta * c0.astype(np.float64)
    scale = abs(alpha) * (np.abs(a64) @ np.abs(b64))
    if beta != 0.0:
        scale += abs(beta) * np.abs(c0.astype(np.float64))
    eps = np.finfo(a.dtype).eps
    k = max(a.shape[1], 1)
    assert c.shape == ref.shape
    assert c.dtype == a.dtype
    err = np.abs(c.astype(np.float64) - ref)
    bound = 4 * (k + 2) * eps * scale + np.finfo(a.dtype).tiny
    bad = np.argwhere(err > bound)
    assert bad.size == 0, f"{len(bad)} wrong elements, first at {tuple(bad[0])}: " \
                          f"got {c[tuple(bad[0])]}, expected {ref[tuple(bad[0])]}"


def rand(rng, shape, dtype):
    return rng.standard_normal(shape).astype(dtype)


def layout(x, kind):
    """The same matrix as x, stored in another layout (a view, not a copy of x's values)."""
    if kind == "c":
        return np.array(x, order="C")  # a copy, never x itself
    if kind == "f":  # column-major: what a transposed view looks like
        return np.array(x, order="F")  # a copy, never x itself
    if kind == "transposed":
        return np.ascontiguousarray(x.T).T
    if kind == "strided":  # every other row, every third column of a bigger array
        big = np.zeros((2 * x.shape[0], 3 * x.shape[1]), x.dtype)
        big[::2, ::3] = x
        return big[::2, ::3]
    if kind == "reversed":  # negative strides
        return np.ascontiguousarray(x[::-1, ::-1])[::-1, ::-1]
    raise ValueError(kind)


LAYOUTS = ["c", "f", "strided", "reversed"]

# 1, primes, and sizes that are not multiples of the 6 x 16 (6 x 8) tile or
# of the cache blocks (MC 96..144, KC 256).
SHAPES = [(1, 1, 1), (1, 5, 1), (2, 1, 3), (7, 13, 29), (6, 16, 16), (17, 31, 5),
          (61, 67, 71), (97, 257, 113), (150, 300, 35)]


def test_versions_are_the_ladder():
    expected = ["v0_naive", "v1_loop_order", "v2_blocked", "v3_packed"]
    if gemm.has_avx2_fma():
        expected.append("v4_microkernel_avx2")
    if gemm.has_avx512():
        expected.append("v4_microkernel_avx512")
    expected.append("v5_threads")
    if gemm.has_avx512():
        expected.append("v6_direct")
    assert VERSIONS == expected


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_version_matches_numpy(version, dtype, shape):
    m, k, n = shape
    rng = np.random.default_rng(m * 10007 + k * 101 + n)
    a, b = rand(rng, (m, k), dtype), rand(rng, (k, n), dtype)
    check(gemm.run(version, a, b), a, b)


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("la", LAYOUTS)
@pytest.mark.parametrize("lb", LAYOUTS)
def test_layouts(version, dtype, la, lb):
    rng = np.random.default_rng(7)
    a, b = rand(rng, (23, 41), dtype), rand(rng, (41, 37), dtype)
    check(gemm.run(version, layout(a, la), layout(b, lb)), a, b)


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("dtype", DTYPES)
def test_random_shapes_all_versions(seed, dtype):
    rng = np.random.default_rng(1000 + seed)
    m, k, n = rng.integers(1, 90, size=3)
    a = layout(rand(rng, (m, k), dtype), LAYOUTS[seed % 4])
    b = layout(rand(rng, (k, n), dtype), LAYOUTS[(seed // 4) % 4])
    for version in VERSIONS:
        check(gemm.run(version, a, b), a, b)
    check(gemm.matmul(a, b), a, b)


@pytest.mark.parametrize("version", PACKED)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("blocking", [dict(mc=6, kc=1, nc=16), dict(mc=12, kc=7, nc=32),
                                      dict(mc=13, kc=50, nc=20), dict(mc=500, kc=1000, nc=5000)])
def test_packed_versions_across_block_edges(version, dtype, blocking):
    # Small blocks put many block boundaries, and partial blocks, inside a
    # small problem; every boundary must be handled exactly once.
    rng = np.random.default_rng(3)
    a, b = rand(rng, (53, 71), dtype), rand(rng, (71, 45), dtype)
    check(gemm.run(version, a, b, **blocking), a, b)
    check(gemm.run(version, layout(a, "f"), layout(b, "strided"), **blocking), a, b)


@pytest.mark.parametrize("version", PACKED)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kc", [1, 7, 8, 9, 16, 0])
def test_transposing_packs(version, dtype, kc):
    # A row-major A and a column-major B are the strips that are packed with a
    # transpose (8 x 8 in AVX2 registers when the CPU has it): full strips
    # (M, N multiples of 6 and 16), partial ones, K below, at and just past a
    # multiple of 8, and sources that are windows of wider arrays.
    rng = np.random.default_rng(11 + kc)
    for m, k, n in [(12, 24, 32), (13, 25, 47), (6, 8, 16), (64, 78, 25)]:
        a = rand(rng, (m, k), dtype)
        b_store = rand(rng, (n + 3, k + 5), dtype)  # B^T stored row-major inside a wider array
        b = b_store[1:n + 1, 2:k + 2].T  # column-major B with a column stride of k + 5
        a_wide = rand(rng, (m, k + 9), dtype)[:, 4:k + 4]  # row-major A with a row stride of k + 9
        for aa in (a, a_wide):
            check(gemm.run(version, aa, b, kc=kc), aa, b)


@pytest.mark.parametrize("dtype", DTYPES)
def test_linear_shaped_products(dtype):
    # The products of a batch-64 MLP step, with the operand layouts Linear uses:
    # x @ W^T forward, g^T @ x and g @ W backward.
    rng = np.random.default_rng(5)
    for fan_in, fan_out in [(784, 256), (256, 128), (128, 47)]:
        x, w, g = rand(rng, (64, fan_in), dtype), rand(rng, (fan_out, fan_in), dtype), rand(rng, (64, fan_out), dtype)
        check(gemm.matmul(x, w.T), x, w.T)
        check(gemm.matmul(g.T, x), g.T, x)
        check(gemm.matmul(g, w), g, w)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(300, 200, 100), (100, 200, 300), (5, 64, 4000),
                                   (4000, 64, 5), (257, 263, 269)],
                         ids=lambda s: "x".join(map(str, s)))
def test_threaded_and_library_on_larger_shapes(dtype, shape):
    # Large enough for v5 to split the work (along M or along N) between threads.
    m, k, n = shape
    rng = np.random.default_rng(m + k + n)
    a, b = rand(rng, (m, k), dtype), rand(rng, (k, n), dtype)
    check(gemm.run("v5_threads", a, b), a, b)
    check(gemm.run("v5_threads", layout(a, "f"), layout(b, "f")), a, b)
    check(gemm.matmul(a, b), a, b)


@pytest.mark.parametrize("version", VERSIONS + ["library"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("out_layout", ["c", "f", "strided"])
def test_alpha_beta_and_out(version, dtype, out_layout):
    rng = np.random.default_rng(11)
    a, b = rand(rng, (19, 33), dtype), rand(rng, (33, 27), dtype)
    c0 = rand(rng, (19, 27), dtype)
    run = gemm.matmul if version == "library" else (lambda *x, **kw: gemm.run(version, *x, **kw))
    out = layout(c0, out_layout)
    res = run(a, b, alpha=-0.5, beta=2.0, out=out)
    check(out, a, b, alpha=-0.5, beta=2.0, c0=c0)
    assert np.shares_memory(res, out)
    # beta == 0: the old contents of out are never read, not even a NaN.
    out[...] = np.nan
    run(a, b, alpha=3.0, beta=0.0, out=out)
    check(out, a, b, alpha=3.0)


@pytest.mark.parametrize("dtype", DTYPES)
def test_library_special_cases(dtype):
    rng = np.random.default_rng(5)
    # K == 0: the product is zero, out is only scaled by beta.
    a, b = np.zeros((4, 0), dtype), np.zeros((0, 3), dtype)
    assert np.array_equal(gemm.matmul(a, b), np.zeros((4, 3), dtype))
    c0 = rand(rng, (4, 3), dtype)
    out = c0.copy()
    gemm.matmul(a, b, beta=2.0, out=out)
    np.testing.assert_array_equal(out, 2 * c0)
    for version in VERSIONS:
        assert np.array_equal(gemm.run(version, a, b), np.zeros((4, 3), dtype))
    # M == 0 or N == 0: an empty result.
    assert gemm.matmul(np.zeros((0, 5), dtype), np.zeros((5, 3), dtype)).shape == (0, 3)
    assert gemm.run("v5_threads", np.zeros((2, 5), dtype), np.zeros((5, 0), dtype)).shape == (2, 0)
    # A row times a matrix, and a matrix times a column (the non-packed paths).
    a, b = rand(rng, (1, 300), dtype), rand(rng, (300, 77), dtype)
    check(gemm.matmul(a, b), a, b)
    check(gemm.matmul(a, layout(b, "f")), a, b)
    a, b = rand(rng, (77, 300), dtype), rand(rng, (300, 1), dtype)
    check(gemm.matmul(a, b), a, b)


def test_bad_inputs_raise_clear_errors():
    a = np.ones((3, 4), np.float32)
    b = np.ones((4, 5), np.float32)
    with pytest.raises(ValueError, match=r"\(3, 4\) and \(3, 4\)"):
        gemm.run("v5_threads", a, a)
    with pytest.raises(ValueError, match="2-D"):
        gemm.run("v1_loop_order", np.ones(4, np.float32), b)
    with pytest.raises(ValueError, match="2-D"):
        gemm.matmul(a, np.ones((4, 5, 1), np.float32))
    with pytest.raises(TypeError, match="int64"):
        gemm.run("v0_naive", np.ones((3, 4), np.int64), np.ones((4, 5), np.int64))
    with pytest.raises(TypeError, match="float32 and float64"):
        gemm.run("v0_naive", a, b.astype(np.float64))
    with pytest.raises(TypeError, match="numpy.ndarray"):
        gemm.run("v0_naive", [[1.0]], b)
    with pytest.raises(ValueError, match="unknown version 'v9'"):
        gemm.run("v9", a, b)
    with pytest.raises(ValueError, match=r"out has shape \(5, 3\), expected \(3, 5\)"):
        gemm.matmul(a, b, out=np.empty((5, 3), np.float32))
    with pytest.raises(TypeError, match="out has dtype float64"):
        gemm.matmul(a, b, out=np.empty((3, 5), np.float64))
    ro = np.empty((3, 5), np.float32)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        gemm.matmul(a, b, out=ro)
    big = np.ones((4, 4), np.float32)
    with pytest.raises(ValueError, match="overlaps"):
        gemm.matmul(big, big, out=big)
    with pytest.raises(ValueError, match="mc, kc and nc"):
        gemm.run("v3_packed", a, b, kc=-1)


def check_fused(c, a, b, bias, relu, alpha=1.0, beta=0.0, c0=None):
    """c == act(alpha * a @ b + beta * c0 + bias), within the rounding bound."""
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    ref = alpha * (a64 @ b64) + (beta * c0.astype(np.float64) if beta else 0.0)
    if bias is not None:
        ref = ref + bias.astype(np.float64)[None, :]
    if relu:
        ref = np.maximum(ref, 0.0)
    scale = abs(alpha) * (np.abs(a64) @ np.abs(b64)) + (abs(beta) * np.abs(c0) if beta else 0.0)
    if bias is not None:
        scale = scale + np.abs(bias.astype(np.float64))[None, :]
    eps = np.finfo(a.dtype).eps
    err = np.abs(c.astype(np.float64) - ref)
    assert np.all(err <= 4 * (a.shape[1] + 3) * eps * scale + np.finfo(a.dtype).tiny)
    if relu:
        assert np.all(c >= 0)


FUSED_SHAPES = [(1, 7, 5), (64, 78, 25), (150, 300, 35), (300, 64, 200)]


@pytest.mark.parametrize("version,shape", [
    (v, s) for v in VERSIONS + ["library"] for s in FUSED_SHAPES
    if v != "v0_naive" or s[0] * s[1] * s[2] < 10**6])  # v0 is slow: small shapes only
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("bias_kind,relu", [("none", True), ("contiguous", False),
                                            ("contiguous", True), ("strided", True)])
def test_fused_bias_relu_epilogue(version, shape, dtype, bias_kind, relu):
    # The fused Linear forward: act(a @ b + bias); the bias is one value per column.
    m, k, n = shape
    rng = np.random.default_rng(m + 3 * k + 7 * n)
    a, b = rand(rng, (m, k), dtype), rand(rng, (k, n), dtype)
    bias = None if bias_kind == "none" else rand(rng, (n,), dtype)
    if bias_kind == "strided":
        bias = np.repeat(bias, 3)[::3]
    run = gemm.matmul if version == "library" else (lambda *x, **kw: gemm.run(version, *x, **kw))
    check_fused(run(a, b, bias=bias, relu=relu), a, b, bias, relu)
    # A column-major output takes the transposed path (C^T = B^T A^T), where
    # the bias runs along rows: it must still land on the columns of C.
    out = np.empty((n, m), dtype).T
    run(layout(a, "f"), layout(b, "strided"), bias=bias, relu=relu, out=out)
    check_fused(out, a, b, bias, relu)
    # With beta, the old output is added before the bias and the activation.
    c0 = rand(rng, (m, n), dtype)
    out = c0.copy()
    run(a, b, alpha=0.5, beta=-1.0, out=out, bias=bias, relu=relu)
    check_fused(out, a, b, bias, relu, alpha=0.5, beta=-1.0, c0=c0)


def test_fused_relu_keeps_nan_and_k0():
    a = np.array([[np.nan, 1.0]], np.float32)
    b = np.ones((2, 3), np.float32)
    assert np.isnan(gemm.matmul(a, b, relu=True)).all()  # NaN is not hidden by ReLU
    bias = np.array([-1.0, 0.0, 2.0], np.float32)
    got = gemm.matmul(np.zeros((2, 0), np.float32), np.zeros((0, 3), np.float32), bias=bias, relu=True)
    np.testing.assert_array_equal(got, np.array([[0, 0, 2], [0, 0, 2]], np.float32))


def test_bias_bad_inputs():
    a = np.ones((3, 4), np.float32)
    b = np.ones((4, 5), np.float32)
    with pytest.raises(ValueError, match=r"bias must have shape \(5,\), got \(4,\)"):
        gemm.matmul(a, b, bias=np.ones(4, np.float32))
    with pytest.raises(TypeError, match="bias has dtype float64"):
        gemm.run("v3_packed", a, b, bias=np.ones(5, np.float64))
    with pytest.raises(TypeError, match="bias must be a numpy.ndarray"):
        gemm.matmul(a, b, bias=[1.0] * 5)


def test_portable_fallback_in_a_subprocess():
    # AAKAAR_CPU_ISA=baseline makes the library behave as on a CPU without
    # AVX2/FMA: v4 is not offered and v5 / the library run the portable kernel.
    import os
    import subprocess
    import sys

    code = """
import numpy as np
from aakaar import _C
g = _C.gemm
assert not g.has_avx2_fma()
assert not g.has_avx512()
assert "v4_microkernel_avx2" not in g.versions() and "v4_microkernel_avx512" not in g.versions(), g.versions()
rng = np.random.default_rng(0)
for dt in (np.float32, np.float64):
    a = rng.standard_normal((301, 203)).astype(dt)
    b = rng.standard_normal((203, 157)).astype(dt)
    ref = a.astype(np.float64) @ b
    for got in (g.run("v5_threads", a, b), g.matmul(np.asfortranarray(a), b),
                g.matmul(a, b, bias=np.ones(157, dt), relu=True) - np.maximum(ref + 1, 0) + ref):
        tol = 1e-3 if dt == np.float32 else 1e-9
        assert np.allclose(got, ref, rtol=tol, atol=tol), abs(got - ref).max()
print("portable ok")
"""
    env = dict(os.environ, AAKAAR_CPU_ISA="baseline")
    res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=300)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "portable ok"



def test_avx2_cap_in_a_subprocess():
    # AAKAAR_CPU_ISA=avx2 turns the AVX-512 kernels off: v5 and the library
    # then run the 6 x 16 AVX2 kernel, with the same results.
    import os
    import subprocess
    import sys

    if not gemm.has_avx2_fma():
        pytest.skip("this CPU has no AVX2/FMA")
    code = """
import numpy as np
from aakaar import _C
g = _C.gemm
assert g.has_avx2_fma() and not g.has_avx512()
assert "v4_microkernel_avx2" in g.versions() and "v4_microkernel_avx512" not in g.versions(), g.versions()
rng = np.random.default_rng(1)
for dt in (np.float32, np.float64):
    a = rng.standard_normal((130, 203)).astype(dt)
    b = rng.standard_normal((203, 75)).astype(dt)
    ref = a.astype(np.float64) @ b
    for got in (g.run("v5_threads", a, b), g.matmul(a, np.asfortranarray(b))):
        tol = 1e-3 if dt == np.float32 else 1e-9
        assert np.allclose(got, ref, rtol=tol, atol=tol), abs(got - ref).max()
print("avx2 ok")
"""
    env = dict(os.environ, AAKAAR_CPU_ISA="avx2")
    res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "avx2 ok"

THIN_SHAPES = [(1, 784, 256), (2, 33, 70), (3, 100, 47), (4, 17, 129), (5, 40, 40),
               (256, 784, 1), (70, 33, 2), (47, 100, 3), (129, 17, 4), (1, 3000, 1500)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", THIN_SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("la,lb", [("c", "c"), ("c", "f"), ("f", "c"), ("f", "f"),
                                   ("strided", "reversed"), ("reversed", "strided")])
def test_library_thin_products(dtype, shape, la, lb):
    # A few rows or columns of C (batch-1 inference x @ W^T, matrix times
    # vector) take the unpacked thin loops when the layout suits them.
    m, k, n = shape
    rng = np.random.default_rng(m * 7 + k * 3 + n)
    a, b = rand(rng, (m, k), dtype), rand(rng, (k, n), dtype)
    check(gemm.matmul(layout(a, la), layout(b, lb)), a, b)
    bias = rand(rng, (n,), dtype)
    c0 = rand(rng, (m, n), dtype)
    out = layout(c0, "f" if la == "f" else "c")
    gemm.matmul(layout(a, la), layout(b, lb), alpha=2.0, beta=0.5, out=out, bias=bias, relu=True)
    check_fused(out, a, b, bias, True, alpha=2.0, beta=0.5, c0=c0)


IN_PLACE = [v for v in VERSIONS if v == "v6_direct"] + ["library"]


@pytest.mark.parametrize("version", IN_PLACE)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(64, 300, 256), (24, 200, 47), (60, 400, 200), (64, 90, 70), (70, 33, 9)],
                         ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("bias_kind", ["none", "contiguous", "strided"])
def test_in_place_linear_forward(version, dtype, shape, bias_kind):
    # Linear's forward x @ W^T is computed as C^T = W @ x^T by the in-place
    # kernel (packed.h, orient): W read where it is, x^T packed, and the
    # tile transposed on its way into the row-major C, with beta, the bias
    # (one value per column of C) and ReLU fused there. Full and partial
    # 8-row tiles of C^T (columns of C), M and N not multiples of 8. All shapes
    # but the last take that path (orientation_cost in packed.h); the last
    # keeps C = x @ W^T with W^T packed.
    m, k, n = shape
    rng = np.random.default_rng(m * 7 + k * 3 + n)
    x, w = rand(rng, (m, k), dtype), rand(rng, (n, k), dtype)
    bias = None if bias_kind == "none" else rand(rng, (n,), dtype)
    if bias_kind == "strided":
        bias = np.repeat(bias, 2)[::2]
    run = gemm.matmul if version == "library" else (lambda *a, **kw: gemm.run(version, *a, **kw))
    for relu in (False, True):
        check_fused(run(x, w.T, bias=bias, relu=relu), x, w.T, bias, relu)
        c0 = rand(rng, (m, n), dtype)
        out = c0.copy()
        run(x, w.T, alpha=0.5, beta=-1.0, out=out, bias=bias, relu=relu)
        check_fused(out, x, w.T, bias, relu, alpha=0.5, beta=-1.0, c0=c0)
    # NaN survives the fused ReLU of the transposed store, as torch.relu keeps it.
    xn = x.copy()
    xn[0, 0] = np.nan
    got = run(xn, w.T, bias=bias, relu=True)
    assert np.isnan(got[0]).all() and not np.isnan(got[1:]).any()


@pytest.mark.parametrize("dtype", DTYPES)
def test_library_reads_small_operands_in_place_and_packs_large_ones(dtype):
    # The library reads operands of up to 1 MiB in place and packs larger
    # ones; both sides of the threshold, in both layouts of B, must agree.
    rng = np.random.default_rng(21)
    for m, k, n in [(64, 512, 512), (64, 513, 520), (600, 520, 96)]:
        a, b = rand(rng, (m, k), dtype), rand(rng, (k, n), dtype)
        check(gemm.matmul(a, b), a, b)
        check(gemm.matmul(a, layout(b, "f")), a, b)
        check(gemm.matmul(layout(a, "f"), b), a, b)
