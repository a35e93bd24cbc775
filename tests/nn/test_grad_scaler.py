"""aakaar.amp.GradScaler('cpu') against torch.amp.GradScaler('cpu'): the same training loop makes
the same decisions (steps skipped on inf/NaN gradients, the scale backed off and grown) and reaches
the same parameters; unscale_/step/update's errors, state_dict and load_state_dict as torch's."""

from __future__ import annotations

import math

import numpy as np
import pytest

import aakaar

torch = pytest.importorskip("torch")


def make_models(seed=0):
    torch.manual_seed(seed)
    mt = torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.ReLU(), torch.nn.Linear(16, 3))
    ma = aakaar.nn.Sequential(aakaar.nn.Linear(6, 16), aakaar.nn.ReLU(), aakaar.nn.Linear(16, 3))
    ma.load_state_dict({k: aakaar.tensor(v.detach().numpy()) for k, v in mt.state_dict().items()})
    return ma, mt


def run_loop(lib, model, steps, scaler_kwargs, data, autocast_dtype=None, poison=()):
    opt = lib.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    scaler = lib.amp.GradScaler("cpu", **scaler_kwargs)
    scales, losses = [], []
    for i in range(steps):
        x, y = (lib.tensor(d) for d in data[i % len(data)])
        if i in poison:
            x = x * float("inf")  # an overflowing batch: the step must be skipped
        opt.zero_grad()
        if autocast_dtype is not None:
            with lib.autocast("cpu", dtype=autocast_dtype):
                loss = lib.nn.functional.cross_entropy(model(x), y)
        else:
            loss = lib.nn.functional.cross_entropy(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        scales.append(scaler.get_scale())
        losses.append(float(loss.detach()))
    return scales, losses, scaler


def data(n=4, seed=1):
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal((8, 6)).astype(np.float32), rng.integers(0, 3, 8)) for _ in range(n)]


def test_training_loop_matches_torch_in_float32():
    ma, mt = make_models()
    batches = data()
    # The scale grows every 3 clean steps; each poisoned batch (inf inputs) is skipped and backs it off.
    kw = dict(init_scale=2.0**16, growth_interval=3)
    sa, la, scaler_a = run_loop(aakaar, ma, 12, kw, batches, poison=(1, 8))
    st, lt, scaler_t = run_loop(torch, mt, 12, kw, batches, poison=(1, 8))
    assert sa[:5] == [2.0**16, 2.0**15, 2.0**15, 2.0**15, 2.0**16]
    assert sa == st
    finite = [i for i in range(12) if i not in (1, 8)]
    np.testing.assert_allclose([la[i] for i in finite], [lt[i] for i in finite], rtol=1e-5)
    for (k, va), vt in zip(ma.state_dict().items(), mt.state_dict().values()):
        np.testing.assert_allclose(va.numpy(), vt.numpy(), rtol=1e-4, atol=1e-5, err_msg=k)
    assert scaler_a.state_dict() == scaler_t.state_dict()


def test_training_loop_matches_torch_under_bfloat16_autocast():
    ma, mt = make_models(3)
    batches = data(seed=4)
    sa, la, _ = run_loop(aakaar, ma, 6, dict(init_scale=1024.0, growth_interval=2), batches, aakaar.bfloat16)
    st, lt, _ = run_loop(torch, mt, 6, dict(init_scale=1024.0, growth_interval=2), batches, torch.bfloat16)
    assert sa == st
    np.testing.assert_allclose(la, lt, rtol=3e-2)
    for va, vt in zip(ma.state_dict().values(), mt.state_dict().values()):
        np.testing.assert_allclose(va.numpy(), vt.numpy(), rtol=3e-2, atol=3e-2)


def test_errors_and_state_as_torch():
    states = []
    for lib in (aakaar, torch):
        p = lib.nn.Parameter(lib.ones(3))
        opt = lib.optim.SGD([p], lr=0.1)
        scaler = lib.amp.GradScaler("cpu", init_scale=8.0)
        with pytest.raises(AssertionError):
            scaler.step(opt)  # no scale() yet
        scaler.scale(p.sum()).backward()
        scaler.unscale_(opt)
        np.testing.assert_allclose(np.asarray(p.grad.detach().numpy()), [1.0, 1.0, 1.0])
        with pytest.raises(RuntimeError, match="already been called"):
            scaler.unscale_(opt)
        scaler.step(opt)
        with pytest.raises(RuntimeError, match="step"):
            scaler.step(opt)
        with pytest.raises(RuntimeError, match="Closure"):
            scaler.step(opt, closure=lambda: None)
        scaler.update()
        scaler.update(4.0)
        assert scaler.get_scale() == 4.0
        state = scaler.state_dict()
        states.append(state)
        assert state["scale"] == 4.0 and state["growth_interval"] == 2000
        fresh = lib.amp.GradScaler("cpu")
        fresh.load_state_dict(state)
        assert fresh.get_scale() == 4.0
        with pytest.raises(RuntimeError, match="empty"):
            fresh.load_state_dict({})
        with pytest.raises(AssertionError):
            lib.amp.GradScaler("cpu", growth_factor=0.5)
        off = lib.amp.GradScaler("cpu", enabled=False)
        loss = p.sum()
        assert off.scale(loss) is loss and off.state_dict() == {} and off.get_scale() == 1.0
    assert states[0] == states[1]


def test_nan_gradient_skips_the_step_and_fp16_grads_are_refused():
    p = aakaar.nn.Parameter(aakaar.ones(3))
    opt = aakaar.optim.SGD([p], lr=0.1)
    scaler = aakaar.amp.GradScaler("cpu", init_scale=4.0)
    (scaler.scale(p * aakaar.tensor([1.0, math.nan, 1.0])).sum()).backward()
    scaler.step(opt)
    scaler.update()
    np.testing.assert_array_equal(p.detach().numpy(), [1.0, 1.0, 1.0])
    assert scaler.get_scale() == 2.0
    h = aakaar.nn.Parameter(aakaar.ones(2, dtype=aakaar.float16))
    opt16 = aakaar.optim.SGD([h], lr=0.1)
    scaler.scale(h.float().sum()).backward()
    with pytest.raises(ValueError, match="FP16"):
        scaler.unscale_(opt16)
