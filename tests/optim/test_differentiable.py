"""``differentiable=True`` against torch.optim: the same meta-gradients, the same refusals.

With differentiable=True the step is recorded by autograd (aakaar/optim/differentiable.py), so a
loss after k steps can be differentiated with respect to the learning rate given as a tensor and to
the initial parameters, and a single step with respect to the gradient and the optimizer's state.
Both libraries run the same problem in float64; the results agree to 1e-10 relative.

One adjustment to the reference: torch's recorded Adam step takes the square root of its float32 bias
correction ``1 - beta2**step``, and this torch build's float32 sqrt on the CPU (MKL's vector math) is not
correctly rounded (off by one unit in the last place for about one value in five); aakaar's is. One ulp of
float32 there is 6e-8 relative in the update, above the 1e-10 bound, so the torch runs here use a correctly
rounded float32 sqrt for 0-d float32 tensors (``_exact_float32_sqrt``); everything else is torch's own code.
"""

from __future__ import annotations

import numpy as np
import pytest

import aakaar as ak
from aakaar.autograd import enable_grad, gradcheck

from optim_helpers import rel_err

torch = pytest.importorskip("torch")

TOL = 1e-10
N = 6

# (optimizer, options, lr, steps): each optimizer of torch.optim that accepts differentiable=True, with its main
# options. lr_grad: whether torch differentiates with respect to an lr tensor (the others take lr as a number).
CASES = [
    ("SGD", {}, 0.05, 3), ("SGD", {"momentum": 0.9}, 0.05, 3), ("SGD", {"momentum": 0.9, "dampening": 0.3}, 0.05, 3),
    ("SGD", {"momentum": 0.9, "nesterov": True}, 0.05, 3), ("SGD", {"weight_decay": 0.1, "maximize": True}, 0.05, 3),
    ("Adam", {}, 0.01, 3), ("Adam", {"amsgrad": True}, 0.01, 3), ("Adam", {"weight_decay": 0.1}, 0.01, 3),
    ("Adam", {"maximize": True, "betas": (0.8, 0.99)}, 0.01, 3),
    ("Adam", {"weight_decay": 0.1, "decoupled_weight_decay": True}, 0.01, 3),
    ("AdamW", {}, 0.01, 3), ("AdamW", {"amsgrad": True, "weight_decay": 0.05}, 0.01, 3),
    ("Adagrad", {}, 0.1, 3), ("Adagrad", {"lr_decay": 0.1, "weight_decay": 0.1}, 0.1, 3),
    ("Adagrad", {"initial_accumulator_value": 0.2, "maximize": True}, 0.1, 3),
    ("RMSprop", {}, 0.01, 3), ("RMSprop", {"centered": True}, 0.01, 3), ("RMSprop", {"momentum": 0.5}, 0.01, 3),
    ("RMSprop", {"centered": True, "momentum": 0.5, "weight_decay": 0.1}, 0.01, 3),
    ("Adamax", {}, 0.02, 3), ("Adamax", {"weight_decay": 0.1, "maximize": True}, 0.02, 3),
    ("NAdam", {}, 0.02, 3), ("NAdam", {"weight_decay": 0.1}, 0.02, 3),
    ("NAdam", {"weight_decay": 0.1, "decoupled_weight_decay": True, "momentum_decay": 0.01}, 0.02, 3),
    ("RAdam", {}, 0.01, 3), ("RAdam", {"betas": (0.9, 0.9)}, 0.01, 8),  # steps 6..8 take the rectified branch
    ("RAdam", {"weight_decay": 0.1, "decoupled_weight_decay": True, "betas": (0.9, 0.9)}, 0.01, 8),
    ("Adadelta", {}, 1.0, 3), ("Adadelta", {"rho": 0.5, "weight_decay": 0.1, "maximize": True}, 1.0, 3),
    ("Rprop", {}, 0.01, 3), ("Rprop", {"etas": (0.3, 1.5), "step_sizes": (1e-3, 0.02), "maximize": True}, 0.01, 3),
    ("ASGD", {}, 0.01, 3), ("ASGD", {"t0": 1, "lambd": 0.1, "weight_decay": 0.1}, 0.01, 3),
]
NUMBER_LR = {"Adagrad", "RMSprop", "Adamax", "Adadelta", "Rprop"}  # lr must be a number there (TypeError)


@pytest.fixture(autouse=True)
def _exact_float32_sqrt(monkeypatch):
    """torch's Tensor.sqrt, correctly rounded for 0-d float32 tensors (see the module's docstring)."""
    sqrt = torch.Tensor.sqrt

    def exact(self):
        if self.dim() == 0 and self.dtype == torch.float32:
            return sqrt(self.double()).float()
        return sqrt(self)

    monkeypatch.setattr(torch.Tensor, "sqrt", exact)


