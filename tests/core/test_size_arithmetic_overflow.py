"""Sizes, strides and offsets computed from user input use checked arithmetic (issue 15).

Each reproducer here was signed overflow (undefined behaviour) found by
UBSan; the visible symptom is in the test's name. PyTorch 2.13 is the
reference where it answers sensibly; where it does not, the comment says
what we chose.
"""

from __future__ import annotations

import numpy as np
import pytest

import aakaar as ak

torch = pytest.importorskip("torch")

BIG = 2**63 - 1


def test_narrow_with_a_start_near_int64_max_is_an_index_error():
    with pytest.raises(IndexError):
        ak.ones(3).narrow(0, BIG, 5)
    with pytest.raises(IndexError):
        torch.ones(3).narrow(0, BIG, 5)
    assert tuple(ak.ones(3).narrow(0, 3, 0).shape) == (0,)  # start == size with length 0 is fine


def test_numel_beyond_int64_is_refused_not_zero():
    with pytest.raises(RuntimeError):
        ak.ones(10).as_strided((2**32, 2**32), (0, 0))
    with pytest.raises(RuntimeError):
        torch.ones(10).as_strided((2**32, 2**32), (0, 0)).numel()


def test_huge_stride_on_a_size_one_dim_reads_and_exports():
    # stride x itemsize would overflow: a size-1 dim is never stepped along.
    t = ak.arange(4.0).as_strided((1, 2), (2**62, 1))
    assert t.sum().item() == 1.0
    assert (t + 1).tolist() == [[1.0, 2.0]]
    np.testing.assert_array_equal(t.numpy(), [[0.0, 1.0]])
    np.testing.assert_array_equal(np.asarray(memoryview(t)), [[0.0, 1.0]])


def test_slice_with_a_huge_step():
    a = ak.ones(2).view(2, 1).expand(2, 3).clone()
    assert tuple(a[:, :1:BIG].shape) == (2, 1)
    # PyTorch raises here (its stride x step overflows in a size check); one element is selected,
    # so its stride never matters: we give the (2, 1) view.
    assert tuple(a[:, ::BIG].shape) == (2, 1) and a[:, ::BIG].sum().item() == 2.0
    b = ak.arange(10.0)
    assert b[1::BIG].tolist() == [1.0]
    assert b[BIG:].tolist() == [] and b[-BIG:2].tolist() == [0.0, 1.0]
    idx = ak.tensor([0, 1])
    assert tuple(a[idx, :1:BIG].shape) == (2, 1)


def test_split_sizes_that_overflow_say_so():
    with pytest.raises(ValueError, match="more than 2\\^63"):
        ak.ones(4).split([BIG, BIG])
    with pytest.raises(RuntimeError):
        torch.ones(4).split([BIG, BIG])


def test_chunk_with_huge_chunks():
    # PyTorch raises here ("split_size can only be 0 ..."), which is arguably a bug
    # of its overflowing arithmetic: we give one piece per element, as chunk(n) with
    # n >= size does for every smaller n.
    parts = ak.ones(4).chunk(BIG)
    assert [tuple(p.shape) for p in parts] == [(1,)] * 4


def test_unflatten_with_sizes_whose_product_overflows():
    for sizes in [(2**62, 2**62, 0, -1), (-1, 2**62, 2**62), (2**62, 2**62)]:
        with pytest.raises(ValueError):
            ak.ones(3).unflatten(0, sizes)
        with pytest.raises(RuntimeError):
            torch.ones(3).unflatten(0, sizes)


def test_view_and_reshape_with_overflowing_shapes():
    with pytest.raises(ValueError):
        ak.ones(0).reshape(2**62, 2**62, 0)
    with pytest.raises(ValueError):
        ak.ones(4).view(-1, 2**62, 2**62)


@pytest.mark.parametrize(
    "a, b",
    [([2**62], [2**62]), ([-(2**63)], [-1]), ([2**62 + 1], [4]), ([BIG], [BIG])],
)
def test_int64_add_sub_mul_wrap_like_torch(a, b):
    ta, tb = torch.tensor(a), torch.tensor(b)
    xa, xb = ak.tensor(a), ak.tensor(b)
    assert (xa + xb).tolist() == (ta + tb).tolist()
    assert (xa - xb).tolist() == (ta - tb).tolist()
    assert (xa * xb).tolist() == (ta * tb).tolist()
    assert (-xa).tolist() == (-ta).tolist()
    assert xa.abs().tolist() == ta.abs().tolist()
    assert (xa * xa).tolist() == (ta * ta).tolist()


def test_integer_pow_wraps_like_torch():
    for base, exp in [(3, 2**62), (3, 63), (-3, 41), (2**32, 2)]:
        assert (ak.tensor([base]) ** exp).tolist() == (torch.tensor([base]) ** exp).tolist()


def test_uint8_arithmetic_wraps():
    a = ak.tensor([250, 255], dtype=ak.uint8)
    t = torch.tensor([250, 255], dtype=torch.uint8)
    assert (a * a).tolist() == (t * t).tolist()
    assert (a + a).tolist() == (t + t).tolist()


def test_randint_over_the_whole_int64_range():
    x = ak.randint(-(2**63), BIG, (100000,)).numpy()
    # Half zeros and no positive value before the fix.
    assert (x > 0).mean() > 0.45 and (x < 0).mean() > 0.45
    assert (x == 0).sum() < 10
    small = ak.randint(-3, 3, (10000,)).numpy()
    assert set(np.unique(small)) == {-3, -2, -1, 0, 1, 2}


def test_exp_of_nan_and_inf_logits_in_cross_entropy():
    # exp_f32 converted NaN to an integer (undefined); the results follow torch.
    logits = [[float("nan"), 0.0], [float("inf"), 0.0], [0.0, float("-inf")]]
    target = [0, 1, 0]
    got = ak.nn.functional.cross_entropy(ak.tensor(logits), ak.tensor(target), reduction="none").tolist()
    want = torch.nn.functional.cross_entropy(torch.tensor(logits), torch.tensor(target), reduction="none").tolist()
    np.testing.assert_allclose(got, want, equal_nan=True)
    np.testing.assert_array_equal(np.isnan(ak.tensor([float("nan")]).exp().numpy()), [True])
