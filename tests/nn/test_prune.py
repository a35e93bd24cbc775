"""aakaar.nn.utils.prune against torch.nn.utils.prune: the same masks, registries, hooks and errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import aakaar
from aakaar.nn.utils import prune

import torch.nn.utils.prune as tprune  # noqa: E402  (torch does not import it with torch.nn.utils)


def _copy_weights(am, tm) -> None:
    with aakaar.no_grad():
        for pa, pt in zip(am.parameters(), tm.parameters()):
            pa.copy_(aakaar.from_numpy(pt.detach().numpy().copy()))


def _net(seed: int = 0):
    torch.manual_seed(seed)
    tm = torch.nn.Sequential(torch.nn.Conv2d(3, 6, 3), torch.nn.ReLU(), torch.nn.Flatten(), torch.nn.Linear(6 * 4, 5))
    am = aakaar.nn.Sequential(aakaar.nn.Conv2d(3, 6, 3), aakaar.nn.ReLU(), aakaar.nn.Flatten(),
                              aakaar.nn.Linear(6 * 4, 5))
    _copy_weights(am, tm)
    return am, tm


def _same_pruning_state(am, tm) -> None:
    assert [n for n, _ in am.named_parameters()] == [n for n, _ in tm.named_parameters()]
    assert [n for n, _ in am.named_buffers()] == [n for n, _ in tm.named_buffers()]
    a_sd, t_sd = am.state_dict(), tm.state_dict()
    assert list(a_sd) == list(t_sd)
    for k in a_sd:
        np.testing.assert_allclose(a_sd[k].numpy(), t_sd[k].numpy(), rtol=1e-6, atol=1e-7, err_msg=k)
    for (name, a_mod), t_mod in zip(am.named_modules(), tm.modules()):
        for attr in ("weight", "bias"):
            if hasattr(t_mod, attr) and getattr(t_mod, attr) is not None:
                np.testing.assert_allclose(getattr(a_mod, attr).detach().numpy(),
                                           getattr(t_mod, attr).detach().numpy(), rtol=1e-6, atol=1e-7)
    assert prune.is_pruned(am) == tprune.is_pruned(tm)


def _run_both(am, tm, steps) -> None:
    for fn_name, target, kwargs in steps:
        a_mod, t_mod = am[target], tm[target]
        getattr(prune, fn_name)(a_mod, **kwargs)
        t_kwargs = {k: (torch.from_numpy(v.numpy().copy()) if isinstance(v, aakaar.Tensor) else v)
                    for k, v in kwargs.items()}
        getattr(tprune, fn_name)(t_mod, **t_kwargs)
        _same_pruning_state(am, tm)


SCENARIOS = {
    "l1 fraction": [("l1_unstructured", 3, {"name": "weight", "amount": 0.3})],
    "l1 count": [("l1_unstructured", 0, {"name": "weight", "amount": 17})],
    "l1 zero": [("l1_unstructured", 3, {"name": "weight", "amount": 0.0})],
    "l1 all": [("l1_unstructured", 3, {"name": "bias", "amount": 1.0})],
    "l1 round half": [("l1_unstructured", 3, {"name": "bias", "amount": 0.5})],
    "identity": [("identity", 0, {"name": "weight"})],
    "ln2 dim0": [("ln_structured", 0, {"name": "weight", "amount": 0.5, "n": 2, "dim": 0})],
    "ln1 dim1": [("ln_structured", 0, {"name": "weight", "amount": 1, "n": 1, "dim": 1})],
    "lninf dim-1": [("ln_structured", 3, {"name": "weight", "amount": 0.25, "n": float("inf"), "dim": -1})],
    "ln fro": [("ln_structured", 3, {"name": "weight", "amount": 2, "n": "fro", "dim": 0})],
    "l1 then ln": [("l1_unstructured", 0, {"name": "weight", "amount": 0.4}),
                   ("ln_structured", 0, {"name": "weight", "amount": 2, "n": 2, "dim": 0})],
    "ln then l1 then l1": [("ln_structured", 3, {"name": "weight", "amount": 1, "n": 1, "dim": 0}),
                           ("l1_unstructured", 3, {"name": "weight", "amount": 10}),
                           ("l1_unstructured", 3, {"name": "weight", "amount": 0.5})],
    "weight and bias": [("l1_unstructured", 3, {"name": "weight", "amount": 0.5}),
                        ("l1_unstructured", 3, {"name": "bias", "amount": 2})],
    "custom mask": [("custom_from_mask", 3, {"name": "bias", "mask": aakaar.tensor([1.0, 0.0, 1.0, 0.0, 1.0])})],
}


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_masks_and_registries_match_torch(scenario):
    am, tm = _net()
    _run_both(am, tm, SCENARIOS[scenario])
    x = np.random.default_rng(0).standard_normal((2, 3, 4, 4)).astype(np.float32)
    ya, yt = am(aakaar.from_numpy(x.copy())), tm(torch.from_numpy(x.copy()))
    np.testing.assert_allclose(ya.detach().numpy(), yt.detach().numpy(), rtol=1e-5, atol=1e-6)
    ya.pow(2).sum().backward()
    yt.pow(2).sum().backward()
    for (name, pa), (_, pt) in zip(am.named_parameters(), tm.named_parameters()):
        np.testing.assert_allclose(pa.grad.numpy(), pt.grad.numpy(), rtol=1e-4, atol=1e-5, err_msg=name)


def test_importance_scores_choose_the_mask():
    am, tm = _net()
    scores = np.random.default_rng(3).standard_normal((5, 24)).astype(np.float32)
    prune.l1_unstructured(am[3], "weight", amount=40, importance_scores=aakaar.from_numpy(scores.copy()))
    tprune.l1_unstructured(tm[3], "weight", amount=40, importance_scores=torch.from_numpy(scores.copy()))
    _same_pruning_state(am, tm)
    np.testing.assert_array_equal(am[3].weight_mask.numpy(), (np.abs(scores) > np.sort(np.abs(scores).ravel())[39]))


def test_global_unstructured_matches_torch():
    am, tm = _net()
    prune.l1_unstructured(am[0], "weight", amount=0.2)  # an earlier mask is respected
    tprune.l1_unstructured(tm[0], "weight", amount=0.2)
    prune.global_unstructured([(am[0], "weight"), (am[3], "weight"), (am[3], "bias")],
                              pruning_method=prune.L1Unstructured, amount=0.5)
    tprune.global_unstructured([(tm[0], "weight"), (tm[3], "weight"), (tm[3], "bias")],
                               pruning_method=tprune.L1Unstructured, amount=0.5)
    _same_pruning_state(am, tm)
    total = sum(int((m.weight_mask == 0).sum()) for m in (am[0], am[3])) + int((am[3].bias_mask == 0).sum())
    # the global method chooses among the entries the earlier mask kept: half of them
    assert total == 32 + round(0.5 * (162 + 120 + 5 - 32))


def test_remove_makes_it_permanent_as_torch():
    am, tm = _net()
    steps = [("l1_unstructured", 3, {"name": "weight", "amount": 0.5}),
             ("ln_structured", 0, {"name": "weight", "amount": 2, "n": 2, "dim": 0})]
    _run_both(am, tm, steps)
    for mod, p in ((am, prune), (tm, tprune)):
        p.remove(mod[3], "weight")
        p.remove(mod[0], "weight")
    _same_pruning_state(am, tm)
    assert isinstance(am[3].weight, aakaar.nn.Parameter) and not prune.is_pruned(am)
    assert not am[3]._forward_pre_hooks and int((am[3].weight == 0).sum()) == 60
    with pytest.raises(ValueError, match="has to be pruned before pruning can be removed"):
        prune.remove(am[3], "weight")


def test_training_keeps_pruned_entries_zero():
    am, _ = _net()
    prune.l1_unstructured(am[3], "weight", amount=0.5)
    mask = am[3].weight_mask.numpy().copy()
    opt = aakaar.optim.SGD(am.parameters(), lr=0.1)
    for _ in range(3):
        opt.zero_grad()
        am(aakaar.randn(2, 3, 4, 4)).sum().backward()
        opt.step()
    w = am[3].weight.detach().numpy()
    assert np.all(w[mask == 0] == 0) and np.any(am[3].weight_orig.detach().numpy()[mask == 0] != 0)


def test_random_methods_prune_the_right_number():
    aakaar.manual_seed(0)
    m = aakaar.nn.Linear(10, 8)
    prune.random_unstructured(m, "weight", amount=0.3)
    assert int((m.weight_mask == 0).sum()) == 24
    prune.random_unstructured(m, "weight", amount=0.5)  # half of what is left
    assert int((m.weight_mask == 0).sum()) == 24 + 28
    c = aakaar.nn.Conv2d(4, 6, 3)
    prune.random_structured(c, "weight", amount=2, dim=0)
    per_channel = c.weight_mask.numpy().reshape(6, -1)
    assert sorted(per_channel.sum(1).tolist()) == [0, 0, 36, 36, 36, 36]
    aakaar.manual_seed(1)
    a = aakaar.nn.Linear(10, 8)
    b = aakaar.nn.Linear(10, 8)
    aakaar.manual_seed(5)
    prune.random_unstructured(a, "weight", amount=0.3)
    aakaar.manual_seed(5)
    prune.random_unstructured(b, "weight", amount=0.3)
    np.testing.assert_array_equal(a.weight_mask.numpy(), b.weight_mask.numpy())  # seeded: reproducible


def test_prune_method_without_module():
    t = aakaar.tensor([[1.0, -5.0], [3.0, -0.5]])
    out = prune.L1Unstructured(amount=2).prune(t)
    expected = tprune.L1Unstructured(amount=2).prune(torch.tensor([[1.0, -5.0], [3.0, -0.5]]))
    np.testing.assert_array_equal(out.numpy(), expected.numpy())


def test_errors_as_torch():
    cases = [
        (lambda p, m: p.l1_unstructured(m, "weight", amount=1.5), ValueError, "should either be a float in the range"),
        (lambda p, m: p.l1_unstructured(m, "weight", amount=-1), ValueError, "should either be a float in the range"),
        (lambda p, m: p.l1_unstructured(m, "weight", amount="a"), TypeError, "Invalid type for amount"),
        (lambda p, m: p.l1_unstructured(m, "weight", amount=100), ValueError, "should be smaller than the number"),
        (lambda p, m: p.ln_structured(m, "bias", amount=1, n=2, dim=0), ValueError, "multidimensional tensors"),
        (lambda p, m: p.ln_structured(m, "weight", amount=1, n=2, dim=2), IndexError, "Invalid index 2"),
        (lambda p, m: p.remove(m, "weight"), ValueError, "has to be pruned before pruning can be removed"),
        (lambda p, m: p.global_unstructured([(m, "weight")], pruning_method=p.LnStructured, amount=1, n=2, dim=0),
         TypeError, 'Only "unstructured" PRUNING_TYPE'),
        (lambda p, m: p.global_unstructured([(m, "weight")], pruning_method=p.L1Unstructured, importance_scores=[1],
                                            amount=1), TypeError, "importance_scores must be of type dict"),
    ]
    for make, error, words in cases:
        names = []
        for p, lib in ((prune, aakaar), (tprune, torch)):
            m = lib.nn.Linear(4, 3)
            with pytest.raises(error, match=words):
                make(p, m)
            # a failed first pruning puts the parameter back (last in the registry, in torch too)
            names.append(([n for n, _ in m.named_parameters()], [n for n, _ in m.named_buffers()],
                          len(m.__dict__.get("_forward_pre_hooks", {})), hasattr(m, "weight_orig")))
        assert names[0] == names[1]


def test_import_path():
    import aakaar.nn.utils.prune as mod

    assert aakaar.nn.utils.prune is mod and mod.is_pruned(aakaar.nn.Linear(2, 2)) is False
