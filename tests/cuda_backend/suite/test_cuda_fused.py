"""The fused kernels of the CUDA backend (csrc/cuda/optimizer_ops.cu, loss_ops.cu, ctc_ops.cu)
against the CPU's: every optimizer kind over several steps (the same bits for the elementwise
kinds), cross-entropy and the six pointwise losses over their options, and the CTC loss,
values and gradients."""
from __future__ import annotations

import numpy as np
import pytest

import aakaar
import aakaar.nn.functional as F
from aakaar import optim

from cuda_suite_helpers import FLOATS, check


def test_the_device_table_has_the_fused_kernels():
    has = aakaar._C._backend_fused_kernels("cuda")
    for name in ("optimizer_step", "cross_entropy", "cross_entropy_backward", "pointwise_loss", "ctc_loss"):
        assert has[name], name


# ---------------------------------------------------------------- optimizers

# (class, options): every kind, with the options that take another branch of its kernel.
OPTIMIZERS = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.1, weight_decay=0.01)),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, maximize=True)),
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.01, weight_decay=0.1, amsgrad=True, maximize=True)),
    ("AdamW", dict(lr=0.01, weight_decay=0.1)),
    ("AdamW", dict(lr=0.01, amsgrad=True)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, weight_decay=0.1)),
    ("RMSprop", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01, centered=True, momentum=0.9, weight_decay=0.1)),
    ("Adadelta", dict(lr=1.0, weight_decay=0.1)),
    ("Adamax", dict(lr=0.01, weight_decay=0.1)),
    ("NAdam", dict(lr=0.01, weight_decay=0.1)),
    ("NAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    ("RAdam", dict(lr=0.01, weight_decay=0.1)),  # the rectification starts at step 6
    ("RAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    ("Rprop", dict(lr=0.01)),
    ("Rprop", dict(lr=0.01, maximize=True)),
    ("ASGD", dict(lr=0.01, weight_decay=0.1, t0=3)),  # averaging starts after t0 steps
    ("Lion", dict(lr=0.01, weight_decay=0.1)),
    ("LAMB", dict(lr=0.01, weight_decay=0.1)),
    ("Adafactor", dict(lr=0.01, weight_decay=0.1)),
    ("Adafactor", dict(lr=0.01, maximize=True)),
]
# Shapes: matrices (Adafactor's factored state), a batch of matrices, a vector, a scalar.
SHAPES = [(5, 7), (2, 3, 4), (11,), (), (40, 3)]
STEPS = 7


def _run(name, opts, dtype, device, params_np, grads_np, strided=False):
    params = []
    for a in params_np:
        t = aakaar.tensor(a).to(device)
        if strided and t.ndim == 2:
            # A transposed parameter: the kernels see a non-contiguous tensor.
            t = aakaar.tensor(np.ascontiguousarray(a.T)).to(device).t()
        params.append(t.requires_grad_())
    opt = getattr(optim, name)(params, **opts)
    for step in range(STEPS):
        for p, g in zip(params, grads_np[step]):
            p.grad = aakaar.tensor(g).to(device)
        opt.step()
    states = [[v for _, v in sorted(opt.state[p].items()) if isinstance(v, aakaar.Tensor)] for p in params]
    return params, states


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("name,opts", OPTIMIZERS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(OPTIMIZERS)])
def test_optimizer_step_matches_the_cpu(rng, name, opts, dtype):
    np_dtype = np.float32 if dtype == aakaar.float32 else np.float64
    params_np = [rng.standard_normal(s).astype(np_dtype) for s in SHAPES]
    # Some gradients keep their sign, some flip it (Rprop's two branches), some are 0.
    grads_np = [[(rng.standard_normal(s) * (0 if k == 3 else 1)).astype(np_dtype) for k, s in enumerate(SHAPES)]
                for _ in range(STEPS)]
    cpu, cpu_states = _run(name, opts, dtype, "cpu", params_np, grads_np)
    strided = name not in ("LAMB", "Adafactor")  # (those get contiguous copies from the op itself)
    gpu, gpu_states = _run(name, opts, dtype, "cuda", params_np, grads_np, strided=strided)
    layerwise = name in ("LAMB", "Adafactor")
    for p_cpu, p_gpu, s_cpu, s_gpu in zip(cpu, gpu, cpu_states, gpu_states):
        assert p_gpu.device.type == "cuda"
        got, want = p_gpu.detach().cpu().numpy(), p_cpu.detach().numpy()
        if layerwise:
            # A norm summed in another order may round the step's scale differently in its last bit.
            np.testing.assert_allclose(got, want, rtol=8 * np.finfo(np_dtype).eps, atol=0)
        else:
            np.testing.assert_array_equal(got, want)  # the CPU's arithmetic, the CPU's bits
        assert len(s_cpu) == len(s_gpu)
        for a, b in zip(s_gpu, s_cpu):
            np.testing.assert_allclose(a.cpu().numpy(), b.cpu().numpy(), rtol=8 * np.finfo(np_dtype).eps, atol=0)


