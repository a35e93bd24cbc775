"""aakaar.data: datasets, samplers and the DataLoader behave as torch.utils.data's, seeded by aakaar's Generator."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import aakaar as ak
from aakaar.data import (BatchSampler, ConcatDataset, DataLoader, Dataset, RandomSampler, SequentialSampler, Subset,
                         TensorDataset, default_collate, random_split)

torch = pytest.importorskip("torch")


def _xy(n=10):
    x = ak.arange(n * 3, dtype=ak.float32).reshape(n, 3)
    y = ak.arange(n)
    return x, y


def test_tensor_dataset_rows_and_errors():
    x, y = _xy()
    ds = TensorDataset(x, y)
    assert len(ds) == 10
    xi, yi = ds[4]
    assert xi.tolist() == [12.0, 13.0, 14.0] and yi.item() == 4
    with pytest.raises(ValueError, match="Size mismatch"):
        TensorDataset(x, ak.arange(9))
    with pytest.raises(TypeError, match="argument 1 must be an aakaar.Tensor"):
        TensorDataset(x, [1, 2])
    with pytest.raises(ValueError, match="at least one tensor"):
        TensorDataset()


class Squares(Dataset):
    """A map-style dataset with no gather: the loader must collate sample by sample."""

    def __len__(self):
        return 7

    def __getitem__(self, i):
        return {"x": np.full(2, i, dtype=np.float32), "y": i * i, "name": f"s{i}"}


def test_default_collate_follows_torch_rules():
    batch = [Squares()[i] for i in range(3)]
    ours = default_collate(batch)
    theirs = torch.utils.data.default_collate(batch)
    assert ours["x"].tolist() == theirs["x"].tolist() and ours["x"].dtype == ak.float32
    assert ours["y"].tolist() == theirs["y"].tolist() and ours["y"].dtype == ak.int64
    assert ours["name"] == theirs["name"]
    assert default_collate([1.5, 2.5]).dtype == ak.float64  # as torch: Python floats collate to float64
    pairs = default_collate([(ak.tensor([1.0]), 0), (ak.tensor([2.0]), 1)])
    assert isinstance(pairs, list) and pairs[0].tolist() == [[1.0], [2.0]] and pairs[1].tolist() == [0, 1]
    with pytest.raises(TypeError, match="found object"):
        default_collate([object()])


@pytest.mark.parametrize("drop_last", [False, True])
def test_batches_match_torch_for_a_sequential_order(drop_last):
    x, y = _xy(10)
    ours = [(bx.tolist(), by.tolist()) for bx, by in DataLoader(TensorDataset(x, y), batch_size=4, drop_last=drop_last)]
    tds = torch.utils.data.TensorDataset(torch.tensor(x.numpy()), torch.tensor(y.numpy()))
    theirs = [(bx.tolist(), by.tolist()) for bx, by in torch.utils.data.DataLoader(tds, batch_size=4, drop_last=drop_last)]
    assert ours == theirs
    assert len(DataLoader(TensorDataset(x, y), batch_size=4, drop_last=drop_last)) == len(theirs)


def test_the_fast_path_and_the_collate_path_give_the_same_batches():
    x, y = _xy(23)
    ds = TensorDataset(x, y)
    g1, g2 = ak.Generator().manual_seed(5), ak.Generator().manual_seed(5)
    fast = list(DataLoader(ds, batch_size=5, shuffle=True, generator=g1))
    slow = list(DataLoader(ds, batch_size=5, shuffle=True, generator=g2, collate_fn=default_collate))
    assert [[t.tolist() for t in b] for b in fast] == [[t.tolist() for t in b] for b in slow]


def test_shuffle_is_a_permutation_fixed_by_the_seed_and_new_each_epoch():
    x, y = _xy(50)
    loader = DataLoader(TensorDataset(x, y), batch_size=8, shuffle=True, generator=ak.Generator().manual_seed(1))
    epoch1 = [v for _, by in loader for v in by.tolist()]
    epoch2 = [v for _, by in loader for v in by.tolist()]
    assert sorted(epoch1) == list(range(50)) and sorted(epoch2) == list(range(50))
    assert epoch1 != epoch2 and epoch1 != list(range(50))
    again = DataLoader(TensorDataset(x, y), batch_size=8, shuffle=True, generator=ak.Generator().manual_seed(1))
    assert [v for _, by in again for v in by.tolist()] == epoch1
    # Without a generator, aakaar.manual_seed fixes the order, as torch.manual_seed does for torch's loader.
    ak.manual_seed(3)
    a = [v for _, by in DataLoader(TensorDataset(x, y), batch_size=8, shuffle=True) for v in by.tolist()]
    ak.manual_seed(3)
    b = [v for _, by in DataLoader(TensorDataset(x, y), batch_size=8, shuffle=True) for v in by.tolist()]
    assert a == b


def test_samplers():
    assert list(SequentialSampler(range(4))) == [0, 1, 2, 3]
    r = RandomSampler(range(6), num_samples=14, generator=ak.Generator().manual_seed(0))
    drawn = list(r)
    assert len(drawn) == 14 and sorted(drawn[:6]) == list(range(6)) and sorted(drawn[6:12]) == list(range(6))
    with_replacement = list(RandomSampler(range(3), replacement=True, num_samples=20,
                                          generator=ak.Generator().manual_seed(0)))
    assert len(with_replacement) == 20 and set(with_replacement) <= {0, 1, 2}
    assert list(BatchSampler(range(7), 3, drop_last=False)) == list(torch.utils.data.BatchSampler(range(7), 3, False))
    assert len(BatchSampler(range(7), 3, drop_last=True)) == 2
    with pytest.raises(ValueError, match="batch_size should be a positive integer"):
        BatchSampler(range(3), 0, False)
    with pytest.raises(ValueError, match="num_samples should be a positive integer"):
        RandomSampler(range(3), num_samples=0)


def test_subset_concat_and_random_split():
    x, y = _xy(10)
    ds = TensorDataset(x, y)
    sub = Subset(ds, [9, 0, 3])
    assert [sub[i][1].item() for i in range(3)] == [9, 0, 3]
    assert next(iter(DataLoader(sub, batch_size=3)))[1].tolist() == [9, 0, 3]  # gathers through the subset
    with pytest.raises(IndexError, match="out of range"):
        Subset(ds, [10])
    cat = ConcatDataset([ds, Subset(ds, [1, 2])])
    assert len(cat) == 12 and cat[10][1].item() == 1 and cat[-1][1].item() == 2
    with pytest.raises(IndexError):
        cat[12]
    parts = random_split(ds, [7, 3], generator=ak.Generator().manual_seed(0))
    idx = sorted(parts[0].indices + parts[1].indices)
    assert [len(p) for p in parts] == [7, 3] and idx == list(range(10))
    assert [len(p) for p in random_split(ds, [0.34, 0.33, 0.33])] == [4, 3, 3]  # torch's round-robin remainder
    with pytest.raises(ValueError, match="does not equal the length"):
        random_split(ds, [5, 4])


def test_loader_arguments_are_checked_and_unsupported_ones_said():
    x, y = _xy()
    ds = TensorDataset(x, y)
    with pytest.raises(ValueError, match="mutually exclusive with shuffle"):
        DataLoader(ds, sampler=SequentialSampler(ds), shuffle=True)
    with pytest.raises(ValueError, match="batch_sampler option is mutually exclusive"):
        DataLoader(ds, batch_size=4, batch_sampler=BatchSampler(range(10), 2, False))
    with pytest.raises(ValueError, match="num_workers option should be non-negative"):
        DataLoader(ds, num_workers=-1)
    with pytest.warns(RuntimeWarning, match="num_workers=2 is not supported; loading in the main process"):
        DataLoader(ds, num_workers=2)
    if not ak.cuda.is_available():
        with pytest.warns(UserWarning, match="pin_memory=True but no CUDA device"):
            DataLoader(ds, pin_memory=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        DataLoader(ds)  # the defaults say nothing
    single = list(DataLoader(ds, batch_size=None))
    assert len(single) == 10 and single[2][1].item() == 2
