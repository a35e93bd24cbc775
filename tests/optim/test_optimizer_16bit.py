"""float16 and bfloat16 parameters: every optimizer steps them, as torch.optim does.

aakaar's rule for 16-bit floats: a step loads the parameter, its gradient and its state in float32,
updates in float32 and rounds once to the 16-bit dtype (csrc/ops/optimizer.cpp hands the float32
kernels float32 copies and copies the results back). The state is kept in the parameter's dtype, as
torch keeps it (``exp_avg`` etc. are ``zeros_like(param)``; ``step``, NAdam's ``mu_product``, ASGD's
``eta`` and ``mu`` stay float32). Every optimizer is run 50 steps against two references, with the
flag that chooses torch's implementation (its for-loop default, ``foreach=True``, and ``fused=True``
where torch has a CPU fused kernel: SGD, Adam, AdamW, Adagrad); in aakaar the flags change nothing.

Tolerances, and why (eps = torch.finfo(dtype).eps: 2^-7 for bfloat16, 2^-10 for float16):

1. The Float32Reference (optim16_helpers.py): torch's optimizer run by aakaar's rule (float32 images,
   rounded to 16 bits after each step). The float32 arithmetic of the two libraries agrees to ~1e-7
   relative (test_optimizer_torch_parity.py), so a 16-bit result differs only where a float32 value
   lies that close to a rounding boundary, by one ulp. Bound: every parameter and state tensor
   within REF_ULPS * eps * max|value| of the reference, and at most REF_SHARE of its elements not
   bit-identical. Measured: bit-identical everywhere but Rprop in bfloat16 (0.06 ulp, 6% of the
   elements: a one-ulp flip of the parameter is carried on) and Adafactor in bfloat16 (0.46 ulp,
   12.5%: its row and column means are sums in another order). torch's own 16-bit for-loop fails
   this bound (test_the_reference_comparison_tells_one_rounding_from_per_op_rounding), and so does
   a state kept in float32 (tried by hand: state made float32 and let through the op, 138 of the 200
   parity cases fail, all those with a state): the bound sees the rounding rule.
2. torch's own 16-bit step. Its for-loop and foreach round to the 16-bit dtype after every op (e.g.
   ``exp_avg_sq.mul_(beta2)``, then ``.addcmul_``, then ``p.addcdiv_``), so each step can differ
   from one rounding by a few half-ulps, and an update smaller than half an ulp of the parameter is
   lost in torch and kept by aakaar (AdamW's decay lr * wd * p = 5e-4 * p; Adafactor's): the gap
   grows over the steps like a random walk of half-ulps plus that drift. Bound: max |aakaar - torch|
   / max |torch| per tensor <= TOL_TORCH (parameters) and TOL_TORCH_STATE (state: small second
   moments carry several relative ulps), about twice the largest measured over these cases
   (parameters 7.3e-2 bfloat16 and 1.8e-2 float16, Adafactor and AdamW with weight decay; state
   1.1e-1 and 7.3e-2, RMSprop's and Adadelta's foreach). A coarse bound: it catches a step not taken
   or taken in the wrong direction; bound 1 is the exact one.
   torch's fused CPU kernels compute in float32 and round once, as aakaar: Adam and AdamW agree bit
   for bit, Adagrad (whose fused kernel orders its operations otherwise) within bound 2. torch
   2.13's fused SGD leaves whole SIMD blocks of a 16-bit parameter unchanged (pytorch/pytorch#191763,
   fixed after 2.13): while the installed torch has that bug, fused SGD is compared with torch's
   for-loop. torch's fused CPU kernels take every floating dtype, mixed in one group too (its
   fused=True refuses only non-floating parameters, which aakaar refuses for every optimizer when
   they are added): there is no 16-bit refusal to match.
"""

from __future__ import annotations

import numpy as np
import pytest

