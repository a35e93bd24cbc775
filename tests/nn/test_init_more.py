"""nn.init beyond the basics against torch: trunc_normal_ (support and moments against torch's
samples), orthogonal_ (orthonormal rows or columns, times gain), eye_, dirac_ (the same tensor as
torch's), sparse_ (zeros per column), the deprecated aliases, argument errors."""

from __future__ import annotations

import numpy as np
import pytest

import aakaar as ak
import aakaar.nn.init as init

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("mean,std,a,b", [(0.0, 1.0, -2.0, 2.0), (0.5, 0.02, 0.47, 0.6), (0.0, 1.0, -1.0, 1.5)])
def test_trunc_normal_matches_torch_distribution(mean, std, a, b):
    ak.manual_seed(0)
    torch.manual_seed(0)
    ours = init.trunc_normal_(ak.empty(200, 300), mean, std, a, b).numpy()
    ref = torch.nn.init.trunc_normal_(torch.empty(200, 300), mean, std, a, b).numpy()
    assert ours.min() >= a and ours.max() <= b
    assert abs(ours.mean() - ref.mean()) < 0.01 * max(std, b - a)
    assert abs(ours.std() - ref.std()) < 0.01 * max(std, b - a)


@pytest.mark.parametrize("shape", [(3, 5), (5, 3), (6, 2, 2)])
def test_orthogonal(shape):
    w = init.orthogonal_(ak.empty(*shape), gain=1.5).numpy().reshape(shape[0], -1)
    small = w @ w.T if w.shape[0] <= w.shape[1] else w.T @ w
    np.testing.assert_allclose(small, 2.25 * np.eye(small.shape[0]), atol=1e-5)
    with pytest.raises(ValueError):
        init.orthogonal_(ak.empty(4))


def test_eye_dirac_sparse_like_torch():
    e, te = init.eye_(ak.empty(3, 5)), torch.nn.init.eye_(torch.empty(3, 5))
    np.testing.assert_array_equal(e.numpy(), te.numpy())
    for shape, groups in [((4, 2, 3), 1), ((4, 2, 3, 3), 2), ((2, 3, 3, 3, 3), 1)]:
        d, td = init.dirac_(ak.empty(*shape), groups), torch.nn.init.dirac_(torch.empty(*shape), groups)
        np.testing.assert_array_equal(d.numpy(), td.numpy())
    s = init.sparse_(ak.empty(10, 4), 0.25).numpy()
    assert np.all((s == 0).sum(0) == 3)
    for fn in (init.eye_, init.sparse_):
        with pytest.raises(ValueError):
            fn(ak.empty(2, 2, 2), *(() if fn is init.eye_ else (0.1,)))
    with pytest.raises(ValueError):
        init.dirac_(ak.empty(2, 2))


def test_deprecated_aliases_warn_and_work():
    with pytest.warns(FutureWarning):
        w = init.constant(ak.empty(2), 3.0)
    assert np.all(w.numpy() == 3.0)
