"""aakaar.distributions against torch.distributions: log_prob, entropy, moments and KL at random
float64 parameters; their gradients and those of rsample-based losses against torch's (the same
noise, recovered from aakaar's draw, pushed through torch's reparameterisation); sample shapes and
dtypes; sample statistics at n=20000 under manual_seed; validate_args errors with torch's class and
message; and a planted bug that the parity check must catch.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import pytest

import aakaar
from aakaar.autograd import gradcheck

torch = pytest.importorskip("torch")

RTOL = 1e-10
ATOL = 1e-12


def to_np(t: Any) -> np.ndarray:
    """A numpy copy of an aakaar or torch tensor (detached)."""
    if isinstance(t, torch.Tensor):
        return t.detach().numpy()
    return np.asarray(t.detach().tolist(), dtype=np.float64 if t.dtype.is_floating_point else np.int64)


def tensor(lib: Any, array: np.ndarray, requires_grad: bool = False) -> Any:
    """``array`` as a tensor of ``lib`` (aakaar or torch), float64 or int64 like the array."""
    dtype = lib.float64 if array.dtype.kind == "f" else lib.int64
    return lib.tensor(array.tolist(), dtype=dtype, requires_grad=requires_grad and dtype == lib.float64)


def close(got: Any, want: Any, rtol: float = RTOL, atol: float = ATOL) -> None:
    """Same shape and values (NaN where torch has NaN)."""
    assert tuple(got.shape) == tuple(want.shape), (tuple(got.shape), tuple(want.shape))
    np.testing.assert_allclose(to_np(got), to_np(want), rtol=rtol, atol=atol)


def dtype_name(dtype: Any) -> str:
    return str(dtype).split(".")[-1]


def spd(rng: np.random.Generator, batch: tuple[int, ...], n: int) -> np.ndarray:
    """Well-conditioned symmetric positive-definite matrices."""
    a = rng.normal(size=batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def t(lib: Any, values: Any) -> Any:
    """A float64 tensor of ``lib`` (aakaar or torch) from nested lists."""
    return lib.tensor(values, dtype=lib.float64)


def d(lib: Any) -> Any:
    """``lib.distributions``, so one expression builds the same thing in both libraries."""
    return lib.distributions


@dataclass
class Case:
    """One parameterisation: how to build it in either library, its parameters and a valid value."""

    name: str
    build: Callable[[Any, dict], Any]
    params: dict[str, np.ndarray]
    value: np.ndarray
    noise: Callable[[Any, Any], np.ndarray] | None = None  # aakaar dist, aakaar draw -> noise
    transform: Callable[[Any, Any], Any] | None = None  # torch dist, torch noise -> draw


def _cases() -> list[Case]:
    rng = np.random.default_rng(1234)
    b = (2, 3)
    loc = rng.uniform(-2, 2, b)
    scale = rng.uniform(0.5, 2.0, b)
    probs = rng.uniform(0.1, 0.9, b)
    cat_probs = rng.uniform(0.1, 1.0, (2, 4))
    cat_logits = rng.normal(size=(2, 4))
    cat_value = np.array([1, 3])
    onehot_value = np.eye(4)[cat_value]
    low = rng.uniform(-2, 1, b)
    lower = np.linalg.cholesky(spd(rng, (2,), 3))
    mvn_loc = rng.normal(size=(2, 3))
    mvn_value = rng.normal(size=(2, 3))

    def normal_noise(da: Any, x: Any) -> np.ndarray:
        return (to_np(x) - to_np(da.loc)) / to_np(da.scale)

    def mvn_noise(da: Any, x: Any) -> np.ndarray:
        lower_np = to_np(da.scale_tril)
        diff = to_np(x) - to_np(da.loc)
        return np.linalg.solve(lower_np, diff[..., None])[..., 0]

    def mvn_transform(dt: Any, z: Any) -> Any:
        return dt.loc + (dt.scale_tril @ z.unsqueeze(-1)).squeeze(-1)

    return [
        Case("Normal", lambda lib, p: d(lib).Normal(p["loc"], p["scale"]), {"loc": loc, "scale": scale},
             rng.normal(size=b), normal_noise, lambda dt, z: dt.loc + z * dt.scale),
        Case("Bernoulli(probs)", lambda lib, p: d(lib).Bernoulli(probs=p["probs"]), {"probs": probs},
             rng.integers(0, 2, b).astype(np.float64)),
        Case("Bernoulli(logits)", lambda lib, p: d(lib).Bernoulli(logits=p["logits"]), {"logits": loc},
             rng.integers(0, 2, b).astype(np.float64)),
        Case("Categorical(probs)", lambda lib, p: d(lib).Categorical(probs=p["probs"]), {"probs": cat_probs},
             cat_value),
        Case("Categorical(logits)", lambda lib, p: d(lib).Categorical(logits=p["logits"]),
             {"logits": cat_logits}, cat_value),
        Case("OneHotCategorical(probs)", lambda lib, p: d(lib).OneHotCategorical(probs=p["probs"]),
             {"probs": cat_probs}, onehot_value),
        Case("OneHotCategorical(logits)", lambda lib, p: d(lib).OneHotCategorical(logits=p["logits"]),
             {"logits": cat_logits}, onehot_value),
        Case("Uniform", lambda lib, p: d(lib).Uniform(p["low"], p["high"]), {"low": low, "high": low + scale},
             low + 0.5 * scale,
             lambda da, x: (to_np(x) - to_np(da.low)) / (to_np(da.high) - to_np(da.low)),
             lambda dt, z: dt.low + z * (dt.high - dt.low)),
        Case("Exponential", lambda lib, p: d(lib).Exponential(p["rate"]), {"rate": scale},
             rng.uniform(0.1, 3.0, b), lambda da, x: to_np(x) * to_np(da.rate), lambda dt, z: z / dt.rate),
        Case("Laplace", lambda lib, p: d(lib).Laplace(p["loc"], p["scale"]), {"loc": loc, "scale": scale},
             rng.normal(size=b), lambda da, x: (to_np(da.loc) - to_np(x)) / to_np(da.scale),
             lambda dt, z: dt.loc - dt.scale * z),
        Case("LogNormal", lambda lib, p: d(lib).LogNormal(p["loc"], p["scale"]),
             {"loc": loc / 4, "scale": scale / 4}, rng.uniform(0.2, 3.0, b),
             lambda da, x: (np.log(to_np(x)) - to_np(da.loc)) / to_np(da.scale),
             lambda dt, z: (dt.loc + dt.scale * z).exp()),
        Case("Independent(Normal)", lambda lib, p: d(lib).Independent(d(lib).Normal(p["loc"], p["scale"]), 1),
             {"loc": loc, "scale": scale}, rng.normal(size=b),
             lambda da, x: normal_noise(da.base_dist, x), lambda dt, z: dt.base_dist.loc + z * dt.base_dist.scale),
        Case("MultivariateNormal(scale_tril)", lambda lib, p: d(lib).MultivariateNormal(p["loc"], scale_tril=p["L"]),
             {"loc": mvn_loc, "L": lower}, mvn_value, mvn_noise, mvn_transform),
        Case("MultivariateNormal(covariance_matrix)",
             lambda lib, p: d(lib).MultivariateNormal(p["loc"], covariance_matrix=p["S"]),
             {"loc": mvn_loc, "S": spd(rng, (2,), 3)}, mvn_value, mvn_noise, mvn_transform),
        Case("MultivariateNormal(precision_matrix)",
             lambda lib, p: d(lib).MultivariateNormal(p["loc"], precision_matrix=p["P"]),
             {"loc": mvn_loc[0], "P": spd(rng, (2,), 3)}, mvn_value, mvn_noise, mvn_transform),
    ]


CASES = _cases()
IDS = [c.name for c in CASES]
RSAMPLE_CASES = [c for c in CASES if c.noise is not None]


def build_pair(case: Case, requires_grad: bool = False) -> tuple[Any, Any, dict, dict]:
    """The aakaar and torch distributions of ``case`` and their parameter leaves."""
    pa = {k: tensor(aakaar, v, requires_grad) for k, v in case.params.items()}
    pt = {k: tensor(torch, v, requires_grad) for k, v in case.params.items()}
    return case.build(aakaar, pa), case.build(torch, pt), pa, pt


def check_parity(case: Case) -> None:
    """log_prob, entropy, mean, variance, stddev and shapes equal torch's."""
    da, dt, _, _ = build_pair(case)
    assert tuple(da.batch_shape) == tuple(dt.batch_shape)
    assert tuple(da.event_shape) == tuple(dt.event_shape)
    close(da.log_prob(tensor(aakaar, case.value)), dt.log_prob(tensor(torch, case.value)))
    close(da.entropy(), dt.entropy())
    for moment in ("mean", "variance", "stddev"):
        close(getattr(da, moment), getattr(dt, moment))


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_values_match_torch(case: Case) -> None:
    check_parity(case)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_log_prob_and_entropy_gradients_match_torch(case: Case) -> None:
    da, dt, pa, pt = build_pair(case, requires_grad=True)
    weights = np.random.default_rng(5).uniform(0.5, 1.5, tuple(dt.batch_shape))
    loss_a = (da.log_prob(tensor(aakaar, case.value)) * tensor(aakaar, weights)).sum() + \
        (da.entropy() * tensor(aakaar, weights[::-1].copy())).sum()
    loss_t = (dt.log_prob(tensor(torch, case.value)) * tensor(torch, weights)).sum() + \
        (dt.entropy() * tensor(torch, weights[::-1].copy())).sum()
    loss_a.backward()
    loss_t.backward()
    for name in case.params:
        close(pa[name].grad, pt[name].grad, rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("case", RSAMPLE_CASES, ids=[c.name for c in RSAMPLE_CASES])
def test_rsample_gradients_match_torch(case: Case) -> None:
    """The same noise through both reparameterisations: equal draws and equal gradients of E[sin x]."""
    da, dt, pa, pt = build_pair(case, requires_grad=True)
    assert da.has_rsample and dt.has_rsample
    aakaar.manual_seed(3)
    x_a = da.rsample((4,))
    assert x_a.requires_grad
    x_t = case.transform(dt, torch.tensor(case.noise(da, x_a)))
    close(x_a, x_t, rtol=1e-9, atol=1e-11)
    aakaar.sin(x_a).mean().backward()
    torch.sin(x_t).mean().backward()
    for name in case.params:
        close(pa[name].grad, pt[name].grad, rtol=1e-8, atol=1e-11)


@pytest.mark.parametrize("sample_shape", [(), (3,), (2, 3)])
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_sample_shapes_and_dtypes(case: Case, sample_shape: tuple[int, ...]) -> None:
    da, dt, _, _ = build_pair(case)
    want = dt.sample(sample_shape)
    got = da.sample(sample_shape)
    assert tuple(got.shape) == tuple(want.shape)
    assert dtype_name(got.dtype) == dtype_name(want.dtype)
    assert not got.requires_grad
    if dt.has_rsample:
        got_r = da.rsample(sample_shape)
        assert tuple(got_r.shape) == tuple(want.shape)
        assert dtype_name(got_r.dtype) == dtype_name(want.dtype)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_sample_statistics(case: Case) -> None:
    """Means within 6 standard errors and variances within 15% at n=20000 (seeded)."""
    n = 20000
    da, dt, _, _ = build_pair(case)
    aakaar.manual_seed(0)
    draws = to_np(da.sample((n,))).astype(np.float64)
    if isinstance(dt, torch.distributions.Categorical):  # moments are NaN: compare frequencies
        k = dt.probs.shape[-1]
        draws = np.eye(k)[draws.astype(np.int64)]
        mean, var = to_np(dt.probs), to_np(dt.probs * (1 - dt.probs))
    else:
        mean, var = to_np(dt.mean), to_np(dt.variance)
    assert np.all(np.abs(draws.mean(0) - mean) <= 6 * np.sqrt(var / n) + 1e-12)
    np.testing.assert_allclose(draws.var(0), var, rtol=0.15, atol=1e-3)


# (what is built, in both libraries) -> ValueError with torch's message
def _param_errors() -> list[tuple[str, Callable[[Any], Any]]]:
    return [
        ("Normal scale<0", lambda lib: d(lib).Normal(t(lib, [0.0, 1.0]), t(lib, [1.0, -1.0]))),
        ("Normal scale=0 scalar", lambda lib: d(lib).Normal(0.0, 0.0)),
        ("Bernoulli both", lambda lib: d(lib).Bernoulli(probs=t(lib, [0.5]), logits=t(lib, [0.0]))),
        ("Bernoulli neither", lambda lib: d(lib).Bernoulli()),
        ("Bernoulli probs>1", lambda lib: d(lib).Bernoulli(probs=t(lib, [0.5, 1.5]))),
        ("Categorical 0-d", lambda lib: d(lib).Categorical(probs=t(lib, 0.5))),
        ("Categorical 0-d logits", lambda lib: d(lib).Categorical(logits=t(lib, 0.5))),
        ("Categorical negative", lambda lib: d(lib).Categorical(probs=t(lib, [0.5, -0.1]))),
        ("Categorical neither", lambda lib: d(lib).Categorical()),
        ("Uniform low>=high", lambda lib: d(lib).Uniform(t(lib, [0.0, 1.0]), t(lib, [1.0, 1.0]))),
        ("Exponential rate<=0", lambda lib: d(lib).Exponential(t(lib, [0.0]))),
        ("Laplace scale<0", lambda lib: d(lib).Laplace(t(lib, [0.0]), t(lib, [-2.0]))),
        ("LogNormal scale<0", lambda lib: d(lib).LogNormal(t(lib, [0.0]), t(lib, [-2.0]))),
        ("MVN 0-d loc", lambda lib: d(lib).MultivariateNormal(t(lib, 0.0), scale_tril=t(lib, [[1.0]]))),
        ("MVN two matrices", lambda lib: d(lib).MultivariateNormal(t(lib, [0.0]), covariance_matrix=t(lib, [[1.0]]),
                                                                   scale_tril=t(lib, [[1.0]]))),
        ("MVN no matrix", lambda lib: d(lib).MultivariateNormal(t(lib, [0.0]))),
        ("MVN 1-d scale_tril", lambda lib: d(lib).MultivariateNormal(t(lib, [0.0]), scale_tril=t(lib, [1.0]))),
        ("MVN 1-d covariance", lambda lib: d(lib).MultivariateNormal(t(lib, [0.0]),
                                                                     covariance_matrix=t(lib, [1.0]))),
        ("MVN 1-d precision", lambda lib: d(lib).MultivariateNormal(t(lib, [0.0]), precision_matrix=t(lib, [1.0]))),
        ("MVN upper scale_tril", lambda lib: d(lib).MultivariateNormal(t(lib, [0.0, 0.0]),
                                                                       scale_tril=t(lib, [[1.0, 1.0], [0.0, 1.0]]))),
        ("MVN indefinite covariance",
         lambda lib: d(lib).MultivariateNormal(t(lib, [0.0, 0.0]), covariance_matrix=t(lib, [[1.0, 2.0], [2.0, 1.0]]))),
        ("Independent too deep", lambda lib: d(lib).Independent(d(lib).Normal(t(lib, [0.0]), t(lib, [1.0])), 2)),
    ]


def _first_words(message: str) -> str:
    """The message up to the printed tensors (whose formatting differs between the libraries)."""
    return message.split(" of distribution ")[0].replace("torch.Size", "aakaar.Size")


@pytest.mark.parametrize("build", [b for _, b in _param_errors()], ids=[n for n, _ in _param_errors()])
def test_invalid_parameters_raise_torchs_error(build: Callable[[Any], Any]) -> None:
    with pytest.raises(Exception) as want:
        build(torch)
    with pytest.raises(Exception) as got:
        build(aakaar)
    assert got.type is want.type
    assert _first_words(str(got.value)) == _first_words(str(want.value))


def _value_errors() -> list[tuple[str, Callable[[Any], Any]]]:
    normal = lambda lib: d(lib).Normal(t(lib, [[0.0, 1.0, 2.0]] * 2), t(lib, [[1.0] * 3] * 2))  # noqa: E731
    mvn = lambda lib: d(lib).MultivariateNormal(  # noqa: E731
        t(lib, [0.0, 0.0]), scale_tril=t(lib, [[1.0, 0.0], [0.5, 1.0]]))
    return [
        ("not a tensor", lambda lib: normal(lib).log_prob([0.0, 1.0, 2.0])),
        ("not broadcastable", lambda lib: normal(lib).log_prob(t(lib, [0.0, 1.0, 2.0, 3.0]))),
        ("wrong event shape", lambda lib: mvn(lib).log_prob(t(lib, [0.0, 1.0, 2.0]))),
        ("Exponential negative", lambda lib: d(lib).Exponential(t(lib, [1.0])).log_prob(t(lib, [-1.0]))),
        ("Bernoulli 0.5", lambda lib: d(lib).Bernoulli(probs=t(lib, [0.3])).log_prob(t(lib, [0.5]))),
        ("Uniform outside", lambda lib: d(lib).Uniform(t(lib, [0.0]), t(lib, [1.0])).log_prob(t(lib, [1.5]))),
        ("Categorical too big", lambda lib: d(lib).Categorical(probs=t(lib, [0.3, 0.7])).log_prob(
            lib.tensor([2], dtype=lib.int64))),
        ("OneHot not one-hot", lambda lib: d(lib).OneHotCategorical(probs=t(lib, [0.3, 0.7])).log_prob(
            t(lib, [1.0, 1.0]))),
        ("LogNormal negative", lambda lib: d(lib).LogNormal(t(lib, [0.0]), t(lib, [1.0])).log_prob(t(lib, [-1.0]))),
    ]


def _value_message(message: str) -> str:
    return message.split("(")[0].replace("torch.Size", "aakaar.Size") if "support" in message else \
        message.replace("torch.Size", "aakaar.Size")


@pytest.mark.parametrize("call", [c for _, c in _value_errors()], ids=[n for n, _ in _value_errors()])
def test_invalid_values_raise_torchs_error(call: Callable[[Any], Any]) -> None:
    with pytest.raises(Exception) as want:
        call(torch)
    with pytest.raises(Exception) as got:
        call(aakaar)
    assert got.type is want.type is ValueError
    assert _value_message(str(got.value)) == _value_message(str(want.value))


def test_validation_can_be_turned_off() -> None:
    bad = aakaar.distributions.Normal(aakaar.tensor([0.0]), aakaar.tensor([-1.0]), validate_args=False)
    assert math.isnan(bad.log_prob(aakaar.tensor([0.0])).item())
    aakaar.distributions.Distribution.set_default_validate_args(False)
    try:
        aakaar.distributions.Exponential(aakaar.tensor([-1.0]))
    finally:
        aakaar.distributions.Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError):
        aakaar.distributions.Exponential(aakaar.tensor([-1.0]))


