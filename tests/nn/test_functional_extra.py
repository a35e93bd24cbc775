"""The normalisations, distances and the other everyday functions of nn.functional added for
issue 22 (functional_norm.py, functional_misc.py) against torch: values and gradients in float32
and float64, gradcheck in float64, PyTorch's errors."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import aakaar as ak
import aakaar.nn.functional as F

from tests.nn.nn_helpers import assert_close, run_against_torch, to_ak

torch = pytest.importorskip("torch")
TF = torch.nn.functional

TOL = {torch.float32: (1e-5, 1e-6), torch.float64: (1e-10, 1e-12)}

# (id, shapes, aakaar fn, torch fn)
CASES = [
    ("normalize", [(4, 5)], lambda x: F.normalize(x), lambda x: TF.normalize(x)),
    ("normalize_p1_dim0", [(4, 5)], lambda x: F.normalize(x, p=1, dim=0), lambda x: TF.normalize(x, p=1, dim=0)),
    ("normalize_p3", [(3, 4, 2)], lambda x: F.normalize(x, p=3.0, dim=-1), lambda x: TF.normalize(x, p=3.0, dim=-1)),
    ("normalize_inf", [(3, 6)], lambda x: F.normalize(x, p=math.inf), lambda x: TF.normalize(x, p=math.inf)),
    ("cosine_similarity", [(4, 6), (4, 6)], F.cosine_similarity, TF.cosine_similarity),
    ("cosine_similarity_bcast", [(3, 1, 5), (4, 5)], lambda a, b: F.cosine_similarity(a, b, dim=-1),
     lambda a, b: TF.cosine_similarity(a, b, dim=-1)),
    ("pairwise_distance", [(4, 6), (4, 6)], F.pairwise_distance, TF.pairwise_distance),
    ("pairwise_distance_p1_keep", [(4, 6), (4, 6)], lambda a, b: F.pairwise_distance(a, b, 1.0, keepdim=True),
     lambda a, b: TF.pairwise_distance(a, b, 1.0, keepdim=True)),
    ("pdist", [(5, 3)], F.pdist, TF.pdist),
    ("pdist_p3", [(4, 3)], lambda x: F.pdist(x, 3.0), lambda x: TF.pdist(x, 3.0)),
    ("group_norm", [(2, 6, 5), (6,), (6,)], lambda x, w, b: F.group_norm(x, 3, w, b),
     lambda x, w, b: TF.group_norm(x, 3, w, b)),
    ("group_norm_4d_noaffine", [(2, 4, 3, 3)], lambda x: F.group_norm(x, 2), lambda x: TF.group_norm(x, 2)),
    ("instance_norm", [(2, 3, 7), (3,), (3,)], lambda x, w, b: F.instance_norm(x, weight=w, bias=b),
     lambda x, w, b: TF.instance_norm(x, weight=w, bias=b)),
    ("instance_norm_2d", [(2, 3, 4, 4)], F.instance_norm, TF.instance_norm),
    ("rms_norm", [(3, 4, 5), (4, 5)], lambda x, w: F.rms_norm(x, (4, 5), w, eps=1e-6),
     lambda x, w: TF.rms_norm(x, (4, 5), w, eps=1e-6)),
    ("rms_norm_default_eps", [(3, 5)], lambda x: F.rms_norm(x, 5), lambda x: TF.rms_norm(x, [5])),
    ("local_response_norm", [(2, 6, 4)], lambda x: F.local_response_norm(x, 3, alpha=0.5),
     lambda x: TF.local_response_norm(x, 3, alpha=0.5)),
    ("local_response_norm_4d_even", [(2, 5, 3, 3)], lambda x: F.local_response_norm(x, 4, 0.3, 0.6, 2.0),
     lambda x: TF.local_response_norm(x, 4, 0.3, 0.6, 2.0)),
    ("pixel_shuffle", [(2, 8, 3, 4)], lambda x: F.pixel_shuffle(x, 2), lambda x: TF.pixel_shuffle(x, 2)),
    ("pixel_shuffle_3d", [(9, 2, 3)], lambda x: F.pixel_shuffle(x, 3), lambda x: TF.pixel_shuffle(x, 3)),
    ("pixel_unshuffle", [(2, 3, 4, 6)], lambda x: F.pixel_unshuffle(x, 2), lambda x: TF.pixel_unshuffle(x, 2)),
    ("channel_shuffle", [(2, 6, 3)], lambda x: F.channel_shuffle(x, 3), lambda x: TF.channel_shuffle(x, 3)),
    ("bilinear", [(4, 3), (4, 5), (2, 3, 5), (2,)], F.bilinear, TF.bilinear),
    ("bilinear_nobias_batch", [(2, 4, 3), (2, 4, 5), (6, 3, 5)], F.bilinear, TF.bilinear),
    ("lp_pool1d", [(2, 3, 9)], lambda x: F.lp_pool1d(x.abs() + 0.1, 2.0, 3),
     lambda x: TF.lp_pool1d(x.abs() + 0.1, 2.0, 3)),
    ("lp_pool2d", [(2, 2, 6, 6)], lambda x: F.lp_pool2d(x.abs() + 0.1, 3.0, 2, stride=(2, 1)),
     lambda x: TF.lp_pool2d(x.abs() + 0.1, 3.0, 2, stride=(2, 1))),
    ("alpha_dropout_eval", [(3, 4)], lambda x: F.alpha_dropout(x, 0.3), lambda x: TF.alpha_dropout(x, 0.3)),
    ("rrelu_eval", [(3, 4)], F.rrelu, TF.rrelu),
    ("affine_grid_2d", [(2, 2, 3)], lambda t: F.affine_grid(t, [2, 1, 4, 5], align_corners=False),
     lambda t: TF.affine_grid(t, [2, 1, 4, 5], align_corners=False)),
    ("affine_grid_3d_aligned", [(1, 3, 4)], lambda t: F.affine_grid(t, [1, 2, 3, 2, 4], align_corners=True),
     lambda t: TF.affine_grid(t, [1, 2, 3, 2, 4], align_corners=True)),
]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_values_and_gradients_match_torch(case, dtype):
    _, shapes, ours, theirs = case
    rtol, atol = TOL[dtype]
    run_against_torch(ours, theirs, shapes, dtype, rtol, atol, relative_atol=True)


GRADCHECK = [c for c in CASES if not c[0].startswith(("alpha_dropout", "rrelu"))]


@pytest.mark.parametrize("case", GRADCHECK, ids=[c[0] for c in GRADCHECK])
def test_gradcheck(case):
    _, shapes, ours, _ = case
    rng = np.random.default_rng(3)
    xs = [ak.tensor(rng.standard_normal(s), dtype=ak.float64, requires_grad=True) for s in shapes]
    assert ak.autograd.gradcheck(lambda *a: ours(*a), xs)


def test_norms_of_a_zero_vector_have_torch_gradient():
    """sqrt at 0 would give NaN; torch's norm backward gives 0 there."""
    for ours, theirs in [(lambda x: F.normalize(x, dim=1), lambda x: TF.normalize(x, dim=1)),
                         (lambda x: F.pdist(x), lambda x: TF.pdist(x)),
                         (lambda x: F.cosine_similarity(x, x + 1), lambda x: TF.cosine_similarity(x, x + 1))]:
        x = np.zeros((3, 4))
        x[1] = [1.0, -2.0, 0.5, 3.0]
        x[2] = x[1]
        t = torch.tensor(x, requires_grad=True)
        a = ak.tensor(x, requires_grad=True)
        theirs(t).sum().backward()
        ours(a).sum().backward()
        assert_close(a.grad, t.grad, 1e-10, 1e-12)


