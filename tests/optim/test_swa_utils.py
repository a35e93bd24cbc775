"""aakaar.optim.swa_utils against torch.optim.swa_utils over the same short training loop."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import aakaar
from aakaar.optim import swa_utils


def _pair(seed: int = 0):
    """The same small network with a batch norm in both libraries."""
    torch.manual_seed(seed)
    tm = torch.nn.Sequential(torch.nn.Linear(5, 8), torch.nn.BatchNorm1d(8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
    am = aakaar.nn.Sequential(aakaar.nn.Linear(5, 8), aakaar.nn.BatchNorm1d(8), aakaar.nn.ReLU(),
                              aakaar.nn.Linear(8, 2))
    with aakaar.no_grad():
        for pa, pt in zip(am.parameters(), tm.parameters()):
            pa.copy_(aakaar.from_numpy(pt.detach().numpy().copy()))
    return am, tm


def _batches(n: int = 8):
    gen = np.random.default_rng(1)
    return [(gen.standard_normal((16, 5)).astype(np.float32), gen.standard_normal((16, 2)).astype(np.float32))
            for _ in range(n)]


def _state(module) -> dict:
    return {k: v.detach().numpy().astype(np.float64) for k, v in module.state_dict().items()}


def _assert_states_close(a: dict, t: dict) -> None:
    assert list(a) == list(t)
    for k in a:
        np.testing.assert_allclose(a[k], t[k], rtol=2e-5, atol=2e-6, err_msg=k)


AVERAGERS = {
    "swa": ({}, {}),
    "ema multi": ({"multi_avg_fn": swa_utils.get_ema_multi_avg_fn(0.9)},
                  {"multi_avg_fn": torch.optim.swa_utils.get_ema_multi_avg_fn(0.9)}),
    "ema avg_fn": ({"avg_fn": swa_utils.get_ema_avg_fn(0.8)}, {"avg_fn": torch.optim.swa_utils.get_ema_avg_fn(0.8)}),
    "swa avg_fn": ({"avg_fn": swa_utils.get_swa_avg_fn()}, {"avg_fn": torch.optim.swa_utils.get_swa_avg_fn()}),
    "ema buffers": ({"multi_avg_fn": swa_utils.get_ema_multi_avg_fn(0.7), "use_buffers": True},
                    {"multi_avg_fn": torch.optim.swa_utils.get_ema_multi_avg_fn(0.7), "use_buffers": True}),
    "swa buffers": ({"use_buffers": True}, {"use_buffers": True}),
}


@pytest.mark.parametrize("name", list(AVERAGERS))
def test_training_loop_matches_torch(name):
    a_kw, t_kw = AVERAGERS[name]
    am, tm = _pair()
    a_avg, t_avg = swa_utils.AveragedModel(am, **a_kw), torch.optim.swa_utils.AveragedModel(tm, **t_kw)
    a_opt, t_opt = aakaar.optim.SGD(am.parameters(), lr=0.1, momentum=0.9), torch.optim.SGD(tm.parameters(), lr=0.1,
                                                                                           momentum=0.9)
    a_sched = swa_utils.SWALR(a_opt, swa_lr=0.02, anneal_epochs=3)
    t_sched = torch.optim.swa_utils.SWALR(t_opt, swa_lr=0.02, anneal_epochs=3)
    data = _batches()
    for x, y in data:
        for model, opt, lib in ((am, a_opt, aakaar), (tm, t_opt, torch)):
            opt.zero_grad()
            xs, ys = lib.from_numpy(x.copy()), lib.from_numpy(y.copy())
            ((model(xs) - ys) ** 2).mean().backward()
            opt.step()
        a_avg.update_parameters(am)
        t_avg.update_parameters(tm)
        a_sched.step()
        t_sched.step()
        assert a_sched.get_last_lr() == pytest.approx(t_sched.get_last_lr(), rel=1e-12)
    assert int(a_avg.n_averaged) == int(t_avg.n_averaged) == len(data)
    assert a_avg.n_averaged.dtype == aakaar.int64
    _assert_states_close(_state(a_avg), {k: v.detach().numpy().astype(np.float64)
                                         for k, v in t_avg.state_dict().items()})
    # the averaged weights differ from the trained ones: the averaging did something
    assert not np.allclose(_state(a_avg.module)["0.weight"], _state(am)["0.weight"])
    # update_bn recomputes the statistics for the averaged weights, as torch's
    swa_utils.update_bn([(aakaar.from_numpy(x.copy()), 0) for x, _ in data], a_avg)
    torch.optim.swa_utils.update_bn([(torch.from_numpy(x.copy()), 0) for x, _ in data], t_avg)
    _assert_states_close(_state(a_avg), {k: v.detach().numpy().astype(np.float64)
                                         for k, v in t_avg.state_dict().items()})
    xs = data[0][0]
    a_avg.eval()
    t_avg.eval()
    np.testing.assert_allclose(a_avg(aakaar.from_numpy(xs.copy())).detach().numpy(),
                               t_avg(torch.from_numpy(xs.copy())).detach().numpy(), rtol=1e-4, atol=1e-5)


def test_swa_is_the_mean_of_the_snapshots():
    am, _ = _pair()
    avg = swa_utils.AveragedModel(am)
    snapshots = []
    for k in range(4):
        with aakaar.no_grad():
            for p in am.parameters():
                p.add_(float(k + 1))
        snapshots.append(am[0].weight.detach().numpy().copy())
        avg.update_parameters(am)
    np.testing.assert_allclose(avg.module[0].weight.detach().numpy(), np.mean(snapshots, axis=0), rtol=1e-6)
    assert avg.module is not am and avg.module[0].weight is not am[0].weight  # a deep copy


def test_update_bn_restores_mode_and_momentum_and_skips_models_without_bn():
    am, _ = _pair()
    am.eval()
    am[1].momentum = 0.3
    swa_utils.update_bn([aakaar.randn(4, 5)], am)
    assert not am.training and am[1].momentum == 0.3
    assert int(am[1].num_batches_tracked) == 1
    plain = aakaar.nn.Linear(2, 2)
    swa_utils.update_bn([aakaar.randn(3, 2)], plain)  # nothing to do, no error


@pytest.mark.parametrize("strategy", ["cos", "linear"])
@pytest.mark.parametrize("anneal_epochs", [0, 1, 4])
def test_swalr_schedule_matches_torch(strategy, anneal_epochs):
    a_params = [aakaar.zeros(1, requires_grad=True), aakaar.zeros(1, requires_grad=True)]
    t_params = [torch.zeros(1, requires_grad=True), torch.zeros(1, requires_grad=True)]
    a_opt = aakaar.optim.SGD([{"params": [a_params[0]], "lr": 0.5}, {"params": [a_params[1]], "lr": 0.1}])
    t_opt = torch.optim.SGD([{"params": [t_params[0]], "lr": 0.5}, {"params": [t_params[1]], "lr": 0.1}])
    a = swa_utils.SWALR(a_opt, swa_lr=[0.05, 0.2], anneal_epochs=anneal_epochs, anneal_strategy=strategy)
    t = torch.optim.swa_utils.SWALR(t_opt, swa_lr=[0.05, 0.2], anneal_epochs=anneal_epochs, anneal_strategy=strategy)
    assert a.get_last_lr() == pytest.approx(t.get_last_lr(), rel=1e-12)
    for step in range(7):
        a_opt.step()
        t_opt.step()
        if step == 2:  # a hand-changed lr mid-anneal: the recursive form carries on from it, in both
            a_opt.param_groups[0]["lr"] = t_opt.param_groups[0]["lr"] = 0.3
        a.step()
        t.step()
        assert a.get_last_lr() == pytest.approx(t.get_last_lr(), rel=1e-12)
    assert [g["swa_lr"] for g in a_opt.param_groups] == [0.05, 0.2]


def test_swalr_state_dict_round_trip():
    p = aakaar.zeros(1, requires_grad=True)
    opt = aakaar.optim.SGD([p], lr=1.0)
    s = swa_utils.SWALR(opt, swa_lr=0.1, anneal_epochs=5, anneal_strategy="linear")
    opt.step()
    s.step()
    state = s.state_dict()
    assert "anneal_func" not in state and "optimizer" not in state and state["_anneal_strategy"] == "linear"
    opt2 = aakaar.optim.SGD([p], lr=1.0)
    s2 = swa_utils.SWALR(opt2, swa_lr=0.1, anneal_strategy="cos")
    s2.load_state_dict(state)
    assert s2.anneal_func(0.5) == 0.5 and s2.anneal_epochs == 5


def test_errors_as_torch():
    m = aakaar.nn.Linear(2, 2)
    opt = aakaar.optim.SGD(m.parameters(), lr=0.1)
    t_opt = torch.optim.SGD(torch.nn.Linear(2, 2).parameters(), lr=0.1)
    cases = [
        (lambda o, su: su.SWALR(o, swa_lr=0.1, anneal_strategy="exp"), ValueError, "anneal_strategy must be one of"),
        (lambda o, su: su.SWALR(o, swa_lr=0.1, anneal_epochs=-1), ValueError, "anneal_epochs must be equal or greater"),
        (lambda o, su: su.SWALR(o, swa_lr=0.1, anneal_epochs=2.0), ValueError, "anneal_epochs must be equal or greater"),
        (lambda o, su: su.SWALR(o, swa_lr=[0.1, 0.2]), ValueError, "swa_lr must have the same length"),
        (lambda o, su: su.get_ema_multi_avg_fn(1.5), ValueError, "Invalid decay value 1.5"),
        (lambda o, su: su.get_ema_avg_fn(-0.1), ValueError, "Invalid decay value -0.1"),
    ]
    for make, error, words in cases:
        for o, su in ((opt, swa_utils), (t_opt, torch.optim.swa_utils)):
            with pytest.raises(error, match=words):
                make(o, su)
    with pytest.raises(AssertionError, match="Only one of avg_fn and multi_avg_fn"):
        swa_utils.AveragedModel(m, avg_fn=swa_utils.get_swa_avg_fn(), multi_avg_fn=swa_utils.get_swa_multi_avg_fn())


def test_import_path():
    import aakaar.optim.swa_utils as mod

    assert aakaar.optim.swa_utils is mod
    assert {"AveragedModel", "SWALR", "update_bn"} <= set(mod.__all__)