def _kl_pairs() -> list[tuple[str, Callable[[Any, dict], tuple[Any, Any]], dict]]:
    rng = np.random.default_rng(99)
    b = (2, 3)
    low = rng.uniform(-1, 0, b)
    return [
        ("Normal", lambda lib, p: (d(lib).Normal(p["a"], p["s"]), d(lib).Normal(p["b"], p["t"])),
         {"a": rng.normal(size=b), "b": rng.normal(size=b), "s": rng.uniform(0.5, 2, b), "t": rng.uniform(0.5, 2, b)}),
        ("Bernoulli", lambda lib, p: (d(lib).Bernoulli(probs=p["p"]), d(lib).Bernoulli(logits=p["q"])),
         {"p": rng.uniform(0.1, 0.9, b), "q": rng.normal(size=b)}),
        ("Categorical", lambda lib, p: (d(lib).Categorical(probs=p["p"]), d(lib).Categorical(logits=p["q"])),
         {"p": rng.uniform(0.1, 1, (2, 4)), "q": rng.normal(size=(2, 4))}),
        ("OneHotCategorical", lambda lib, p: (d(lib).OneHotCategorical(probs=p["p"]),
                                              d(lib).OneHotCategorical(logits=p["q"])),
         {"p": rng.uniform(0.1, 1, (2, 4)), "q": rng.normal(size=(2, 4))}),
        ("Uniform", lambda lib, p: (d(lib).Uniform(p["l"], p["h"]), d(lib).Uniform(p["l"] - 0.5, p["h"] + p["w"])),
         {"l": low, "h": low + rng.uniform(0.5, 1, b), "w": np.where(rng.uniform(size=b) < 0.5, -0.2, 0.7)}),
        ("Exponential", lambda lib, p: (d(lib).Exponential(p["a"]), d(lib).Exponential(p["b"])),
         {"a": rng.uniform(0.5, 2, b), "b": rng.uniform(0.5, 2, b)}),
        ("Laplace", lambda lib, p: (d(lib).Laplace(p["a"], p["s"]), d(lib).Laplace(p["b"], p["t"])),
         {"a": rng.normal(size=b), "b": rng.normal(size=b), "s": rng.uniform(0.5, 2, b), "t": rng.uniform(0.5, 2, b)}),
        ("LogNormal", lambda lib, p: (d(lib).LogNormal(p["a"], p["s"]), d(lib).LogNormal(p["b"], p["t"])),
         {"a": rng.normal(size=b), "b": rng.normal(size=b), "s": rng.uniform(0.5, 2, b), "t": rng.uniform(0.5, 2, b)}),
        ("Independent", lambda lib, p: (d(lib).Independent(d(lib).Normal(p["a"], p["s"]), 1),
                                        d(lib).Independent(d(lib).Normal(p["b"], p["t"]), 1)),
         {"a": rng.normal(size=b), "b": rng.normal(size=b), "s": rng.uniform(0.5, 2, b), "t": rng.uniform(0.5, 2, b)}),
        ("MultivariateNormal", lambda lib, p: (d(lib).MultivariateNormal(p["a"], scale_tril=p["L"]),
                                               d(lib).MultivariateNormal(p["b"], covariance_matrix=p["S"])),
         {"a": rng.normal(size=(2, 3)), "b": rng.normal(size=(3,)),
          "L": np.linalg.cholesky(spd(rng, (2,), 3)), "S": spd(rng, (), 3)}),
    ]