@pytest.mark.parametrize("name", ["Adam", "LAMB"])
def test_many_parameters_and_long_ones_take_several_launches(rng, name):
    # More parameters than one launch's table holds, and one parameter with more chunks than
    # a launch's blocks (csrc/cuda/optimizer_ops.cu; the emulator build uses small chunks).
    shapes = [(3, 4)] * 30 + [(700_000,), (5,)]
    params_np = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    grads_np = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    out = []
    for device in ("cpu", "cuda"):
        ps = [aakaar.tensor(a).to(device).requires_grad_() for a in params_np]
        opt = getattr(optim, name)(ps, lr=0.01)
        for _ in range(2):
            for p, g in zip(ps, grads_np):
                p.grad = aakaar.tensor(g).to(device)
            opt.step()
        out.append([p.detach().cpu().numpy() for p in ps])
    for got, want in zip(out[1], out[0]):
        if name == "LAMB":  # its norms are sums in another order than the CPU's
            np.testing.assert_allclose(got, want, rtol=8 * np.finfo(np.float32).eps, atol=0)
        else:
            np.testing.assert_array_equal(got, want)


# ---------------------------------------------------------------- cross-entropy

def _tol(dtype):
    return dict(rtol=2e-5, atol=1e-6) if dtype == aakaar.float32 else dict(rtol=1e-12, atol=1e-13)


CE_OPTIONS = [
    dict(),
    dict(weight=True),
    dict(ignore_index=2),
    dict(label_smoothing=0.1),
    dict(weight=True, ignore_index=2, label_smoothing=0.2),
    dict(probs=True),
    dict(probs=True, weight=True, label_smoothing=0.1),
]


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("opts", CE_OPTIONS, ids=lambda o: "-".join(o) or "plain")
def test_cross_entropy_options_match_the_cpu(rng, dtype, reduction, opts):
    np_dtype = np.float32 if dtype == aakaar.float32 else np.float64
    N, C = 19, 300  # C > 256: a row takes several passes of the block
    x_np = (rng.standard_normal((N, C)) * 4).astype(np_dtype)
    x_np[0, 5] = 80.0  # a large logit: the shift by the row's max keeps exp finite
    t_np = rng.integers(0, C, N)
    t_np[[1, 4]] = 2
    w_np = rng.uniform(0.5, 2.0, C).astype(np_dtype)
    q_np = rng.dirichlet(np.ones(C), N).astype(np_dtype)
    results = []
    for device in ("cpu", "cuda"):
        x = aakaar.tensor(x_np).to(device).requires_grad_()
        target = aakaar.tensor(q_np if opts.get("probs") else t_np).to(device)
        kw = dict(reduction=reduction, label_smoothing=opts.get("label_smoothing", 0.0))
        if opts.get("weight"):
            kw["weight"] = aakaar.tensor(w_np).to(device)
        if "ignore_index" in opts:
            kw["ignore_index"] = opts["ignore_index"]
        loss = F.cross_entropy(x, target, **kw)
        (loss * loss.detach()).sum().backward()  # a different gradient per row for "none"
        results.append((loss.detach(), x.grad))
    (loss_cpu, grad_cpu), (loss_gpu, grad_gpu) = results
    check(loss_gpu, loss_cpu, **_tol(dtype))
    check(grad_gpu, grad_cpu, **_tol(dtype))


def test_cross_entropy_of_a_transposed_input_and_all_rows_ignored(rng):
    x_np = rng.standard_normal((7, 5))
    x, gx = aakaar.tensor(x_np.T.copy()).t(), aakaar.tensor(x_np.T.copy()).to("cuda").t()
    t = np.array([0, 1, 2, 3, 4, 0, 1])
    check(F.cross_entropy(gx, aakaar.tensor(t).to("cuda"), reduction="none"),
          F.cross_entropy(x, aakaar.tensor(t), reduction="none"), **_tol(aakaar.float64))
    ignored = np.full(7, -100)
    got = F.cross_entropy(gx, aakaar.tensor(ignored).to("cuda"))
    assert np.isnan(got.cpu().numpy())  # 0 / 0, as PyTorch's mean over no rows


# ---------------------------------------------------------------- pointwise losses

LOSSES = ["mse_loss", "l1_loss", "huber_loss", "smooth_l1_loss", "binary_cross_entropy",
          "binary_cross_entropy_with_logits"]


