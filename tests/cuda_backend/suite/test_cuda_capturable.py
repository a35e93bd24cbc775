"""capturable=True on the device (aakaar/optim/fused.py, csrc/cuda/optimizer_ops.cu): the step
counters live on "cuda", the device increments them and works out the bias corrections itself,
and the results are the non-capturable step's -- torch.optim's on the CPU to 1e-5 (float32) and
1e-10 (float64) relative over a few hundred steps, and aakaar's own CPU step bit for bit on the
emulator (the same arithmetic; a GPU's pow may differ from the host's in a last bit).

Runs on the emulator (tests/cuda_backend/test_on_emulator.py) and on a GPU
(tests/cuda_backend/gpu_check.sh runs every file of this suite)."""
from __future__ import annotations

import numpy as np
import pytest

import aakaar
from aakaar import optim

torch = pytest.importorskip("torch")

# Every optimizer PyTorch lets take capturable=True, with options that take other branches.
CASES = [
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.01, weight_decay=0.1, amsgrad=True, maximize=True)),
    ("AdamW", dict(lr=0.01, weight_decay=0.1)),
    ("Adamax", dict(lr=0.01, weight_decay=0.1)),
    ("NAdam", dict(lr=0.01, weight_decay=0.1)),
    ("NAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    ("RAdam", dict(lr=0.01, weight_decay=0.1)),  # rectified from step 6 on
    ("RAdam", dict(lr=0.01, decoupled_weight_decay=True, weight_decay=0.1)),
    ("RMSprop", dict(lr=0.01, centered=True, momentum=0.9, weight_decay=0.1)),
    ("Adadelta", dict(lr=1.0, weight_decay=0.1)),
    ("Rprop", dict(lr=0.01, maximize=True)),
    ("ASGD", dict(lr=0.01, weight_decay=0.01, t0=100)),  # averaging from step 100 on
]
IDS = [f"{n}-{i}" for i, (n, _) in enumerate(CASES)]
SHAPES = [(7, 5), (13,), (4, 3, 2), ()]
STEPS = 300
TOL = {"float32": 1e-5, "float64": 1e-10}
COUNTERS = ("step", "mu_product", "eta", "mu")


def _data(dtype: str, steps: int, shapes=SHAPES, seed: int = 0):
    """Start values and every step's gradients; parameter 0 has no gradient every third step, so the
    parameters of one group are at different step counts (each has its own numbers on the device)."""
    rng = np.random.default_rng(seed)
    start = [rng.standard_normal(s).astype(dtype) for s in shapes]
    grads = [[None if (k == 0 and t % 3 == 2) else rng.standard_normal(s).astype(dtype)
              for k, s in enumerate(shapes)] for t in range(steps)]
    return start, grads


def _run_aakaar(name, opts, device, start, grads, capturable, opt=None, params=None):
    if params is None:
        params = [aakaar.tensor(a).to(device).requires_grad_() for a in start]
    if opt is None:
        opt = getattr(optim, name)(params, capturable=capturable, **opts) if capturable else \
            getattr(optim, name)(params, **opts)
    for step_grads in grads:
        for p, g in zip(params, step_grads):
            p.grad = None if g is None else aakaar.tensor(g).to(device)
        opt.step()
    return opt, params


def _run_torch(name, opts, start, grads):
    params = [torch.tensor(a, requires_grad=True) for a in start]
    opt = getattr(torch.optim, name)(params, **opts)
    for step_grads in grads:
        for p, g in zip(params, step_grads):
            p.grad = None if g is None else torch.tensor(g)
        opt.step()
    return opt, params


def _rel_err(a: np.ndarray, b: np.ndarray) -> float:
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-30))