KL_PAIRS = _kl_pairs()


@pytest.mark.parametrize("build,params", [(b, p) for _, b, p in KL_PAIRS], ids=[n for n, _, _ in KL_PAIRS])
def test_kl_divergence_and_its_gradients_match_torch(build: Callable, params: dict) -> None:
    pa = {k: tensor(aakaar, v, True) for k, v in params.items()}
    pt = {k: tensor(torch, v, True) for k, v in params.items()}
    kl_a = aakaar.distributions.kl_divergence(*build(aakaar, pa))
    kl_t = torch.distributions.kl_divergence(*build(torch, pt))
    close(kl_a, kl_t)
    finite_a = aakaar.where(aakaar.isinf(kl_a), aakaar.zeros_like(kl_a), kl_a)
    (finite_a * aakaar.arange(1, kl_a.numel() + 1, dtype=aakaar.float64).reshape(tuple(kl_a.shape))).sum().backward()
    finite_t = torch.where(torch.isinf(kl_t), torch.zeros_like(kl_t), kl_t)
    (finite_t * torch.arange(1, kl_t.numel() + 1, dtype=torch.float64).reshape(kl_t.shape)).sum().backward()
    for name in params:
        want = pt[name].grad
        if want is None:
            assert pa[name].grad is None or not np.any(to_np(pa[name].grad))
        else:
            close(pa[name].grad, want, rtol=1e-9, atol=1e-11)