import aakaar as ak
import aakaar.optim as optim
from optim16_helpers import (DTYPES, SHAPES, TORCH_FUSED, as_f64, grads_of, make_params, rel_err, run_all, torch,
                             ulp_report)

STEPS = 50
REF_ULPS = 1.0
REF_SHARE = 0.2
TOL_TORCH = {"bfloat16": 0.15, "float16": 0.04}
TOL_TORCH_STATE = {"bfloat16": 0.25, "float16": 0.15}
COUNTERS = ("step", "mu_product", "eta", "mu")

CASES = [
    ("SGD", dict(lr=0.01)),
    ("SGD", dict(lr=0.01, momentum=0.9, dampening=0.1, weight_decay=0.01)),
    ("SGD", dict(lr=0.01, momentum=0.9, nesterov=True, maximize=True)),
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.01, weight_decay=0.01, amsgrad=True, maximize=True)),
    ("Adam", dict(lr=0.01, weight_decay=0.05, decoupled_weight_decay=True)),
    ("AdamW", dict(lr=0.01, weight_decay=0.05)),
    ("AdamW", dict(lr=0.01, amsgrad=True, maximize=True)),
    ("Adamax", dict(lr=0.01)),
    ("Adamax", dict(lr=0.01, weight_decay=0.01, maximize=True)),
    ("NAdam", dict(lr=0.01)),
    ("NAdam", dict(lr=0.01, weight_decay=0.01, decoupled_weight_decay=True)),
    ("RAdam", dict(lr=0.01)),
    ("RAdam", dict(lr=0.01, weight_decay=0.01, decoupled_weight_decay=True, maximize=True)),
    ("RMSprop", dict(lr=0.001)),
    ("RMSprop", dict(lr=0.001, momentum=0.9, centered=True, weight_decay=0.01, maximize=True)),
    ("Adagrad", dict(lr=0.05)),
    ("Adagrad", dict(lr=0.05, lr_decay=0.01, weight_decay=0.01, initial_accumulator_value=0.1, maximize=True)),
    ("Adadelta", dict(lr=1.0)),
    ("Adadelta", dict(lr=1.0, weight_decay=0.01, maximize=True)),
    ("Rprop", dict(lr=0.01)),
    ("Rprop", dict(lr=0.01, etas=(0.3, 1.6), step_sizes=(1e-3, 0.05), maximize=True)),
    ("ASGD", dict(lr=0.01, t0=20)),  # averaging (mu < 1) from step 20 on
    ("ASGD", dict(lr=0.01, lambd=1e-2, t0=20, weight_decay=0.01, maximize=True)),
    ("Adafactor", dict(lr=0.01)),
    ("Adafactor", dict(lr=0.01, weight_decay=0.1, maximize=True)),
]
GRID = [pytest.param(name, kw, impl, id=f"{name}-{i}-{impl}") for i, (name, kw) in enumerate(CASES)
        for impl in ("default", "foreach", "fused") if impl != "fused" or name in TORCH_FUSED]
FIRST_OF_EACH = list({name: (name, kw) for name, kw in reversed(CASES)}.values())


def _torch_fused_sgd_skips_16bit_blocks() -> bool:
    """pytorch/pytorch#191763: torch's fused CPU SGD leaves whole SIMD blocks of a float16/bfloat16
    parameter unchanged. True while the installed torch has it."""
    p = torch.ones(64, dtype=torch.bfloat16, requires_grad=True)
    p.grad = torch.ones(64, dtype=torch.bfloat16)
    torch.optim.SGD([p], lr=0.5, fused=True).step()
    return bool((p.detach() == 1).any())


def _tensor_states(opt, p) -> dict:
    return {k: v for k, v in opt.state[p].items() if torch.is_tensor(v) and v.dim() > 0}


