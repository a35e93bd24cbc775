"""Autograd on the "cuda" device: the same graph and formulas as on the CPU (ops record nodes
whatever the device, and the backward formulas create their constants on the gradient's device)."""
from __future__ import annotations

import numpy as np

import aakaar as ak
from aakaar.autograd import gradcheck


def test_gradients_on_the_device_match_the_cpu():
    ak.manual_seed(0)
    xc, wc = ak.randn(8, 5, dtype=ak.float64), ak.randn(5, 3, dtype=ak.float64)
    results = {}
    for dev in ["cpu", "cuda"]:
        x, w = xc.to(dev).detach().requires_grad_(), wc.to(dev).detach().requires_grad_()
        y = (x @ w).relu().softmax(1).log().mean() + (x * x).sum(1).sqrt().mean() + x.amax(1).sum()
        y.backward()
        assert x.grad.device == dev and w.grad.device == dev
        results[dev] = (y.item(), x.grad.cpu().numpy(), w.grad.cpu().numpy())
    assert abs(results["cpu"][0] - results["cuda"][0]) < 1e-12
    np.testing.assert_allclose(results["cuda"][1], results["cpu"][1], rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(results["cuda"][2], results["cpu"][2], rtol=1e-10, atol=1e-14)


def test_gradcheck_on_the_device():
    x = ak.randn(4, 6, dtype=ak.float64, device="cuda").requires_grad_()
    assert gradcheck(lambda a: (a[:, 1:4] * 2).logsumexp(1) + a.pow(2).prod(1) + a.clamp(-0.5, 0.5).sum(1), (x,))


def test_gradients_flow_back_across_a_device_transfer():
    x = ak.randn(3, 4, dtype=ak.float64).requires_grad_()  # a CPU leaf
    y = x.to("cuda")
    assert y.requires_grad and y.grad_fn.name() == "ToCopyBackward0"  # torch's name for .to(device)
    (y * y).sum().backward()
    assert x.grad.device == "cpu"
    np.testing.assert_allclose(x.grad.numpy(), 2 * x.detach().numpy(), rtol=1e-12)


def test_a_model_moved_to_the_device_trains_like_the_cpu_model():
    """Module.to("cuda") moves parameters and buffers; the fused Linear(+ReLU) forward and
    backward, cross-entropy, and the in-place SGD-with-momentum update (lerp_, add_) then run
    on the device and follow the same model on the CPU."""
    import aakaar.nn as nn
    import aakaar.nn.functional as F

    ak.manual_seed(0)
    cpu = nn.Sequential(nn.Linear(20, 16), nn.ReLU(), nn.Linear(16, 5)).double()
    gpu = nn.Sequential(nn.Linear(20, 16), nn.ReLU(), nn.Linear(16, 5)).double()
    gpu.load_state_dict(cpu.state_dict())
    assert gpu.cuda() is gpu and all(p.device == "cuda" for p in gpu.parameters())
    x, y = ak.randn(8, 20, dtype=ak.float64), ak.tensor(np.arange(8) % 5)
    losses = {}
    for name, model, dev in [("cpu", cpu, "cpu"), ("cuda", gpu, "cuda")]:
        params = list(model.parameters())
        emas = [ak.zeros_like(p) for p in params]
        losses[name] = []
        for _ in range(3):
            model.zero_grad()
            loss = F.cross_entropy(model(x.to(dev)), y.to(dev))
            loss.backward()
            with ak.no_grad():
                for p, ema in zip(params, emas):
                    ema.lerp_(p.grad, 0.1)
                    p.add_(ema, alpha=-0.5)
            losses[name].append(loss.item())
    np.testing.assert_allclose(losses["cuda"], losses["cpu"], rtol=1e-10)
    assert losses["cpu"][-1] < losses["cpu"][0]
    for pc, pg in zip(cpu.parameters(), gpu.cpu().parameters()):
        assert pg.device == "cpu"
        np.testing.assert_allclose(pg.numpy(), pc.numpy(), rtol=1e-10, atol=1e-12)