@pytest.mark.parametrize("num_classes", [-1, 7])
def test_one_hot(num_classes):
    x = np.array([[0, 3, 1], [5, 2, 0]], dtype=np.int64)
    ref = TF.one_hot(torch.tensor(x), num_classes)
    got = F.one_hot(ak.tensor(x), num_classes)
    assert got.dtype == ak.int64
    assert_close(got, ref, 0, 0)


def test_one_hot_errors():
    with pytest.raises(RuntimeError, match="non-negative"):
        F.one_hot(ak.tensor([1, -1]))
    with pytest.raises(RuntimeError, match="smaller than num_classes"):
        F.one_hot(ak.tensor([1, 4]), 3)
    with pytest.raises(RuntimeError, match="LongTensor"):
        F.one_hot(ak.tensor([1.0, 2.0]))
    with pytest.raises(RuntimeError, match="empty"):
        F.one_hot(ak.tensor(np.zeros(0, dtype=np.int64)))
    assert tuple(F.one_hot(ak.tensor(np.zeros(0, dtype=np.int64)), 4).shape) == (0, 4)


def test_shape_errors_use_torch_classes():
    x = ak.randn(2, 5, 4, 4)
    for fn, args in [(F.pixel_shuffle, (x, 2)), (F.pixel_unshuffle, (ak.randn(1, 2, 3, 4), 2)),
                     (F.channel_shuffle, (x, 2)), (F.group_norm, (x, 2)), (F.pdist, (ak.randn(2, 3, 4),)),
                     (F.rms_norm, (x, (3,)))]:
        with pytest.raises(RuntimeError):
            fn(*args)
    with pytest.raises(ValueError):
        F.local_response_norm(ak.randn(2, 3), 2)
    with pytest.raises(ValueError):
        F.alpha_dropout(x, 1.5, True)


