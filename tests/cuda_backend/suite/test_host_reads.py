"""Host code that needs a device tensor's values reads a CPU copy of them.

On a GPU, dereferencing a device pointer from host code is a crash, not an error; on
the emulator it silently works (its "device" memory is host memory). So these tests
check the *results* (which a missing copy would not change on the emulator), and the
GPU run of this suite (tests/cuda_backend/gpu_check.sh) is what proves the copies exist.
"""
from __future__ import annotations

import numpy as np
import pytest
from cuda_suite_helpers import check, pair, sample

import aakaar


@pytest.mark.parametrize("value,dtype", [(2.5, aakaar.float32), (-3.25, aakaar.float64), (7, aakaar.int64),
                                         (True, aakaar.bool), (200, aakaar.uint8)], ids=str)
def test_item_of_a_device_tensor(value, dtype):
    t = aakaar.tensor([value], dtype=dtype, device="cuda")
    assert t.item() == value and type(t.item()) is type(aakaar.tensor([value], dtype=dtype).item())
    assert float(t.sum()) == float(value)  # __float__ goes through item()


def test_item_of_many_elements_is_a_value_error():
    with pytest.raises(ValueError, match="cannot be converted"):
        aakaar.zeros(3, device="cuda").item()


def test_gather_and_scatter_wrap_and_check_device_indices(rng):
    cpu, dev = pair(sample(rng, (4, 6), aakaar.float32))
    i_cpu, i_dev = pair(np.array([[5, 0, 3], [1, 1, 2], [0, 0, 0], [4, 5, 3]]))
    check(dev.gather(1, i_dev), cpu.gather(1, i_cpu))
    assert i_dev.device.type == "cuda"  # the checked copy went back to the device
    # gather and scatter raise RuntimeError for an index out of range, as torch (x[idx] IndexError)
    with pytest.raises(RuntimeError, match="index 6 is out of bounds"):
        dev.scatter(1, aakaar.tensor([[6]], device="cuda"), dev[:1, :1])
    with pytest.raises(RuntimeError, match="index -1 is out of bounds"):
        dev.gather(0, aakaar.tensor([[-1]], device="cuda"))


@pytest.mark.parametrize("op", ["floordiv", "mod"])
def test_integer_division_by_zero_on_device(op):
    a = aakaar.tensor([7, 8, 9], device="cuda")
    ok = aakaar.tensor([2, 3, 4], device="cuda")
    zero = aakaar.tensor([2, 0, 4], device="cuda")
    f = (lambda x, y: x // y) if op == "floordiv" else (lambda x, y: x % y)
    check(f(a, ok), f(a.cpu(), ok.cpu()))
    with pytest.raises(RuntimeError, match="by zero"):
        f(a, zero)


def test_integer_negative_power_on_device():
    a = aakaar.tensor([2, 3], device="cuda")
    check(a ** aakaar.tensor([3, 0], device="cuda"), aakaar.tensor([8, 1]))
    # negative exponents as torch (1 / base^-e truncated), from the kernel shared with the CPU
    check(aakaar.tensor([2, -1, 1], device="cuda") ** aakaar.tensor([-1, -3, -2], device="cuda"),
          aakaar.tensor([0, -1, 1]))
    with pytest.raises(ValueError, match="negative integer powers"):
        a ** -1


@pytest.mark.skipif(not aakaar.cuda.is_emulated(), reason="the emulated device only")
def test_dlpack_refuses_emulated_device_memory():
    t = aakaar.ones(3, device="cuda")
    with pytest.raises(RuntimeError, match="emulated"):
        t.__dlpack__()
    with pytest.raises(RuntimeError, match="emulated"):
        t.__dlpack_device__()
    np.testing.assert_array_equal(np.from_dlpack(t.cpu()), np.ones(3, np.float32))  # cpu still works