def _assert_same(got_opt, got_params, want_opt, want_params):
    """Parameters and state equal (exactly on the emulator: the same arithmetic in the same order)."""
    exact = aakaar.cuda.is_emulated()
    for p, q in zip(got_params, want_params):
        a, b = p.detach().cpu().numpy(), q.detach().cpu().numpy()
        if exact:
            np.testing.assert_array_equal(a, b)
        else:
            np.testing.assert_allclose(a, b, rtol=1e-9 if a.dtype == np.float64 else 1e-5, atol=0)
        sa, sb = got_opt.state[p], want_opt.state[q]
        assert sorted(sa) == sorted(sb)
        for key, value in sb.items():
            if isinstance(value, aakaar.Tensor):
                x, y = sa[key].cpu().numpy(), value.cpu().numpy()
                if exact or key == "step":  # (a GPU's pow may round NAdam's mu or ASGD's eta differently)
                    np.testing.assert_array_equal(x, y, err_msg=key)
                else:
                    np.testing.assert_allclose(x, y, rtol=1e-9 if x.dtype == np.float64 else 1e-5, atol=0)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,opts", CASES, ids=IDS)
def test_capturable_on_the_device_matches_torch_and_the_host_step(name, opts, dtype):
    start, grads = _data(dtype, STEPS)
    before = aakaar._C.cuda._copies_to_host()
    opt, params = _run_aakaar(name, opts, "cuda", start, grads, capturable=True)
    assert aakaar._C.cuda._copies_to_host() == before, "a capturable step read a value back to the host"
    t_opt, t_params = _run_torch(name, opts, start, grads)
    tol = TOL[dtype]
    for i, (p, q) in enumerate(zip(params, t_params)):
        assert p.device.type == "cuda"
        err = _rel_err(p.detach().cpu().numpy(), q.detach().numpy())
        assert err <= tol, f"parameter {i}: relative error {err:.3g} > {tol}"
        state, t_state = opt.state[p], t_opt.state[q]
        assert sorted(state) == sorted(t_state)
        for key, value in t_state.items():
            got = state[key]
            assert got.device.type == "cuda", f"state {key!r} of parameter {i} is on {got.device}"
            if key in COUNTERS:
                assert got.dtype == aakaar.float32, key  # the counters are float32, as torch's
            if value.dim() == 0:
                assert float(got.cpu().item()) == pytest.approx(float(value.item()), rel=tol), key
            else:
                err = _rel_err(got.cpu().numpy(), value.numpy())
                assert err <= tol, f"parameter {i} state {key!r}: relative error {err:.3g} > {tol}"
    assert float(opt.state[params[1]]["step"].cpu().item()) == STEPS
    assert float(opt.state[params[0]]["step"].cpu().item()) == STEPS - STEPS // 3
    # And aakaar's host-counted step on the CPU: the same numbers.
    cpu_opt, cpu_params = _run_aakaar(name, opts, "cpu", start, grads, capturable=False)
    _assert_same(opt, params, cpu_opt, cpu_params)


@pytest.mark.parametrize("name,opts", [CASES[1], CASES[5], CASES[11]], ids=["Adam", "NAdam", "ASGD"])
def test_many_parameters_and_long_ones(name, opts):
    # More parameters than one count_kernel launch (64) and one step table (24) hold, and one
    # with more chunks than a launch's blocks (the emulator build uses small chunks).
    shapes = [(3, 4)] * 70 + [(700_000,), (5,), (0,)]
    start, grads = _data("float32", 3, shapes)
    got = _run_aakaar(name, opts, "cuda", start, grads, capturable=True)
    want = _run_aakaar(name, opts, "cpu", start, grads, capturable=False)
    _assert_same(*got, *want)


@pytest.mark.parametrize("name,opts", CASES, ids=IDS)
def test_state_dict_round_trip(name, opts):
    start, grads = _data("float64", 40)
    whole, params = _run_aakaar(name, opts, "cuda", start, grads, capturable=True)
    first, params2 = _run_aakaar(name, opts, "cuda", start, grads[:25], capturable=True)
    sd = first.state_dict()
    for s in sd["state"].values():
        for key in COUNTERS:
            if key in s:
                assert s[key].device.type == "cuda" and s[key].dim() == 0, key
    resumed = getattr(optim, name)(params2, capturable=True, **opts)
    resumed.load_state_dict(sd)
    _run_aakaar(name, opts, "cuda", start, grads[25:], capturable=True, opt=resumed, params=params2)
    _assert_same(resumed, params2, whole, params)