def test_embedding_bag_modes_against_torch():
    rng = np.random.default_rng(0)
    w = rng.standard_normal((10, 4))
    idx = np.array([1, 2, 4, 5, 4, 3, 2, 9, 0], dtype=np.int64)
    offsets = np.array([0, 3, 3, 6], dtype=np.int64)  # an empty bag at 2
    for mode in ("sum", "mean", "max"):
        for pad in (None, 4):
            tw = torch.tensor(w, requires_grad=True)
            aw = ak.tensor(w, requires_grad=True)
            ref = TF.embedding_bag(torch.tensor(idx), tw, torch.tensor(offsets), mode=mode, padding_idx=pad)
            got = F.embedding_bag(ak.tensor(idx), aw, ak.tensor(offsets), mode=mode, padding_idx=pad)
            assert_close(got, ref, 1e-12, 1e-12, f"{mode} {pad}")
            g = rng.standard_normal(tuple(ref.shape))
            ref.backward(torch.tensor(g))
            got.backward(ak.tensor(g))
            assert_close(aw.grad, tw.grad, 1e-12, 1e-12, f"grad {mode} {pad}")
    # 2-d input, per_sample_weights, include_last_offset
    idx2 = rng.integers(0, 10, (3, 4))
    psw = rng.standard_normal((3, 4))
    ref = TF.embedding_bag(torch.tensor(idx2), torch.tensor(w), mode="sum", per_sample_weights=torch.tensor(psw))
    got = F.embedding_bag(ak.tensor(idx2), ak.tensor(w), mode="sum", per_sample_weights=ak.tensor(psw))
    assert_close(got, ref, 1e-12, 1e-12)
    ref = TF.embedding_bag(torch.tensor(idx), torch.tensor(w), torch.tensor([0, 2, 9]), include_last_offset=True)
    got = F.embedding_bag(ak.tensor(idx), ak.tensor(w), ak.tensor([0, 2, 9]), include_last_offset=True)
    assert_close(got, ref, 1e-12, 1e-12)
    with pytest.raises(ValueError):
        F.embedding_bag(ak.tensor(idx), ak.tensor(w))