def test_kl_of_identical_distributions_is_zero_and_uniform_kl_is_infinite_outside() -> None:
    d = aakaar.distributions
    p = d.Normal(aakaar.tensor([0.5, -1.0], dtype=aakaar.float64), aakaar.tensor([1.0, 2.0], dtype=aakaar.float64))
    assert np.allclose(to_np(d.kl_divergence(p, p)), 0.0)
    wide = d.Uniform(aakaar.tensor([0.0]), aakaar.tensor([2.0]))
    narrow = d.Uniform(aakaar.tensor([0.5]), aakaar.tensor([1.0]))
    assert math.isinf(d.kl_divergence(wide, narrow).item())


def test_kl_unregistered_pair_and_register_kl_dispatch() -> None:
    d = aakaar.distributions
    normal = d.Normal(aakaar.tensor([0.0]), aakaar.tensor([1.0]))
    exponential = d.Exponential(aakaar.tensor([1.0]))
    with pytest.raises(NotImplementedError):
        d.kl_divergence(normal, exponential)

    class MyNormal(d.Normal):
        pass

    mine = MyNormal(aakaar.tensor([1.0]), aakaar.tensor([2.0]))
    close(d.kl_divergence(mine, normal), d.kl_divergence(d.Normal(aakaar.tensor([1.0]), aakaar.tensor([2.0])),
                                                          normal))

    @d.register_kl(MyNormal, d.Normal)
    def _mine(p: Any, q: Any) -> Any:
        return aakaar.full_like(p.loc, 42.0)

    try:
        assert d.kl_divergence(mine, normal).item() == 42.0
        assert d.kl_divergence(normal, mine).item() != 42.0  # the reverse pair still uses Normal-Normal
    finally:
        from aakaar.distributions import kl as kl_module
        del kl_module._KL_REGISTRY[MyNormal, d.Normal]
        kl_module._KL_MEMOIZE.clear()
    with pytest.raises(TypeError):
        d.register_kl(int, d.Normal)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_expand_matches_torch(case: Case) -> None:
    da, dt, _, _ = build_pair(case)
    new_batch = (4,) + tuple(dt.batch_shape)
    ea, et = da.expand(new_batch), dt.expand(new_batch)
    assert type(ea) is type(da)
    assert tuple(ea.batch_shape) == tuple(et.batch_shape) and tuple(ea.event_shape) == tuple(et.event_shape)
    close(ea.log_prob(tensor(aakaar, case.value)), et.log_prob(tensor(torch, case.value)))
    assert tuple(ea.sample((2,)).shape) == tuple(et.sample((2,)).shape)


