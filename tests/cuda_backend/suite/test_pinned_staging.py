"""Host <-> device copies of non-contiguous CPU tensors, which csrc/cuda/copy.cu packs into one
pinned (page-locked) staging buffer, reused across copies and grown when a larger one comes."""
from __future__ import annotations

import numpy as np
import pytest
from cuda_suite_helpers import DTYPES, sample

import aakaar

VIEWS = {
    "transpose": lambda t: t.T,
    "step-slice": lambda t: t[1:, ::3],
    "column": lambda t: t[:, 2],
    "expanded": lambda t: t[:, :1].expand(t.shape[0], 5),
    "permuted-3d": lambda t: t.reshape(t.shape[0], -1, 3).permute(2, 0, 1),
}


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("view", list(VIEWS), ids=list(VIEWS))
def test_noncontiguous_cpu_view_to_cuda_and_back(rng, dtype, view):
    cpu = VIEWS[view](aakaar.tensor(sample(rng, (11, 12), dtype)))
    assert not cpu.is_contiguous()
    dev = cpu.to("cuda")
    assert dev.device.type == "cuda" and dev.dtype == dtype and dev.shape == cpu.shape
    np.testing.assert_array_equal(dev.cpu().numpy(), cpu.numpy())
    # and back again through a non-contiguous view on the device
    np.testing.assert_array_equal(dev.T.cpu().numpy(), cpu.numpy().T)


def test_staging_buffer_reuse_does_not_alias_earlier_copies(rng):
    """Small, large (the buffer grows), then small again (it is reused): every uploaded tensor
    keeps its own values, so none of them may still point into the staging buffer."""
    arrays = [sample(rng, (n, n), aakaar.float32) for n in (7, 300, 9, 1000, 5)]
    uploaded = [aakaar.tensor(a).T.to("cuda") for a in arrays]
    for a, dev in zip(arrays, uploaded):
        np.testing.assert_array_equal(dev.cpu().numpy(), a.T)


def test_empty_noncontiguous_view():
    cpu = aakaar.zeros(0, 4).T
    dev = cpu.to("cuda")
    assert dev.shape == (4, 0) and dev.cpu().numpy().shape == (4, 0)
