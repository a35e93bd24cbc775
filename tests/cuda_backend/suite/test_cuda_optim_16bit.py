"""float16 and bfloat16 parameters stepped on "cuda" (csrc/ops/optimizer.cpp hands the device's
float32 kernels, csrc/cuda/optimizer_ops.cu, float32 copies and rounds the results back once, as on
the CPU): the parameters and state keep their 16-bit dtype on the device and equal aakaar's CPU
step -- bit for bit on the emulator (the same float32 arithmetic); on a GPU a float32 result may
differ in a last bit (its pow, its fused multiply-adds) and so round to the neighbouring 16-bit
number: within one ulp of the tensor's largest magnitude there. torch.optim parity of the 16-bit
step is tests/optim/test_optimizer_16bit.py's.

Runs on the emulator (tests/cuda_backend/test_on_emulator.py) and on a GPU."""
from __future__ import annotations

import numpy as np
import pytest

import aakaar
from aakaar import optim

DTYPES = {"bfloat16": (aakaar.bfloat16, 2.0 ** -7), "float16": (aakaar.float16, 2.0 ** -10)}
CASES = [
    ("SGD", dict(lr=0.01, momentum=0.9, nesterov=True)),
    ("Adam", dict(lr=0.01, weight_decay=0.1, amsgrad=True, maximize=True)),
    ("AdamW", dict(lr=0.01)),
    ("Adamax", dict(lr=0.01)),
    ("NAdam", dict(lr=0.01)),
    ("RAdam", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.001, centered=True, momentum=0.9)),
    ("Adagrad", dict(lr=0.05)),
    ("Adadelta", dict(lr=1.0)),
    ("Rprop", dict(lr=0.01)),
    ("ASGD", dict(lr=0.01, t0=10)),
    ("Adafactor", dict(lr=0.01)),
    ("LAMB", dict(lr=0.01)),
]
# The optimizers torch lets take capturable=True.
CAPTURABLE_CASES = [c for c in CASES if c[0] in {"Adam", "AdamW", "Adamax", "NAdam", "RAdam", "RMSprop", "Adadelta",
                                                 "Rprop", "ASGD"}]
SHAPES = [(7, 5), (40,), (4, 3, 2), (1,)]
STEPS = 30


def _run(name, opts, device, dtype, capturable=False):
    ak_dt = DTYPES[dtype][0]
    rng = np.random.default_rng(0)
    params = [aakaar.tensor(rng.standard_normal(s).astype(np.float32)).to(ak_dt).to(device).requires_grad_()
              for s in SHAPES]
    extra = {"capturable": True} if capturable else {}
    opt = getattr(optim, name)(params, **opts, **extra)
    for _ in range(STEPS):
        for p in params:
            p.grad = aakaar.tensor(rng.standard_normal(tuple(p.shape)).astype(np.float32)).to(ak_dt).to(device)
        opt.step()
    return opt, params


def _same(a: aakaar.Tensor, b: aakaar.Tensor, dtype: str, what: str) -> None:
    assert a.dtype == b.dtype, what
    x, y = a.cpu().float().numpy(), b.cpu().float().numpy()
    if aakaar.cuda.is_emulated():
        np.testing.assert_array_equal(x, y, err_msg=what)
    else:
        eps = DTYPES[dtype][1]
        np.testing.assert_allclose(x, y, rtol=0, atol=eps * max(float(np.max(np.abs(y))), 1e-30), err_msg=what)


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("name,opts", CASES, ids=[n for n, _ in CASES])
def test_16bit_step_on_the_device_is_the_cpus(name, opts, dtype):
    opt, params = _run(name, opts, "cuda", dtype)
    cpu_opt, cpu_params = _run(name, opts, "cpu", dtype)
    for i, (p, q) in enumerate(zip(params, cpu_params)):
        assert p.device.type == "cuda" and p.dtype == DTYPES[dtype][0]
        _same(p, q, dtype, f"parameter {i}")
        assert sorted(opt.state[p]) == sorted(cpu_opt.state[q])
        for key, value in cpu_opt.state[q].items():
            _same(opt.state[p][key], value, dtype, f"parameter {i} state {key!r}")


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("name,opts", CAPTURABLE_CASES, ids=[n for n, _ in CAPTURABLE_CASES])
def test_capturable_16bit_step_on_the_device_is_the_cpus(name, opts, dtype):
    """capturable=True: the float32 counters on the device, the 16-bit buffers too, the same numbers."""
    opt, params = _run(name, opts, "cuda", dtype, capturable=True)
    cpu_opt, cpu_params = _run(name, opts, "cpu", dtype)
    for i, (p, q) in enumerate(zip(params, cpu_params)):
        _same(p, q, dtype, f"parameter {i}")
        for key, value in cpu_opt.state[q].items():
            got = opt.state[p][key]
            assert got.device.type == "cuda", key
            _same(got, value, dtype, f"parameter {i} state {key!r}")
