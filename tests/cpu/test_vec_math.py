"""The vectorised float32 exp, log and log1p of cpu/vec_math.h against numpy (float64, then rounded),
in ulps, over the whole float range (random bit patterns: every exponent, denormals, negatives) and
the hard spots (near 1 for log, near 0 and -1 for log1p, the overflow and underflow edges of exp),
with exact answers for the special values; and the float32 fused BCE losses that use them. Each
build (baseline, AVX2, AVX-512) this machine runs is checked in a fresh interpreter."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import aakaar

ORDER = ["baseline", "avx2", "avx512"]
AVAILABLE = ORDER[: ORDER.index(aakaar._C.cpu_isa()) + 1]

# Bounds in ulps of the correctly rounded float32 result (the header promises 2; measured: exp and
# log1p under 1.5, log under 1).
MAX_ULP = {"exp": 2.0, "log": 1.0, "log1p": 2.0}

SCRIPT = r"""
import json
import numpy as np
import aakaar as ak

np.seterr(all="ignore")  # the references overflow and meet NaNs on purpose
rng = np.random.default_rng(0)
f32 = np.float32
bits = rng.integers(0, 2**32, 1_000_000, dtype=np.uint64).astype(np.uint32).view(f32)
special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 1.1754942e-38, 1.17549435e-38,
                    3.4028235e38, -3.4028235e38, 1.0, -1.0, 2.0, 0.5, np.nextafter(f32(-1), f32(0)),
                    np.nextafter(f32(1), f32(2)), np.nextafter(f32(1), f32(0)), 1e-8, -1e-8, 88.72283, 88.72284,
                    88.7229, 89.0, -87.33654, -103.97207, -103.97208, -104.0, -150.0, 5.9604645e-08, -5.9604645e-08],
                   dtype=f32)
dense = {
    "exp": np.concatenate([np.linspace(-110, 90, 400_001, dtype=f32), np.linspace(-1e-3, 1e-3, 10_001, dtype=f32)]),
    "log": np.concatenate([np.linspace(0.5, 2.0, 400_001, dtype=f32), np.logspace(-45, 38, 100_001, dtype=f32)]),
    "log1p": np.concatenate([np.linspace(-1, 1, 400_001, dtype=f32), np.linspace(-1e-4, 1e-4, 10_001, dtype=f32),
                             np.logspace(-40, 38, 100_001, dtype=f32), -np.logspace(-40, -1e-7, 100_001, dtype=f32)]),
}
ref = {"exp": np.exp, "log": np.log, "log1p": np.log1p}
out = {"isa": ak._C.cpu_isa()}
for name in ("exp", "log", "log1p"):
    x = np.concatenate([bits, special, dense[name]]).astype(f32)
    got = ak._C._vec_math_f32(name, ak.from_numpy(x)).numpy().astype(np.float64)
    with np.errstate(all="ignore"):
        want = ref[name](x.astype(np.float64))
        want32 = want.astype(f32)  # may overflow to inf: then inf is the answer
    exact = ~np.isfinite(want32) | (want32 == 0)
    bad_special = exact & ~((got == want32) | (np.isnan(got) & np.isnan(want32)))
    # 0 answers: -0.0 and 0.0 compare equal; a tiny want that rounds to 0 may give the smallest denormal
    bad_special &= ~((want32 == 0) & (np.abs(got) <= 1.5e-45))
    ulp = np.spacing(np.abs(want32)).astype(np.float64)
    with np.errstate(all="ignore"):
        err = np.where(exact, 0.0, np.abs(got - want) / ulp)
    i = int(np.argmax(err))
    out[name] = {"max_ulp": float(err[i]), "at": float(x[i]), "bad_special": int(bad_special.sum()),
                 "first_bad": [float(v) for v in x[bad_special][:5]], "n": int(x.size)}

# The float32 fused BCE losses that use these functions, against float64 numpy, extreme logits too.
import aakaar.nn.functional as F
z = np.concatenate([rng.standard_normal(50_000) * 5, [-1e4, -100, -20, 0, 20, 100, 1e4]]).astype(f32)
t = rng.random(z.size).astype(f32)
z64, t64 = z.astype(np.float64), t.astype(np.float64)
zt = ak.from_numpy(z).requires_grad_()
loss = F.binary_cross_entropy_with_logits(zt, ak.from_numpy(t), reduction="none")
loss.backward(ak.from_numpy(np.ones_like(z)))
want = (1 - t64) * z64 + np.logaddexp(0, -z64)
sig = 1 / (1 + np.exp(-z64))
# relative to the terms' size: (1 - t) x and the softplus cancel where t ~ 1 and x >> 0, in any float32 formula
terms = np.abs((1 - t64) * z64) + np.logaddexp(0, -z64)
out["bce_with_logits"] = [float(np.max(np.abs(loss.detach().numpy() - want) / np.maximum(terms, 1e-30))),
                          float(np.max(np.abs(zt.grad.numpy() - (sig - t64))))]
p = rng.uniform(1e-6, 1 - 1e-6, 50_000).astype(f32)
pt = ak.from_numpy(p)
lb = F.binary_cross_entropy(pt, ak.from_numpy(t[:50_000]), reduction="none").numpy()
p64, tt = p.astype(np.float64), t64[:50_000]
wb = -(tt * np.log(p64) + (1 - tt) * np.log1p(-p64))
out["bce"] = float(np.max(np.abs(lb - wb) / np.maximum(np.abs(wb), 1e-30)))
print(json.dumps(out))
"""


@pytest.fixture(scope="module", params=AVAILABLE)
def measured(request):
    env = dict(os.environ, AAKAAR_CPU_ISA=request.param)
    r = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    res = json.loads(r.stdout.strip().splitlines()[-1])
    assert res["isa"] == request.param, f"asked for {request.param}, ran {res['isa']}"
    return res


@pytest.mark.parametrize("name", ["exp", "log", "log1p"])
def test_accuracy_in_ulps(measured, name):
    r = measured[name]
    assert r["bad_special"] == 0, f"{measured['isa']} {name}: wrong special values at {r['first_bad']}"
    assert r["max_ulp"] <= MAX_ULP[name], f"{measured['isa']} {name}: {r['max_ulp']:.3f} ulp at x = {r['at']!r}"


def test_fused_bce_losses_use_them_accurately(measured):
    loss_rel, grad_abs = measured["bce_with_logits"]
    assert loss_rel < 1e-6, f"{measured['isa']}: bce_with_logits loss error {loss_rel} (relative to its terms)"
    assert grad_abs < 2e-7, f"{measured['isa']}: bce_with_logits gradient error {grad_abs}"
    assert measured["bce"] < 2e-6, f"{measured['isa']}: binary_cross_entropy relative error {measured['bce']}"