def _reference_misses(opt, params, ref, dtype: str) -> list[str]:
    """Where `params` (and `opt`'s state) leave bound 1 around the Float32Reference."""
    misses = []
    for i, (a, r) in enumerate(zip(params, ref.params)):
        pairs = [("the parameter", a, r)] + [(f"state {k!r}", opt.state[a][k], v)
                                             for k, v in _tensor_states(ref.opt, r).items()]
        for what, x, y in pairs:
            ulps, share = ulp_report(x, y, dtype)
            if not (ulps <= REF_ULPS and share <= REF_SHARE):
                misses.append(f"parameter {i}, {what}: {ulps:.2f} ulps (of max|value|) apart, {share:.1%} of the "
                              f"elements differ from torch's float32 step rounded once")
    return misses


def _torch_err(a, t) -> float:
    """rel_err over the elements torch keeps finite. In float16 torch's for-loop makes inf where a
    second moment rounds to 0 (g^2 (1 - beta2) below float16's smallest number) and eps = 1e-8, which
    rounds to 0 too, leaves a division by 0; aakaar adds eps in float32, as torch's fused kernel does,
    and those elements are checked against the reference only. aakaar's must be finite everywhere."""
    a, t = as_f64(a), as_f64(t)
    assert np.isfinite(a).all()
    finite = np.isfinite(t)
    assert finite.mean() > 0.95, "torch's step is not finite in more than 5% of the elements"
    return rel_err(a[finite], t[finite])


def _check_against_torch(ak_opt, ak_params, t_opt, t_params, dtype: str) -> None:
    for i, (a, t) in enumerate(zip(ak_params, t_params)):
        assert a.dtype == DTYPES[dtype][0]
        err = _torch_err(a, t)
        assert err <= TOL_TORCH[dtype], f"parameter {i}: relative error {err:.3g} against torch > {TOL_TORCH[dtype]}"
        for key, value in _tensor_states(t_opt, t).items():
            err = _torch_err(ak_opt.state[a][key], value)
            assert err <= TOL_TORCH_STATE[dtype], f"parameter {i} state {key!r}: relative error {err:.3g}"


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("name,kwargs,impl", GRID)
def test_16bit_parameters_step_as_torch_over_50_steps(name, kwargs, impl, dtype):
    flag = {"fused": True} if impl == "fused" else {"foreach": True} if impl == "foreach" else {}
    torch_flag = {} if (name, impl) == ("SGD", "fused") and _torch_fused_sgd_skips_16bit_blocks() else flag
    ak_opt, ak_params, t_opt, t_params, ref = run_all(name, kwargs, dtype, impl, STEPS, torch_kwargs=torch_flag)
    _check_against_torch(ak_opt, ak_params, t_opt, t_params, dtype)
    assert not _reference_misses(ak_opt, ak_params, ref, dtype)


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_the_reference_comparison_tells_one_rounding_from_per_op_rounding(dtype):
    """Bound 1 is tight enough to see the rounding rule: torch's for-loop, which rounds after every
    op, leaves it (while it stays within bound 2)."""
    for name, kwargs in [("Adam", dict(lr=0.01)), ("SGD", dict(lr=0.01, momentum=0.9, dampening=0.1)),
                         ("RMSprop", dict(lr=0.001))]:
        _, _, t_opt, t_params, ref = run_all(name, kwargs, dtype, "default", STEPS)
        assert _reference_misses(t_opt, t_params, ref, dtype), f"{name}: per-op rounding went unnoticed"


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("name,kwargs", FIRST_OF_EACH, ids=[n for n, _ in FIRST_OF_EACH])
def test_state_dtypes_are_torchs(name, kwargs, dtype):
    """The buffers in the parameter's dtype, the counters float32, the same keys as torch."""
    ak_opt, ak_params, t_opt, t_params, _ = run_all(name, kwargs, dtype, "default", steps=2)
    for a, t in zip(ak_params, t_params):
        mine, theirs = ak_opt.state[a], t_opt.state[t]
        assert list(mine) == list(theirs)
        for key, value in theirs.items():
            assert str(mine[key].dtype).split(".")[-1] == str(value.dtype).split(".")[-1], key
            if key in COUNTERS:
                assert mine[key].dtype == ak.float32, key


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("name,kwargs", [("Adam", dict(lr=0.01, amsgrad=True)), ("NAdam", dict(lr=0.01)),
                                         ("ASGD", dict(lr=0.01, t0=3)), ("Rprop", dict(lr=0.01)),
                                         ("SGD", dict(lr=0.01, momentum=0.9)), ("Adafactor", dict(lr=0.01)),
                                         ("Adagrad", dict(lr=0.05))])