def test_alpha_dropout_keeps_mean_and_variance_of_standard_normal():
    ak.manual_seed(0)
    x = ak.randn(200000, dtype=ak.float64)
    for fn in (F.alpha_dropout, lambda t, p, training: F.feature_alpha_dropout(t.reshape(-1, 1, 1), p, training)):
        y = fn(x, 0.3, True).reshape(-1).numpy()
        assert abs(y.mean()) < 0.02 and abs(y.std() - 1) < 0.02
    y = F.alpha_dropout(x, 0.3, True).numpy()
    dropped = y[np.abs(y - (-1.7580993408473766 * (1 / math.sqrt((1.7580993408473766 ** 2 * 0.3 + 1) * 0.7)) +
                            1.7580993408473766 * (1 / math.sqrt((1.7580993408473766 ** 2 * 0.3 + 1) * 0.7)) * 0.3))
                  < 1e-9]
    assert 0.27 < dropped.size / y.size < 0.33


def test_rrelu_training_slopes_in_range_and_gradient_is_the_slope():
    x = ak.tensor(-np.linspace(0.5, 3, 50), requires_grad=True)
    y = F.rrelu(x, 0.1, 0.3, training=True)
    slope = (y / x).detach().numpy()
    assert slope.min() >= 0.1 and slope.max() <= 0.3 and slope.std() > 0
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), slope, rtol=1e-12)


def test_gumbel_softmax_soft_and_hard():
    ak.manual_seed(1)
    logits = ak.tensor(np.log(np.array([[0.1, 0.2, 0.7]] * 4000)), requires_grad=True)
    y = F.gumbel_softmax(logits, tau=0.5)
    np.testing.assert_allclose(y.sum(-1).detach().numpy(), 1.0, rtol=1e-12)
    h = F.gumbel_softmax(logits, hard=True)
    hv = h.detach().numpy()
    assert set(np.unique(hv)) <= {0.0, 1.0} and np.all(hv.sum(-1) == 1)
    np.testing.assert_allclose(hv.mean(0), [0.1, 0.2, 0.7], atol=0.03)  # Gumbel-max samples the softmax
    h[:, 2].sum().backward()
    assert np.abs(logits.grad.numpy()).sum() > 0


def test_aliases_and_deprecated_upsample():
    x = torch.randn(1, 2, 9, dtype=torch.float64)
    a = to_ak(x)
    for ours, theirs in [(F.max_pool1d_with_indices(a, 3), TF.max_pool1d_with_indices(x, 3)),
                         (F.adaptive_max_pool1d_with_indices(a, 4), TF.adaptive_max_pool1d_with_indices(x, 4))]:
        assert_close(ours[0], theirs[0], 0, 0)
        assert_close(ours[1], theirs[1], 0, 0)
    x2 = torch.randn(1, 2, 4, 4, dtype=torch.float64)
    a2 = to_ak(x2)
    v, i = F.max_pool2d_with_indices(a2, 2)
    rv, ri = TF.max_pool2d_with_indices(x2, 2)
    assert_close(v, rv, 0, 0)
    assert_close(i, ri, 0, 0)
    v, i = F.adaptive_max_pool2d_with_indices(a2, 3)
    rv, ri = TF.adaptive_max_pool2d_with_indices(x2, 3)
    assert_close(v, rv, 0, 0)
    assert_close(i, ri, 0, 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_close(F.upsample(a2, scale_factor=2), TF.upsample(x2, scale_factor=2), 1e-12)
        assert_close(F.upsample_nearest(a2, size=6), TF.upsample_nearest(x2, size=6), 1e-12)
        assert_close(F.upsample_bilinear(a2, size=7), TF.upsample_bilinear(x2, size=7), 1e-12)
    with pytest.warns(UserWarning):
        F.upsample(a2, scale_factor=2)