def test_log_probs_pass_finite_difference_gradcheck() -> None:
    rng = np.random.default_rng(7)
    loc = tensor(aakaar, rng.normal(size=(3,)), True)
    scale = tensor(aakaar, rng.uniform(0.5, 2, (3,)), True)
    value = tensor(aakaar, rng.normal(size=(3,)), True)
    assert gradcheck(lambda m, s, v: aakaar.distributions.Normal(m, s).log_prob(v), (loc, scale, value))
    lower = tensor(aakaar, np.linalg.cholesky(spd(rng, (), 3)), True)
    assert gradcheck(lambda m, low, v: aakaar.distributions.MultivariateNormal(
        m, scale_tril=low, validate_args=False).log_prob(v),
                     (loc, lower, value))
    logits = tensor(aakaar, rng.normal(size=(3,)), True)
    assert gradcheck(lambda lg: aakaar.distributions.Categorical(logits=lg).entropy(), (logits,))


def test_a_planted_bug_fails_the_parity_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """Normal.log_prob without its -log(sqrt(2 pi)) term must not pass."""
    from aakaar.distributions import normal as normal_module

    check_parity(CASES[0])
    monkeypatch.setattr(normal_module, "LOG_SQRT_2PI", 0.0)
    with pytest.raises(AssertionError):
        check_parity(CASES[0])


