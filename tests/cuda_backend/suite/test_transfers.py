"""Host <-> device copies, dtype conversion on the device, views, printing, device errors."""
from __future__ import annotations

import numpy as np
import pytest
from cuda_suite_helpers import DTYPES, check, pair, sample

import aakaar


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shape", [(), (0,), (1,), (257,), (3, 0, 5), (7, 33, 5)], ids=str)
def test_round_trip_every_dtype_and_shape(rng, dtype, shape):
    cpu, dev = pair(sample(rng, shape, dtype))
    assert dev.device == "cuda:0" and dev.is_cuda and str(dev.device) == "cuda:0"
    assert dev.dtype == dtype and tuple(dev.shape) == shape
    for back in (dev.cpu(), dev.to("cpu"), dev.to(device="cpu")):
        assert back.device == "cpu"
        np.testing.assert_array_equal(back.numpy(), cpu.numpy())


def test_cuda_method_and_identity(rng):
    cpu = aakaar.tensor(sample(rng, (4, 5), aakaar.float32))
    dev = cpu.cuda()
    assert dev.to("cuda") is dev and dev.to("cuda:0") is dev
    np.testing.assert_array_equal(dev.cpu().numpy(), cpu.numpy())


@pytest.mark.parametrize("make_view", [
    lambda t: t.T,
    lambda t: t[1:, ::3],
    lambda t: t[:, 2],
    lambda t: t.unsqueeze(1).expand(9, 4, 13),
], ids=["transpose", "step-slice", "column", "expanded"])
def test_views_travel_both_ways(rng, make_view):
    cpu, dev = pair(sample(rng, (9, 13), aakaar.float64))
    v_cpu, v_dev = make_view(cpu), make_view(dev)
    check(v_dev.contiguous(), v_cpu.contiguous(), rtol=0, atol=0)
    # a non-contiguous cpu view uploaded, and a non-contiguous cuda view downloaded
    check(v_cpu.to("cuda"), v_cpu, rtol=0, atol=0)
    np.testing.assert_array_equal(v_dev.cpu().numpy(), v_cpu.numpy())


@pytest.mark.parametrize("src", DTYPES, ids=str)
@pytest.mark.parametrize("dst", DTYPES, ids=str)
def test_dtype_conversion_on_device(rng, src, dst):
    arr = sample(rng, (5, 67), src)
    if src.is_floating_point and not dst.is_floating_point and dst != aakaar.bool:
        arr = np.abs(arr) * 5  # float -> unsigned/int of negative values is undefined behaviour in C++
    cpu, dev = pair(arr)
    check(dev.to(dst), cpu.to(dst), rtol=0, atol=0)
    check(dev.T.to(dst), cpu.T.to(dst), rtol=0, atol=0)  # strided source


def test_copy_into_strided_destination(rng):
    cpu, dev = pair(sample(rng, (6, 8), aakaar.float32))
    src_cpu, src_dev = pair(sample(rng, (3, 6), aakaar.float32))
    cpu[:, ::3] = src_cpu.T
    dev[:, ::3] = src_dev.T
    check(dev, cpu, rtol=0, atol=0)


def test_printing_and_numpy(rng):
    cpu, dev = pair(sample(rng, (2, 3), aakaar.float32))
    assert "device='cuda:0'" in repr(dev)
    assert repr(dev).replace(", device='cuda:0'", "") == repr(cpu)
    assert dev.tolist() == cpu.tolist()
    assert dev[1, 2].cpu().item() == cpu[1, 2].item()
    with pytest.raises(TypeError, match="cuda"):
        dev.numpy()


def test_mixing_devices_raises_naming_both(rng):
    cpu, dev = pair(sample(rng, (4,), aakaar.float32))
    for f in (lambda: cpu + dev, lambda: dev * cpu, lambda: aakaar.where(dev > 0, cpu, dev),
              lambda: dev.matmul(cpu.reshape(4, 1)), lambda: dev.gather(0, aakaar.tensor([0, 1]))):
        with pytest.raises(RuntimeError, match="same device") as e:
            f()
        assert "cpu" in str(e.value) and "cuda:0" in str(e.value)


def test_only_cuda0_exists(rng):
    with pytest.raises(RuntimeError, match="cuda:1"):
        aakaar.zeros(3, device="cuda:1")


def test_too_many_dims_is_a_clear_error():
    # Kernels walk at most 8 dims of size > 1 (size-1 dims cost nothing).
    assert aakaar.zeros(*([2] * 8 + [1] * 4), device="cuda").sum().cpu().item() == 0
    with pytest.raises(RuntimeError, match="at most 8 dims"):
        aakaar.zeros(*([2] * 9), device="cuda")


def test_creation_on_device():
    check(aakaar.zeros(3, 5, device="cuda"), aakaar.zeros(3, 5), rtol=0, atol=0)
    check(aakaar.ones(7, dtype=aakaar.int64, device="cuda"), aakaar.ones(7, dtype=aakaar.int64), rtol=0, atol=0)
    check(aakaar.full((2, 3), 2.5, device="cuda"), aakaar.full((2, 3), 2.5), rtol=0, atol=0)
    check(aakaar.arange(0, 10, 3, device="cuda"), aakaar.arange(0, 10, 3), rtol=0, atol=0)
    check(aakaar.eye(4, device="cuda"), aakaar.eye(4), rtol=0, atol=0)
