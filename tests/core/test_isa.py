"""Every build of the CPU kernels (baseline, AVX2, AVX-512) gives numpy's answers; one switch caps them all.

The library runs the widest build the CPU has; AAKAAR_CPU_ISA caps it, so each build this machine
can run is checked in a fresh interpreter.
"""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

import aakaar

ORDER = ["baseline", "avx2", "avx512"]
AVAILABLE = ORDER[: ORDER.index(aakaar._C.cpu_isa()) + 1]

SCRIPT = r"""
import numpy as np, aakaar as ak
rng = np.random.default_rng(0)
x = (rng.standard_normal(10_007) * 20).astype(np.float32)   # odd length: vector bodies and tails
x[5] = np.nan; x[6] = np.inf; x[7] = -np.inf; x[8] = 0.0
y = rng.standard_normal(10_007).astype(np.float32)
t, u = ak.from_numpy(x), ak.from_numpy(y)
f64 = x.astype(np.float64)
with np.errstate(all="ignore"):
    checks = {
        "exp": (t.exp(), np.exp(f64)), "tanh": (t.tanh(), np.tanh(f64)),
        "sigmoid": (t.sigmoid(), 1 / (1 + np.exp(-f64))), "add": (t + u, f64 + y), "mul": (t * u, f64 * y),
        "relu": (t.relu(), np.where(np.isnan(f64), np.nan, np.maximum(f64, 0))),
    }
for name, (got, want) in checks.items():
    np.testing.assert_allclose(got.numpy().astype(np.float64), want, rtol=3e-7, atol=1e-37, equal_nan=True, err_msg=name)
# The fused a + alpha * b: an FMA rounds once, a multiply then an add twice, so near
# cancellation the bound is relative to the terms, not to the result.
for alpha, got in ((-0.375, t.add(u, alpha=-0.375)), (-2.5, t.clone().sub_(u, alpha=2.5))):
    terms = np.abs(f64) + np.abs(alpha * y.astype(np.float64))
    want = f64 + alpha * y.astype(np.float64)
    err = np.abs(got.numpy().astype(np.float64) - want)
    ok = (err <= 2 ** -23 * terms) | (np.isnan(want) & np.isnan(got.numpy())) | (want == got.numpy())
    assert ok.all(), ("alpha", alpha, err[~ok][:5])
# The fused lerp, from each end (w < 0.5 from a, else from b), exact at the ends.
for w in (0.1, 0.9):
    got = t.lerp(u, w).numpy()
    y64 = y.astype(np.float64)
    with np.errstate(all="ignore"):
        want = f64 + w * (y64 - f64) if w < 0.5 else y64 - (y64 - f64) * (1 - w)
    terms = np.abs(f64) + np.abs(y.astype(np.float64))
    with np.errstate(all="ignore"):
        ok = (np.abs(got - want) <= 2 ** -22 * terms) | (np.isnan(want) & np.isnan(got)) | (got == want)
    assert ok.all(), ("lerp", w, (got - want)[~ok][:5])
assert (t.lerp(u, 0.0).numpy()[finite_x := np.isfinite(x)] == x[finite_x]).all()
assert (t.lerp(u, 1.0).numpy()[finite_x] == y[finite_x]).all()
# Linear + ReLU backward: the mask and the bias's column sums are one loop of each build.
import aakaar.nn.functional as F
xl = ak.from_numpy(rng.standard_normal((37, 19)).astype(np.float32))
wl = ak.from_numpy(rng.standard_normal((23, 19)).astype(np.float32)).requires_grad_()
bl = ak.from_numpy(rng.standard_normal(23).astype(np.float32)).requires_grad_()
gl = rng.standard_normal((37, 23)).astype(np.float32)
yl = F.linear(xl, wl, bl, activation="relu")
yl.backward(ak.from_numpy(gl))
gm = np.where(yl.detach().numpy() > 0, gl, 0).astype(np.float64)
np.testing.assert_allclose(bl.grad.numpy(), gm.sum(0), rtol=1e-5, atol=1e-5)
np.testing.assert_allclose(wl.grad.numpy(), gm.T @ xl.numpy(), rtol=1e-4, atol=1e-4)
finite = np.isfinite(x)
np.testing.assert_allclose(ak.from_numpy(x[finite]).sum().item(), f64[finite].sum(), rtol=1e-6)
assert np.isnan(t.amax().item()) and np.isnan(t.amin().item())
assert ak.from_numpy(y).amax().item() == y.max() and ak.from_numpy(y).amin().item() == y.min()
print(ak._C.cpu_isa())
"""


@pytest.mark.parametrize("isa", AVAILABLE)
def test_each_build_of_the_loops_matches_numpy(isa):
    env = dict(os.environ, AAKAAR_CPU_ISA=isa)
    r = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.strip() == isa, f"asked for {isa}, ran {r.stdout.strip()}"


def _import_with(env_overrides: dict) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("AAKAAR_CPU_ISA", "AAKAAR_GEMM_ISA")}
    env.update(env_overrides)
    code = "import warnings; warnings.simplefilter('always'); import aakaar; g = aakaar._C.gemm; " \
           "print(aakaar._C.cpu_isa(), g.has_avx2_fma(), g.has_avx512())"
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("isa", AVAILABLE)
def test_one_switch_caps_the_gemm_kernels_too(isa):
    """AAKAAR_CPU_ISA is the only switch: the GEMM micro-kernels follow the elementwise loops."""
    r = _import_with({"AAKAAR_CPU_ISA": isa})
    assert r.returncode == 0, r.stderr[-2000:]
    name, avx2, avx512 = r.stdout.split()
    assert name == isa
    assert (avx2, avx512) == (str(isa != "baseline"), str(isa == "avx512"))
    assert "Warning" not in r.stderr, r.stderr


def test_an_unknown_isa_value_is_said_not_silently_ignored():
    r = _import_with({"AAKAAR_CPU_ISA": "avx3"})
    assert r.returncode == 0, r.stderr[-2000:]
    assert "AAKAAR_CPU_ISA='avx3' is not one of baseline, avx2, avx512" in r.stderr
    assert f"the {aakaar._C.cpu_isa()} kernels run" in r.stderr
    assert r.stdout.split()[0] == aakaar._C.cpu_isa()


def test_the_retired_gemm_variable_is_said_not_silently_ignored():
    r = _import_with({"AAKAAR_GEMM_ISA": "baseline"})
    assert r.returncode == 0, r.stderr[-2000:]
    assert "AAKAAR_GEMM_ISA is no longer read: AAKAAR_CPU_ISA caps every kernel family" in r.stderr
    # It caps nothing: the widest build still runs.
    assert r.stdout.split()[0] == aakaar._C.cpu_isa()