def test_torch_float32_sqrt_is_not_correctly_rounded():
    """Why the fixture above exists: measured, not assumed (if a torch build rounds correctly, drop it)."""
    v = np.random.default_rng(0).uniform(1e-3, 1.0, 2000).astype(np.float32)
    exact = np.sqrt(v.astype(np.float64)).astype(np.float32)
    assert np.array_equal(ak.from_numpy(v).sqrt().numpy(), exact)
    assert not np.array_equal(torch.sqrt(torch.from_numpy(v)).numpy(), exact)  # the function, not the patched method


def _ids(case):
    name, options, _, _ = case
    return name + ("-" + "-".join(f"{k}={v}" for k, v in options.items()) if options else "")


def _data(seed: int = 0):
    rng = np.random.default_rng(seed)
    return {"x0": rng.standard_normal(N), "c": rng.standard_normal(N), "target": rng.standard_normal(N)}


def _tensor(lib, array, requires_grad=False):
    t = lib.from_numpy(np.array(array, dtype=np.float64))
    return t.requires_grad_() if requires_grad else t


def meta_run(lib, name, options, lr_value, steps, lr_tensor, data):
    """k recorded steps on sum(q^4)/4 + c.q from a clone of x0, then ||p - target||^2 differentiated:
    returns (p, dL/dx0, dL/dlr) in numpy (dL/dlr None when lr is a number or gets no gradient)."""
    x0 = _tensor(lib, data["x0"], True)
    c, target = _tensor(lib, data["c"]), _tensor(lib, data["target"])
    lr = _tensor(lib, lr_value, True) if lr_tensor else lr_value
    p = x0.clone()
    opt = getattr(lib.optim, name)([p], lr=lr, differentiable=True, **options)
    for _ in range(steps):
        q = p.clone()  # the gradient's graph saves q, which the step leaves alone
        (g,) = lib.autograd.grad((q * q * q * q).sum() * 0.25 + (q * c).sum(), [q], create_graph=True)
        p.grad = g
        opt.step()
    ((p - target) * (p - target)).sum().backward()
    lr_grad = lr.grad if lr_tensor else None
    return (p.detach().numpy(), x0.grad.numpy(), None if lr_grad is None else np.asarray(lr_grad.numpy()))


def _run_or_inplace_error(lib, *args):
    """torch's recorded step reads some state in place (a momentum buffer saved for backward, then
    decayed by the next step): backward over several steps then raises RuntimeError. None then."""
    try:
        return meta_run(lib, *args)
    except RuntimeError as e:
        if "modified by an inplace operation" not in str(e):
            raise
        return None


@pytest.mark.parametrize("case", CASES, ids=[_ids(c) for c in CASES])
def test_meta_gradient_matches_torch(case):
    name, options, lr, steps = case
    lr_tensor = name not in NUMBER_LR
    data = _data()
    want = _run_or_inplace_error(torch, name, options, lr, steps, lr_tensor, data)
    if want is None:  # as many steps as torch records: one from fresh state (the next test covers later steps)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            meta_run(ak, name, options, lr, steps, lr_tensor, data)
        steps = 1
        want = meta_run(torch, name, options, lr, steps, lr_tensor, data)
    got = meta_run(ak, name, options, lr, steps, lr_tensor, data)
    assert rel_err(got[0], want[0]) <= TOL
    assert rel_err(got[1], want[1]) <= TOL
    assert (got[2] is None) == (want[2] is None)  # ASGD reads eta as a number: no gradient for lr in either
    if want[2] is not None:
        assert rel_err(got[2], want[2]) <= TOL


def _state(name, options, rng):
    """A mid-training state for one parameter (positive where the optimizer keeps squares)."""
    def pos():
        return np.abs(rng.standard_normal(N)) + 0.1

    def any_():
        return rng.standard_normal(N)

    if name == "SGD":
        return {"momentum_buffer": any_()} if options.get("momentum") else {}
    if name in ("Adam", "AdamW"):
        s = {"exp_avg": any_(), "exp_avg_sq": pos()}
        if options.get("amsgrad"):
            s["max_exp_avg_sq"] = s["exp_avg_sq"] + pos()
        return s
    if name == "Adagrad":
        return {"sum": pos()}
    if name == "RMSprop":
        s = {"square_avg": pos() + 2.0}
        if options.get("centered"):
            s["grad_avg"] = any_() * 0.3
        if options.get("momentum"):
            s["momentum_buffer"] = any_()
        return s
    if name == "Adamax":
        return {"exp_avg": any_(), "exp_inf": pos()}
    if name in ("NAdam", "RAdam"):
        return {"exp_avg": any_(), "exp_avg_sq": pos()}
    if name == "Adadelta":
        return {"square_avg": pos(), "acc_delta": pos()}
    if name == "Rprop":
        return {"prev": any_(), "step_size": pos() * 0.01}
    if name == "ASGD":
        return {"ax": any_()}
    raise AssertionError(name)