def test_reachable_as_aakaar_distributions() -> None:
    import aakaar.distributions as distributions

    assert aakaar.distributions is distributions
    assert distributions.Normal.has_rsample and not distributions.Bernoulli.has_rsample


def _extras() -> list[tuple[str, Callable[[Any], Any]]]:
    return [
        ("Normal scalars log_prob", lambda lib: d(lib).Normal(0.5, 2.0).log_prob(t(lib, [0.1, 3.0]))),
        ("Normal broadcast value", lambda lib: d(lib).Normal(t(lib, [[0.0, 1.0, 2.0]] * 2), 1.5).log_prob(
            t(lib, [[[0.3, 0.2, 0.1]]] * 5))),
        ("Normal cdf", lambda lib: d(lib).Normal(t(lib, [0.0, 1.0]), t(lib, [1.0, 3.0])).cdf(t(lib, [0.4, -1.0]))),
        ("Normal icdf", lambda lib: d(lib).Normal(t(lib, [0.0, 1.0]), t(lib, [1.0, 3.0])).icdf(t(lib, [0.3, 0.9]))),
        ("Uniform cdf", lambda lib: d(lib).Uniform(t(lib, [0.0, 1.0]), t(lib, [2.0, 3.0])).cdf(t(lib, [0.4, 2.5]))),
        ("Uniform icdf", lambda lib: d(lib).Uniform(t(lib, [0.0, 1.0]), t(lib, [2.0, 3.0])).icdf(t(lib, [0.4, 0.5]))),
        ("Uniform log_prob at high", lambda lib: d(lib).Uniform(t(lib, [0.0]), t(lib, [2.0])).log_prob(t(lib, [2.0]))),
        ("Exponential cdf", lambda lib: d(lib).Exponential(t(lib, [0.5, 2.0])).cdf(t(lib, [1.0, 0.2]))),
        ("Exponential icdf", lambda lib: d(lib).Exponential(t(lib, [0.5, 2.0])).icdf(t(lib, [0.3, 0.8]))),
        ("Laplace cdf", lambda lib: d(lib).Laplace(t(lib, [0.0, 1.0]), t(lib, [1.0, 2.0])).cdf(t(lib, [-0.5, 2.0]))),
        ("Laplace icdf", lambda lib: d(lib).Laplace(t(lib, [0.0, 1.0]), t(lib, [1.0, 2.0])).icdf(t(lib, [0.2, 0.7]))),
        ("Bernoulli mode", lambda lib: d(lib).Bernoulli(probs=t(lib, [0.2, 0.5, 0.9])).mode),
        ("Bernoulli extreme logits", lambda lib: d(lib).Bernoulli(logits=t(lib, [-800.0, 800.0])).log_prob(
            t(lib, [1.0, 0.0]))),
        ("Bernoulli enumerate_support", lambda lib: d(lib).Bernoulli(probs=t(lib, [0.2, 0.4])).enumerate_support()),
        ("Categorical mode", lambda lib: d(lib).Categorical(probs=t(lib, [[0.2, 0.5, 0.3], [0.6, 0.3, 0.1]])).mode),
        ("Categorical zero-prob entropy", lambda lib: d(lib).Categorical(probs=t(lib, [0.0, 0.4, 0.6])).entropy()),
        ("Categorical batched value", lambda lib: d(lib).Categorical(logits=t(lib, [[0.1, 0.5, -0.3]] * 2)).log_prob(
            lib.tensor([[0], [2], [1]]))),
        ("Categorical enumerate_support", lambda lib: d(lib).Categorical(logits=t(lib, [[0.1, 0.5]] * 3))
         .enumerate_support()),
        ("OneHot mode", lambda lib: d(lib).OneHotCategorical(probs=t(lib, [[0.2, 0.5, 0.3]])).mode),
        ("OneHot enumerate_support", lambda lib: d(lib).OneHotCategorical(probs=t(lib, [[0.2, 0.8]] * 2))
         .enumerate_support()),
        ("LogNormal mode", lambda lib: d(lib).LogNormal(t(lib, [0.0, 1.0]), t(lib, [0.5, 0.2])).mode),
        ("MVN covariance from scale_tril", lambda lib: d(lib).MultivariateNormal(
            t(lib, [0.0, 1.0]), scale_tril=t(lib, [[2.0, 0.0], [0.5, 1.0]])).covariance_matrix),
        ("MVN precision from covariance", lambda lib: d(lib).MultivariateNormal(
            t(lib, [0.0, 1.0]), covariance_matrix=t(lib, [[2.0, 0.3], [0.3, 1.0]])).precision_matrix),
        ("MVN scale_tril from precision", lambda lib: d(lib).MultivariateNormal(
            t(lib, [0.0, 1.0]), precision_matrix=t(lib, [[2.0, 0.3], [0.3, 1.0]])).scale_tril),
        ("MVN batch entropy", lambda lib: d(lib).MultivariateNormal(
            lib.zeros(4, 2, dtype=lib.float64), scale_tril=t(lib, [[2.0, 0.0], [0.5, 1.0]])).entropy()),
        ("perplexity", lambda lib: d(lib).Normal(t(lib, [0.0]), t(lib, [2.0])).perplexity()),
    ]