def test_state_dict_round_trip_resumes_bit_for_bit(name, kwargs, dtype, tmp_path):
    """Saved (aakaar.save) after 5 steps, loaded into a new optimizer over copies of the parameters:
    the next 5 steps equal an uninterrupted run's bit for bit, and the state keeps its dtypes."""
    ak_dt = DTYPES[dtype][0]
    grads = grads_of(SHAPES, 10)
    params, _ = make_params(dtype)
    opt = getattr(optim, name)(params, **kwargs)

    def run(opt, params, steps):
        for g in steps:
            for p, x in zip(params, g):
                p.grad = ak.from_numpy(x.copy()).to(ak_dt)
            opt.step()

    run(opt, params, grads[:5])
    ak.save(opt.state_dict(), tmp_path / "opt.pt")
    copies = [ak.nn.Parameter(p.detach().clone()) for p in params]
    resumed = getattr(optim, name)(copies, **kwargs)
    resumed.load_state_dict(ak.load(tmp_path / "opt.pt"))
    run(opt, params, grads[5:])
    run(resumed, copies, grads[5:])
    for p, q in zip(params, copies):
        assert q.dtype == ak_dt
        np.testing.assert_array_equal(as_f64(q), as_f64(p))
        for key, value in opt.state[p].items():
            assert resumed.state[q][key].dtype == value.dtype, key
            np.testing.assert_array_equal(as_f64(resumed.state[q][key]), as_f64(value))


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_a_float32_state_dict_loads_into_16bit_parameters_as_torch_casts_it(dtype):
    """load_state_dict casts the buffers to the parameter's dtype and keeps the counters, as torch."""
    ak_dt, t_dt = DTYPES[dtype]
    src = [ak.nn.Parameter(ak.ones(3, 2))]
    src[0].grad = ak.ones(3, 2)
    opt = optim.Adam(src, lr=0.1)
    opt.step()
    dst = [ak.nn.Parameter(ak.ones(3, 2).to(ak_dt))]
    target = optim.Adam(dst, lr=0.1)
    target.load_state_dict(opt.state_dict())
    tsrc = [torch.ones(3, 2, requires_grad=True)]
    tsrc[0].grad = torch.ones(3, 2)
    topt = torch.optim.Adam(tsrc, lr=0.1)
    topt.step()
    tdst = [torch.ones(3, 2, dtype=t_dt, requires_grad=True)]
    ttarget = torch.optim.Adam(tdst, lr=0.1)
    ttarget.load_state_dict(topt.state_dict())
    for key, value in ttarget.state[tdst[0]].items():
        assert str(target.state[dst[0]][key].dtype).split(".")[-1] == str(value.dtype).split(".")[-1], key
    dst[0].grad = ak.ones(3, 2).to(ak_dt)
    tdst[0].grad = torch.ones(3, 2, dtype=t_dt)
    target.step()
    ttarget.step()
    np.testing.assert_array_equal(as_f64(dst[0]), as_f64(tdst[0]))


MIXED = [("Adam", dict(lr=0.01, weight_decay=0.01)), ("SGD", dict(lr=0.01, momentum=0.9)),
         ("NAdam", dict(lr=0.01)), ("RMSprop", dict(lr=0.001, centered=True)), ("ASGD", dict(lr=0.01, t0=5))]


