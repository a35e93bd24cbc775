"""torch.utils.data's remaining everyday names: IterableDataset batching in the DataLoader,
ChainDataset, StackDataset, WeightedRandomSampler, get_worker_info, and the aakaar.utils.data
spelling, against torch."""

from __future__ import annotations

import numpy as np
import pytest

import aakaar as ak
from aakaar.utils import data as akdata

torch = pytest.importorskip("torch")
tdata = torch.utils.data


def _stream(base):
    class Stream(base.IterableDataset):
        def __init__(self, n):
            self.n = n

        def __iter__(self):
            return iter(range(self.n))

        def __len__(self):
            return self.n

    return Stream


@pytest.mark.parametrize("batch_size, drop_last", [(2, False), (2, True), (3, False), (None, False)])
def test_iterable_dataset_batches_as_torch(batch_size, drop_last):
    ours = akdata.DataLoader(_stream(akdata)(7), batch_size=batch_size, drop_last=drop_last)
    theirs = tdata.DataLoader(_stream(tdata)(7), batch_size=batch_size, drop_last=drop_last)
    got = [np.asarray(b).tolist() for b in ours]
    want = [np.asarray(b).tolist() for b in theirs]
    assert got == want
    assert len(ours) == len(theirs)


def test_iterable_dataset_refuses_shuffle_and_samplers_as_torch():
    for kw in (dict(shuffle=True), dict(sampler=[0, 1])):
        with pytest.raises(ValueError):
            tdata.DataLoader(_stream(tdata)(4), **kw)
        with pytest.raises(ValueError, match="IterableDataset"):
            akdata.DataLoader(_stream(akdata)(4), **kw)
    with pytest.raises(TypeError):
        _stream(akdata)(3)[0]


def test_chain_and_stack_datasets_as_torch():
    a, b = _stream(akdata)(2), _stream(akdata)(3)
    ta, tb = _stream(tdata)(2), _stream(tdata)(3)
    assert list(akdata.ChainDataset([a, b])) == list(tdata.ChainDataset([ta, tb]))
    assert len(akdata.ChainDataset([a, b])) == 5 and list(a + b) == list(ta + tb)
    x, y = list(range(4)), list("abcd")
    assert [akdata.StackDataset(x, y)[i] for i in range(4)] == [tdata.StackDataset(x, y)[i] for i in range(4)]
    assert akdata.StackDataset(img=x, label=y)[2] == tdata.StackDataset(img=x, label=y)[2]
    assert len(akdata.StackDataset(x, y)) == 4
    for bad_args, bad_kwargs in (((x, y[:2]), {}), ((x,), {"y": y}), ((), {})):
        with pytest.raises(ValueError):
            tdata.StackDataset(*bad_args, **bad_kwargs)
        with pytest.raises(ValueError):
            akdata.StackDataset(*bad_args, **bad_kwargs)


def test_weighted_random_sampler_draws_by_weight():
    weights = [0.0, 1.0, 3.0, 0.0]
    sampler = akdata.WeightedRandomSampler(weights, 4000, generator=ak.Generator().manual_seed(0))
    draws = np.array(list(sampler))
    assert len(sampler) == len(draws) == 4000
    assert set(draws.tolist()) == {1, 2}  # zero weights are never drawn
    share = (draws == 2).mean()
    assert abs(share - 0.75) < 0.04, share  # 3 : 1, within about four standard errors
    again = list(akdata.WeightedRandomSampler(weights, 4000, generator=ak.Generator().manual_seed(0)))
    assert again == draws.tolist()  # a seeded generator fixes the draw
    unique = list(akdata.WeightedRandomSampler([1.0, 2.0, 3.0], 3, replacement=False))
    assert sorted(unique) == [0, 1, 2]
    batches = list(akdata.DataLoader(akdata.TensorDataset(ak.arange(4)), batch_size=2,
                                     sampler=akdata.WeightedRandomSampler(weights, 6)))
    assert len(batches) == 3 and set(np.concatenate([b[0].numpy() for b in batches]).tolist()) <= {1, 2}


def test_weighted_random_sampler_refusals_as_torch():
    for kw in (dict(weights=[1.0], num_samples=0), dict(weights=[1.0], num_samples=2, replacement=1),
               dict(weights=[[1.0]], num_samples=1)):
        with pytest.raises(ValueError):
            tdata.WeightedRandomSampler(**kw)
        with pytest.raises(ValueError):
            akdata.WeightedRandomSampler(**kw)


def test_worker_info_and_the_torch_spelling():
    assert akdata.get_worker_info() is None and tdata.get_worker_info() is None
    from aakaar.utils.data import DataLoader, Dataset, TensorDataset

    assert DataLoader is ak.data.DataLoader and Dataset is ak.data.Dataset and TensorDataset is ak.data.TensorDataset
