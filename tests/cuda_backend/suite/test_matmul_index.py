"""Matrix products (the best rung of the GEMM ladder), gather and scatter on "cuda"."""
from __future__ import annotations

import numpy as np
import pytest
from cuda_suite_helpers import DTYPES, FLOATS, check, pair, sample

import aakaar


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("m,k,n", [(1, 1, 1), (129, 65, 33), (7, 300, 131), (64, 0, 5)], ids=str)
def test_mm_sizes_off_the_tile_grid(rng, dtype, m, k, n):
    (a_cpu, a_dev), (b_cpu, b_dev) = pair(sample(rng, (m, k), dtype)), pair(sample(rng, (k, n), dtype))
    tol = 1e-5 if dtype == aakaar.float32 else 1e-12
    check(a_dev @ b_dev, a_cpu @ b_cpu, rtol=tol, atol=tol * max(k, 1))


def test_matmul_strided_and_batched(rng):
    (a_cpu, a_dev), (b_cpu, b_dev) = pair(sample(rng, (3, 40, 70), aakaar.float64)), pair(
        sample(rng, (70, 3, 50), aakaar.float64))
    b_cpu, b_dev = b_cpu.permute(1, 0, 2), b_dev.permute(1, 0, 2)  # (3, 70, 50), not contiguous
    check(aakaar.bmm(a_dev, b_dev), aakaar.bmm(a_cpu, b_cpu), rtol=1e-12, atol=1e-12)
    check(a_dev.transpose(1, 2).matmul(a_dev), a_cpu.transpose(1, 2).matmul(a_cpu), rtol=1e-12, atol=1e-12)
    (v_cpu, v_dev) = pair(sample(rng, (70,), aakaar.float64))
    check(a_dev @ v_dev, a_cpu @ v_cpu, rtol=1e-12, atol=1e-12)  # broadcast batch of matrix @ vector
    check(a_dev[:, ::2, 1::3] @ b_dev[:, 1::3, :7], a_cpu[:, ::2, 1::3] @ b_cpu[:, 1::3, :7], rtol=1e-12,
          atol=1e-12)


def test_integer_matmul_like_cpu(rng):
    # composed from multiply and sum (aakaar/integer_matmul.py), so the device computes it as the CPU does
    a_cpu, a_dev = pair(sample(rng, (3, 3), aakaar.int64))
    out = a_dev @ a_dev
    assert out.device.type == "cuda" and out.dtype == aakaar.int64
    np.testing.assert_array_equal(out.cpu().numpy(), (a_cpu @ a_cpu).numpy())
    b_cpu, b_dev = pair(sample(rng, (3, 3), aakaar.bool))
    with pytest.raises(TypeError):
        b_cpu @ b_cpu
    with pytest.raises(TypeError):
        b_dev @ b_dev


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_gather(rng, dtype, dim):
    cpu, dev = pair(sample(rng, (6, 9, 5), dtype))
    for x_cpu, x_dev in ((cpu, dev), (cpu.transpose(0, 2), dev.transpose(0, 2))):  # contiguous, strided
        shape = list(x_cpu.shape)
        size = shape[dim]
        shape[dim] = 11
        i_cpu, i_dev = pair(rng.integers(0, size, shape))
        check(x_dev.gather(dim, i_dev), x_cpu.gather(dim, i_cpu))
        check(x_dev.gather(dim, i_dev[:, ::2]), x_cpu.gather(dim, i_cpu[:, ::2]))  # strided index


def test_gather_checks_indices_on_every_device(rng):
    cpu, dev = pair(sample(rng, (4, 4), aakaar.float32))
    with pytest.raises(RuntimeError, match="index 4 is out of bounds"):  # torch's class for gather
        dev.gather(1, aakaar.tensor([[0, 4]]).cuda())


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_scatter_distinct_indices(rng, dtype):
    cpu, dev = pair(sample(rng, (5, 40), dtype))
    idx = np.stack([rng.permutation(40)[:17] for _ in range(5)])  # no two writes to one place
    i_cpu, i_dev = pair(idx)
    s_cpu, s_dev = pair(sample(rng, (5, 17), dtype))
    check(dev.scatter(1, i_dev, s_dev), cpu.scatter(1, i_cpu, s_cpu))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_scatter_add_with_collisions(rng, dtype):
    cpu, dev = pair(sample(rng, (7, 3), dtype))
    idx = rng.integers(0, 7, (300, 3))  # ~43 contributions per destination: atomics
    i_cpu, i_dev = pair(idx)
    s_cpu, s_dev = pair(sample(rng, (300, 3), dtype))
    tol = {aakaar.float32: 1e-5, aakaar.float64: 1e-12}.get(dtype, 0)
    check(dev.scatter_add(0, i_dev, s_dev), cpu.scatter_add(0, i_cpu, s_cpu), rtol=tol, atol=tol * 100)
    d2 = dev.clone()
    d2.scatter_add_(0, i_dev, s_dev)
    check(d2, cpu.scatter_add(0, i_cpu, s_cpu), rtol=tol, atol=tol * 100)


def test_cat_and_stack(rng):
    (a_cpu, a_dev), (b_cpu, b_dev) = pair(sample(rng, (3, 4), aakaar.float32)), pair(sample(rng, (3, 2), aakaar.float32))
    check(aakaar.cat([a_dev, b_dev], 1), aakaar.cat([a_cpu, b_cpu], 1), rtol=0, atol=0)
    check(aakaar.stack([a_dev, a_dev.T.T]), aakaar.stack([a_cpu, a_cpu]), rtol=0, atol=0)