@pytest.mark.parametrize("groups", ["one group", "a group per dtype"])
@pytest.mark.parametrize("name,kwargs", MIXED, ids=[n for n, _ in MIXED])
def test_mixed_dtypes_in_one_optimizer(name, kwargs, groups):
    """float32, bfloat16 and float16 parameters in one optimizer: each is stepped in its own dtype, as
    torch does (float32 ones to the float32 parity bound, 1e-5; the 16-bit ones to bound 2), and each
    gets exactly what an optimizer of its dtype alone gives it."""
    dtypes = ["float32", "bfloat16", "float16"]
    ak_dts = {"float32": (ak.float32, torch.float32), **DTYPES}
    shapes = [(7, 5), (40,), (4, 3, 2)]
    rng = np.random.default_rng(0)
    data = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    ak_params = [ak.nn.Parameter(ak.from_numpy(d.copy()).to(ak_dts[dt][0])) for d, dt in zip(data, dtypes)]
    t_params = [torch.from_numpy(d.copy()).to(ak_dts[dt][1]).requires_grad_() for d, dt in zip(data, dtypes)]
    alone = [ak.nn.Parameter(p.detach().clone()) for p in ak_params]

    def grouped(params):
        return params if groups == "one group" else [{"params": [p]} for p in params]

    ak_opt = getattr(optim, name)(grouped(ak_params), **kwargs)
    t_opt = getattr(torch.optim, name)(grouped(t_params), **kwargs)
    alone_opts = [getattr(optim, name)([p], **kwargs) for p in alone]
    for g in grads_of(shapes, STEPS):
        for a, t, b, x, dt in zip(ak_params, t_params, alone, g, dtypes):
            a.grad = ak.from_numpy(x.copy()).to(ak_dts[dt][0])
            b.grad = ak.from_numpy(x.copy()).to(ak_dts[dt][0])
            t.grad = torch.from_numpy(x.copy()).to(ak_dts[dt][1])
        ak_opt.step()
        t_opt.step()
        for o in alone_opts:
            o.step()
    for a, t, b, dt, o in zip(ak_params, t_params, alone, dtypes, alone_opts):
        assert a.dtype == ak_dts[dt][0]
        tol = 1e-5 if dt == "float32" else TOL_TORCH[dt]
        assert _torch_err(a, t) <= tol, dt
        np.testing.assert_array_equal(as_f64(a), as_f64(b))
        for key, value in t_opt.state[t].items():
            assert str(ak_opt.state[a][key].dtype).split(".")[-1] == str(value.dtype).split(".")[-1], (dt, key)
            np.testing.assert_array_equal(as_f64(ak_opt.state[a][key]), as_f64(o.state[b][key]))