def _loss_inputs(rng, name, np_dtype, n):
    if name == "binary_cross_entropy":
        x = rng.uniform(0, 1, n)
        x[:3] = [0.0, 1.0, 1e-30]  # the logs' clamp at -100
        t = rng.uniform(0, 1, n)
    elif name == "binary_cross_entropy_with_logits":
        x = rng.standard_normal(n) * 5
        x[:2] = [200.0, -200.0]  # the stable form: no overflow of exp
        t = rng.uniform(0, 1, n)
    else:
        x, t = rng.standard_normal(n) * 2, rng.standard_normal(n) * 2
    return x.astype(np_dtype), t.astype(np_dtype)


# (loss, weighted): l1, mse and smooth_l1 take no weight in PyTorch's signature.
LOSS_CASES = [(n, False) for n in LOSSES] + [(n, True) for n in LOSSES[2:] if n != "smooth_l1_loss"]


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("name,weighted", LOSS_CASES, ids=[n + ("-weighted" if w else "") for n, w in LOSS_CASES])
def test_pointwise_losses_match_the_cpu(rng, name, weighted, reduction, dtype):
    np_dtype = np.float32 if dtype == aakaar.float32 else np.float64
    n = 3000  # several blocks: partial sums in block order
    x_np, t_np = _loss_inputs(rng, name, np_dtype, n)
    w_np = rng.uniform(0.5, 2, n).astype(np_dtype)
    pw_np = rng.uniform(0.5, 3, n).astype(np_dtype)
    results = []
    for device in ("cpu", "cuda"):
        x = aakaar.tensor(x_np).to(device).requires_grad_()
        kw = dict(reduction=reduction)
        if weighted:
            kw["weight"] = aakaar.tensor(w_np).to(device)
            if name == "binary_cross_entropy_with_logits":
                kw["pos_weight"] = aakaar.tensor(pw_np).to(device)
        if name == "huber_loss":
            kw["delta"] = 0.7
        if name == "smooth_l1_loss":
            kw["beta"] = 0.5
        loss = getattr(F, name)(x, aakaar.tensor(t_np).to(device), **kw)
        (loss * loss.detach()).sum().backward()
        results.append((loss.detach(), x.grad))
    (loss_cpu, grad_cpu), (loss_gpu, grad_gpu) = results
    check(loss_gpu, loss_cpu, **_tol(dtype))
    # The CPU's float32 exp and log are its own vectorised ones (cpu/vec_math.h), the device's the
    # C library's: a gradient that cancels (BCEWithLogits' sigmoid(x) - t) differs by their few ulp,
    # relative to the gradient's scale rather than to the cancelled value.
    tol = _tol(dtype)
    tol["atol"] = max(tol["atol"], tol["rtol"] * float(np.abs(grad_cpu.numpy()).max()))
    check(grad_gpu, grad_cpu, **tol)


# ---------------------------------------------------------------- CTC

@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("layout", ["padded", "concatenated"])
@pytest.mark.parametrize("zero_infinity", [False, True])
def test_ctc_loss_matches_the_cpu(rng, dtype, layout, zero_infinity):
    np_dtype = np.float32 if dtype == aakaar.float32 else np.float64
    T, N, C = 12, 5, 6
    logits = rng.standard_normal((T, N, C))
    lp_np = (logits - np.log(np.exp(logits).sum(-1, keepdims=True))).astype(np_dtype)
    # repeated labels (a blank must separate them), an empty target, a target too long for its input
    targets = [[1, 1, 2], [3, 4, 5, 1], [], [2, 2, 2, 2, 2, 2, 2], [5]]
    input_lengths = [12, 10, 7, 9, 3]
    target_lengths = [len(t) for t in targets]
    if layout == "padded":
        tg_np = np.zeros((N, max(target_lengths)), dtype=np.int64)
        for i, t in enumerate(targets):
            tg_np[i, :len(t)] = t
    else:
        tg_np = np.array([c for t in targets for c in t], dtype=np.int64)
    results = []
    for device in ("cpu", "cuda"):
        lp = aakaar.tensor(lp_np).to(device).requires_grad_()
        loss = F.ctc_loss(lp, aakaar.tensor(tg_np).to(device), input_lengths, target_lengths, blank=0,
                          reduction="none", zero_infinity=zero_infinity)
        weights = aakaar.tensor(np.arange(1, N + 1, dtype=np_dtype)).to(device)
        total = (loss * weights).sum()
        if not zero_infinity:
            total = (loss[:3] * weights[:3]).sum() + loss[4]  # sample 3 is impossible: +inf
        total.backward()
        results.append((loss.detach(), lp.grad))
    (loss_cpu, grad_cpu), (loss_gpu, grad_gpu) = results
    check(loss_gpu, loss_cpu, **_tol(dtype))
    check(grad_gpu, grad_cpu, **_tol(dtype))