@pytest.mark.parametrize("expr", [e for _, e in _extras()], ids=[n for n, _ in _extras()])
def test_scalars_cdf_icdf_mode_and_enumerate_support_match_torch(expr: Callable[[Any], Any]) -> None:
    got, want = expr(aakaar), expr(torch)
    assert dtype_name(got.dtype) == dtype_name(want.dtype)
    close(got, want)


def test_scalar_parameters_give_an_empty_batch_in_the_default_dtype() -> None:
    normal = aakaar.distributions.Normal(0.0, 1.0)
    assert tuple(normal.batch_shape) == () and normal.sample((3,)).dtype == aakaar.get_default_dtype()
    assert tuple(aakaar.distributions.Bernoulli(0.3).sample().shape) == ()


def test_a_vae_style_step_and_a_policy_gradient_reach_module_parameters() -> None:
    """rsample + kl_divergence train a Gaussian towards a target; Categorical.log_prob trains a policy."""
    aakaar.manual_seed(0)
    d = aakaar.distributions
    loc = aakaar.zeros(3, dtype=aakaar.float64, requires_grad=True)
    log_scale = aakaar.zeros(3, dtype=aakaar.float64, requires_grad=True)
    target = d.Normal(aakaar.tensor([1.0, -2.0, 0.5], dtype=aakaar.float64),
                      aakaar.tensor([0.5, 2.0, 1.0], dtype=aakaar.float64))
    opt = aakaar.optim.Adam([loc, log_scale], lr=0.05)
    losses = []
    for _ in range(200):
        q = d.Normal(loc, log_scale.exp())
        loss = d.kl_divergence(q, target).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.01 * losses[0]
    np.testing.assert_allclose(to_np(loc), [1.0, -2.0, 0.5], atol=0.05)

    policy = aakaar.nn.Linear(4, 3).double()
    obs = aakaar.randn(8, 4, dtype=aakaar.float64)
    dist = d.Categorical(logits=policy(obs))
    actions = dist.sample()
    assert tuple(actions.shape) == (8,) and not actions.requires_grad
    (-(dist.log_prob(actions) * aakaar.ones(8, dtype=aakaar.float64)).mean() - 0.01 * dist.entropy().mean()).backward()
    assert policy.weight.grad is not None and float(policy.weight.grad.abs().sum()) > 0