DIFFERENTIABLE = [("SGD", dict(lr=0.01, momentum=0.9)), ("Adam", dict(lr=0.01, amsgrad=True, weight_decay=0.1)),
                  ("AdamW", dict(lr=0.01)), ("NAdam", dict(lr=0.01)), ("RAdam", dict(lr=0.01)),
                  ("RMSprop", dict(lr=0.01, centered=True, momentum=0.5)), ("Adagrad", dict(lr=0.05)),
                  ("Adamax", dict(lr=0.01)), ("Adadelta", dict(lr=1.0)), ("Rprop", dict(lr=0.01)),
                  ("ASGD", dict(lr=0.01))]


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("name,kwargs", DIFFERENTIABLE, ids=[n for n, _ in DIFFERENTIABLE])
def test_differentiable_step_of_16bit_parameters(name, kwargs, dtype):
    """differentiable=True records the step as aakaar's autograd ops in the parameter's dtype, each
    rounding as torch's recorded for-loop does: within bound 2 of torch's, and the step is recorded
    (a gradient reaches the parameter the step started from, in its dtype)."""
    ak_dt, t_dt = DTYPES[dtype]
    (leaf,), (t_leaf,) = make_params(dtype, shapes=[(6, 5)])
    p, tp = leaf * 1, t_leaf * 1  # the updated tensors are non-leaves, as torch needs
    opt = getattr(optim, name)([p], differentiable=True, **kwargs)
    t_opt = getattr(torch.optim, name)([tp], differentiable=True, **kwargs)
    for (g,) in grads_of([(6, 5)], STEPS):
        p.grad = ak.from_numpy(g.copy()).to(ak_dt)
        tp.grad = torch.from_numpy(g.copy()).to(t_dt)
        opt.step()
        t_opt.step()
    assert p.dtype == ak_dt and p.grad_fn is not None
    assert _torch_err(p, tp) <= TOL_TORCH[dtype]
    p.float().sum().backward()
    assert leaf.grad is not None and leaf.grad.dtype == ak_dt


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_lbfgs_minimises_in_16bit_as_torch(dtype):
    """LBFGS over 16-bit parameters (its scalars in float32, see lbfgs.py): the parameters stay in
    their dtype and reach torch's minimiser of a quadratic to the 16-bit precision."""
    ak_dt, t_dt = DTYPES[dtype]
    target = np.linspace(-2, 3, 12).astype(np.float32)
    (p,), (tp,) = make_params(dtype, shapes=[(12,)])
    opt, t_opt = optim.LBFGS([p], lr=0.5), torch.optim.LBFGS([tp], lr=0.5)
    goal, t_goal = ak.from_numpy(target).to(ak_dt), torch.from_numpy(target).to(t_dt)

    def closure():
        opt.zero_grad()
        loss = ((p - goal).float() ** 2).sum()
        loss.backward()
        return loss

    def t_closure():
        t_opt.zero_grad()
        loss = ((tp - t_goal).float() ** 2).sum()
        loss.backward()
        return loss

    for _ in range(5):
        opt.step(closure)
        t_opt.step(t_closure)
    assert p.dtype == ak_dt
    np.testing.assert_allclose(as_f64(p), as_f64(tp), rtol=0, atol=3 * 2.0 ** -7 * 3)


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_muon_in_16bit_as_torch(dtype):
    """Muon (a Python step over aakaar ops, muon.py): the parameter and its momentum buffer stay in the
    16-bit dtype, as torch's, and the parameter stays within bound 2 of torch's."""
    ak_dt, t_dt = DTYPES[dtype]
    (p,), (tp,) = make_params(dtype, shapes=[(8, 6)])
    opt, t_opt = optim.Muon([p], lr=0.02), torch.optim.Muon([tp], lr=0.02)
    for (g,) in grads_of([(8, 6)], STEPS):
        p.grad = ak.from_numpy(g.copy()).to(ak_dt)
        tp.grad = torch.from_numpy(g.copy()).to(t_dt)
        opt.step()
        t_opt.step()
    assert p.dtype == ak_dt and opt.state[p]["momentum_buffer"].dtype == ak_dt
    assert _torch_err(p, tp) <= TOL_TORCH[dtype]


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("name,kwargs", [("Lion", dict(lr=1e-3, weight_decay=0.1)), ("LAMB", dict(lr=0.01)),
                                         ("LAMB", dict(lr=0.01, weight_decay=0.01, maximize=True))])