def one_step(lib, name, options, lr_value, data, state, counter):
    """One recorded step from a given state (leaves that require grad, as torch's own differentiable tests),
    its outputs (the parameter and every state tensor that now requires grad) reduced with fixed weights,
    differentiated with respect to x0, the gradient, the state and lr."""
    x0, grad = _tensor(lib, data["x0"], True), _tensor(lib, data["c"], True)
    lr = lr_value if name in NUMBER_LR else _tensor(lib, lr_value, True)
    leaves = {k: _tensor(lib, v, True) for k, v in state.items()}
    p = x0.clone()
    p.grad = grad
    opt = getattr(lib.optim, name)([p], lr=lr, differentiable=True, **options)
    if name == "Adagrad":  # its state exists from the start
        opt.state[p].clear()
    s = opt.state[p]
    s.update({k: v.clone() for k, v in leaves.items()})
    if name != "SGD":
        s["step"] = lib.full([], float(counter), dtype=lib.float32)
    if name == "NAdam":
        s["mu_product"] = lib.full([], 0.8, dtype=lib.float32)
    if name == "ASGD":
        s["eta"] = lib.full([], lr_value, dtype=lib.float32)
        s["mu"] = lib.full([], 0.5, dtype=lib.float32)
    opt.step()
    outs = [p] + [v for k, v in s.items() if k in state]
    weights = np.random.default_rng(7).standard_normal((len(outs), N))
    sum(((o * _tensor(lib, w)).sum() for o, w in zip(outs, weights))).backward()
    inputs = {"x0": x0, "grad": grad, **leaves}
    if not isinstance(lr, float):
        inputs["lr"] = lr
    grads = {k: (None if v.grad is None else np.asarray(v.grad.numpy())) for k, v in inputs.items()}
    return [o.detach().numpy() for o in outs], grads


@pytest.mark.parametrize("case", CASES, ids=[_ids(c) for c in CASES])
def test_one_step_from_state_matches_torch(case):
    name, options, lr, _ = case
    state = _state(name, options, np.random.default_rng(3))
    counter = 10 if name == "RAdam" else 4
    try:
        want_out, want = one_step(torch, name, options, lr, _data(1), state, counter)
    except RuntimeError as e:
        # ASGD's averaging multiplies by the float32 mu, then renews mu in place: torch saved mu itself and
        # refuses the backward; aakaar saved the float64 copy the product promoted it to, so its gradient
        # stays right. It is checked against finite differences instead.
        assert name == "ASGD" and "modified by an inplace operation" in str(e)
        _asgd_step_gradcheck(options, lr, state)
        return
    got_out, got = one_step(ak, name, options, lr, _data(1), state, counter)
    for a, t in zip(got_out, want_out):
        assert rel_err(a, t) <= TOL
    assert set(got) == set(want)
    for k in want:
        assert (got[k] is None) == (want[k] is None), k
        if want[k] is not None and np.any(want[k] != 0):
            assert rel_err(got[k], want[k]) <= TOL, k
        elif want[k] is not None:
            assert np.all(got[k] == 0), k


def _asgd_step_gradcheck(options, lr, state):
    def fn(x0, grad, ax):
        with enable_grad():
            p = x0.clone()
            p.grad = grad
            opt = ak.optim.ASGD([p], lr=lr, differentiable=True, **options)
            s = opt.state[p]
            s.update(step=ak.full([], 4.0, dtype=ak.float32), eta=ak.full([], lr, dtype=ak.float32),
                     mu=ak.full([], 0.5, dtype=ak.float32), ax=ax.clone())
            opt.step()
            return p, s["ax"]

    data = _data(1)
    inputs = (_tensor(ak, data["x0"], True), _tensor(ak, data["c"], True), _tensor(ak, state["ax"], True))
    assert gradcheck(fn, inputs, eps=1e-6, atol=1e-7, rtol=1e-6)