@pytest.mark.parametrize("name,opts", CASES, ids=IDS)
def test_a_host_counted_state_loads_into_a_capturable_optimizer(name, opts):
    # Made without capturable=True (counters on the CPU); loaded with the flag set in its groups,
    # as PyTorch decides by the loaded groups: the counters move to the device ('step' as float32).
    start, grads = _data("float64", 30)
    plain, params = _run_aakaar(name, opts, "cuda", start, grads, capturable=False)
    half, params2 = _run_aakaar(name, opts, "cuda", start, grads[:15], capturable=False)
    sd = half.state_dict()
    assert all(s["step"].device.type == "cpu" for s in sd["state"].values())
    for g in sd["param_groups"]:
        g["capturable"] = True
    opt = getattr(optim, name)(params2, capturable=True, **opts)
    opt.load_state_dict(sd)
    for p in params2:
        for key in COUNTERS:
            if key in opt.state[p]:
                assert opt.state[p][key].device.type == "cuda", key
    assert opt.state[params2[1]]["step"].dtype == aakaar.float32
    _run_aakaar(name, opts, "cuda", start, grads[15:], capturable=True, opt=opt, params=params2)
    _assert_same(opt, params2, plain, params)
    # And back: a capturable state loaded without the flag puts its counters on the CPU.
    sd = opt.state_dict()
    for g in sd["param_groups"]:
        g["capturable"] = False
    back = getattr(optim, name)(params2, **opts)
    back.load_state_dict(sd)
    assert all(back.state[p]["step"].device.type == "cpu" for p in params2)
    back.step()  # the host-counted step takes them


@pytest.mark.parametrize("name", ["Adam", "AdamW", "RAdam", "ASGD"])
def test_an_lr_tensor_on_the_device_is_read_there(name):
    start, grads = _data("float64", 12)
    lrs = [0.01] * 6 + [0.003] * 6
    # The lr tensor, changed in place between steps (as a scheduler does), against a number.
    lr = aakaar.tensor(0.01, dtype=aakaar.float64).to("cuda")
    params = [aakaar.tensor(a).to("cuda").requires_grad_() for a in start]
    opt = getattr(optim, name)(params, lr=lr, capturable=True)
    ref_params = [aakaar.tensor(a).to("cuda").requires_grad_() for a in start]
    ref = getattr(optim, name)(ref_params, lr=0.01, capturable=True)
    for t, step_grads in enumerate(grads):
        lr.fill_(lrs[t])
        ref.param_groups[0]["lr"] = lrs[t]
        before = aakaar._C.cuda._copies_to_host()
        _run_aakaar(name, {}, "cuda", start, [step_grads], capturable=True, opt=opt, params=params)
        assert aakaar._C.cuda._copies_to_host() == before, "the lr tensor was read on the host"
        _run_aakaar(name, {}, "cuda", start, [step_grads], capturable=True, opt=ref, params=ref_params)
    if name == "ASGD":  # eta starts as lr's value, renewed from lr each step
        assert opt.state[params[1]]["eta"].device.type == "cuda"
    _assert_same(opt, params, ref, ref_params)


def test_refusals():
    # CPU parameters: PyTorch's AssertionError (tests/optim/test_differentiable.py compares it with torch's).
    p = aakaar.ones(3).requires_grad_()
    opt = optim.Adam([p], capturable=True)
    p.grad = aakaar.ones(3)
    with pytest.raises(AssertionError, match="capturable=True"):
        opt.step()
    # Counters made without the flag, then the flag set: they are on the CPU, the parameter is not.
    q = aakaar.ones(3).to("cuda").requires_grad_()
    opt = optim.Adam([q])
    q.grad = aakaar.ones(3).to("cuda")
    opt.step()
    opt.param_groups[0]["capturable"] = True
    with pytest.raises(AssertionError, match="state_steps"):
        opt.step()
    # A recorded (differentiable) step counts on the host.
    r = aakaar.ones(3).to("cuda").requires_grad_().clone()
    opt = optim.Adam([r], capturable=True, differentiable=True)
    r.grad = aakaar.ones(3).to("cuda")
    with pytest.raises(NotImplementedError, match="differentiable"):
        opt.step()