def test_lion_and_lamb_in_16bit_are_their_float32_step_rounded_once(name, kwargs, dtype):
    """Lion and LAMB (not in torch.optim): the 16-bit step equals aakaar's own float32 step on the
    float32 images of the parameters and state, rounded to the 16-bit dtype after every step (the
    same kernel on the same float32 numbers: bit for bit), and the state keeps the 16-bit dtype."""
    ak_dt = DTYPES[dtype][0]
    params, _ = make_params(dtype)
    images = [ak.nn.Parameter(p.detach().float()) for p in params]
    opt, ref = getattr(optim, name)(params, **kwargs), getattr(optim, name)(images, **kwargs)
    for grads in grads_of(SHAPES, STEPS):
        for p, q, g in zip(params, images, grads):
            p.grad = ak.from_numpy(g.copy()).to(ak_dt)
            q.grad = p.grad.float()
        opt.step()
        ref.step()
        with ak.no_grad():
            for q in images:
                q.copy_(q.to(ak_dt).float())
                for value in ref.state[q].values():
                    if value.dim() > 0:
                        value.copy_(value.to(ak_dt).float())
    for p, q in zip(params, images):
        assert p.dtype == ak_dt
        np.testing.assert_array_equal(as_f64(p), as_f64(q))
        for key, value in ref.state[q].items():
            mine = opt.state[p][key]
            assert mine.dtype == (ak_dt if value.dim() > 0 else value.dtype), key
            np.testing.assert_array_equal(as_f64(mine), as_f64(value))


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("name,kwargs", [("Adam", dict(lr=0.01, amsgrad=True)), ("Rprop", dict(lr=0.01)),
                                         ("Adafactor", dict(lr=0.01)), ("LAMB", dict(lr=0.01))])
def test_strided_16bit_parameters_step_as_contiguous_ones(name, kwargs, dtype):
    """A transposed 16-bit parameter (its gradient and state strided too) gets the contiguous one's
    numbers: the float32 copies the kernel works on are written back through the strides."""
    ak_dt = DTYPES[dtype][0]
    rng = np.random.default_rng(0)
    data = rng.standard_normal((6, 9)).astype(np.float32)
    dense = ak.nn.Parameter(ak.from_numpy(data.T.copy()).to(ak_dt))
    strided = ak.nn.Parameter(ak.from_numpy(data.copy()).to(ak_dt).t())
    assert not strided.is_contiguous()
    opts = [getattr(optim, name)([p], **kwargs) for p in (dense, strided)]
    for (g,) in grads_of([(9, 6)], 10):
        dense.grad = ak.from_numpy(g.copy()).to(ak_dt)
        strided.grad = ak.from_numpy(g.T.copy()).to(ak_dt).t()
        for o in opts:
            o.step()
    np.testing.assert_array_equal(as_f64(strided), as_f64(dense))
    for key, value in opts[0].state[dense].items():
        np.testing.assert_array_equal(as_f64(opts[1].state[strided][key]), as_f64(value))


@pytest.mark.parametrize("name", ["Adam", "AdamW"])
def test_fused_flag_with_float64_float32_and_bfloat16_in_one_group(name):
    """fused=True over one group of three dtypes, as torch's fused kernel takes it: each parameter in
    its dtype, bfloat16 bit for bit with torch's fused kernel (both compute in float32 and round
    once), float32 and float64 to the float parity bounds (1e-5, 1e-10)."""
    dts = [(ak.float64, torch.float64), (ak.float32, torch.float32), (ak.bfloat16, torch.bfloat16)]
    shapes = [(7, 5), (40,), (4, 3, 2)]
    rng = np.random.default_rng(0)
    data = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    ak_params = [ak.nn.Parameter(ak.from_numpy(d.copy()).to(a)) for d, (a, _) in zip(data, dts)]
    t_params = [torch.from_numpy(d.copy()).to(t).requires_grad_() for d, (_, t) in zip(data, dts)]
    opt = getattr(optim, name)(ak_params, lr=0.01, weight_decay=0.01, fused=True)
    t_opt = getattr(torch.optim, name)(t_params, lr=0.01, weight_decay=0.01, fused=True)
    for g in grads_of(shapes, STEPS):
        for a, t, x, (adt, tdt) in zip(ak_params, t_params, g, dts):
            a.grad = ak.from_numpy(x.copy()).to(adt)
            t.grad = torch.from_numpy(x.copy()).to(tdt)
        opt.step()
        t_opt.step()
    for a, t, tol in zip(ak_params, t_params, [1e-10, 1e-5, 0.0]):
        assert str(a.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
        assert rel_err(a, t) <= tol, a.dtype