@pytest.mark.parametrize("name", ["SGD", "Adam", "RMSprop", "RAdam", "Adadelta"])
def test_meta_gradient_against_finite_differences(name):
    """Independent of torch: d(loss after 3 steps)/d(x0) (and lr where it is a tensor) by finite differences."""
    data = _data(2)
    c, target = _tensor(ak, data["c"]), _tensor(ak, data["target"])
    lr_tensor = name not in NUMBER_LR

    def loss(x0, lr):
        with enable_grad():  # gradcheck evaluates under no_grad; the inner gradients need the graph
            p = x0.clone()
            opt = getattr(ak.optim, name)([p], lr=lr if lr_tensor else 0.01, differentiable=True)
            for _ in range(3):
                q = p.clone()
                (g,) = ak.autograd.grad((q * q * q * q).sum() * 0.25 + (q * c).sum(), [q], create_graph=True)
                p.grad = g
                opt.step()
            return ((p - target) * (p - target)).sum()

    x0 = _tensor(ak, data["x0"], True)
    lr = _tensor(ak, 0.01, lr_tensor)
    assert gradcheck(loss, (x0, lr), eps=1e-6, atol=1e-5, rtol=1e-4)


def _both(fn):
    """fn(lib) in both libraries: the exception class each raises (None when it runs)."""
    out = []
    for lib in (torch, ak):
        try:
            fn(lib)
            out.append(None)
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            out.append(type(e))
    return out


def _one_diff_step(lib, name, p=None, **options):
    p = _tensor(lib, np.ones(3), True).clone() if p is None else p
    opt = getattr(lib.optim, name)([p], differentiable=True, **options)
    p.grad = _tensor(lib, np.full(3, 0.5))
    opt.step()


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "Adagrad"])
def test_fused_refuses_differentiable(name):
    torch_err, ak_err = _both(lambda lib: getattr(lib.optim, name)([_tensor(lib, np.ones(2), True)], lr=0.1,
                                                                     fused=True, differentiable=True))
    assert torch_err is RuntimeError and ak_err is RuntimeError


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "Adagrad", "RMSprop", "Adamax", "NAdam", "RAdam",
                                  "Adadelta", "Rprop", "ASGD"])
def test_foreach_with_differentiable(name):
    """PyTorch's foreach kernels are not recorded: AssertionError at the step, except SGD's."""
    torch_err, ak_err = _both(lambda lib: _one_diff_step(lib, name, foreach=True))
    assert torch_err is ak_err
    assert ak_err is (None if name == "SGD" else AssertionError)


@pytest.mark.parametrize("name", ["SGD", "Adam", "RMSprop", "Rprop", "ASGD"])
def test_leaf_parameter_with_differentiable(name):
    """A leaf that requires grad cannot be updated in place while grad mode records: RuntimeError in both."""
    torch_err, ak_err = _both(lambda lib: _one_diff_step(lib, name, p=_tensor(lib, np.ones(3), True)))
    assert torch_err is RuntimeError and ak_err is RuntimeError


@pytest.mark.parametrize("name", sorted(NUMBER_LR))
def test_lr_tensor_requiring_grad_refused_where_torch_refuses(name):
    torch_err, ak_err = _both(lambda lib: _one_diff_step(lib, name, lr=_tensor(lib, 0.01, True)))
    assert torch_err is TypeError and ak_err is TypeError


@pytest.mark.parametrize("name", ["Adafactor", "Muon", "LBFGS"])
def test_optimizers_without_differentiable(name):
    shape = (3, 3)
    torch_err, ak_err = _both(lambda lib: getattr(lib.optim, name)([_tensor(lib, np.ones(shape), True)],
                                                                   differentiable=True))
    assert torch_err is TypeError and ak_err is TypeError


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "Adagrad", "RMSprop", "Adamax", "NAdam", "RAdam",
                                  "Adadelta", "Rprop", "ASGD"])
def test_capturable_on_cpu(name):
    """capturable=True is for CUDA graphs: PyTorch refuses CPU parameters at the step (AssertionError);
    SGD and Adagrad do not take the argument (TypeError)."""
    def run(lib):
        p = _tensor(lib, np.ones(3), True)
        opt = getattr(lib.optim, name)([p], capturable=True)
        p.grad = _tensor(lib, np.full(3, 0.5))
        opt.step()

    torch_err, ak_err = _both(run)
    assert torch_err is ak_err
    assert ak_err is (TypeError if name in ("SGD", "Adagrad") else AssertionError)


def test_a_step_counter_that_requires_grad_is_refused():
    def run(lib):
        p = _tensor(lib, np.ones(3), True).clone()
        opt = lib.optim.Adam([p], differentiable=True)
        p.grad = _tensor(lib, np.full(3, 0.5))
        opt.step()
        opt.state[p]["step"] = lib.full([], 1.0, dtype=lib.float32).requires_grad_()
        opt.step()

    assert _both(run) == [RuntimeError, RuntimeError]
