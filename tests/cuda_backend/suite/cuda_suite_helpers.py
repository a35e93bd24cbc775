"""The CUDA backend suite: every op on "cuda" against the same op on the CPU.

Runs wherever "cuda" is available -- a GPU, or the CUDA emulator build that
tests/cuda_backend/test_on_emulator.py makes and runs this suite against -- and is
skipped elsewhere. With AAKAAR_EXPECT_CUDA set (the emulator run sets it), a missing
device is an error instead of a skip, so that run can never pass vacuously.
"""
from __future__ import annotations

import os

import numpy as np
import pytest

import aakaar

DTYPES = [aakaar.bool, aakaar.uint8, aakaar.int64, aakaar.float32, aakaar.float64]
FLOATS = [aakaar.float32, aakaar.float64]


def pytest_collection_modifyitems(config, items):
    if aakaar.cuda.is_available():
        return
    expect = os.environ.get("AAKAAR_EXPECT_CUDA")
    if expect:
        raise pytest.UsageError(
            f"AAKAAR_EXPECT_CUDA={expect} but aakaar.cuda.is_available() is False "
            f"(module {aakaar._C.__file__}, built with CUDA: {aakaar.cuda.is_built()})"
        )
    skip = pytest.mark.skip(reason="no CUDA device (a GPU, or an AAKAAR_CUDA=EMU build)")
    for item in items:
        if "cuda_backend/suite" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(skip)


@pytest.fixture(scope="session", autouse=True)
def _report_device():
    if aakaar.cuda.is_available():
        print(f"\ncuda device: {aakaar.cuda.get_device_name(0)} (emulated: {aakaar.cuda.is_emulated()})")


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(1234)


def sample(rng: np.random.Generator, shape, dtype) -> np.ndarray:
    """Values of `dtype` (an aakaar dtype) that every op accepts: small, some negative, some zero."""
    if dtype == aakaar.bool:
        return rng.random(shape) < 0.5
    if dtype == aakaar.uint8:
        return rng.integers(0, 12, shape).astype(np.uint8)
    if dtype in (aakaar.int8, aakaar.int16, aakaar.int32, aakaar.int64):
        return rng.integers(-20, 20, shape).astype(dtype.name)
    return rng.standard_normal(shape).astype(np.float32 if dtype == aakaar.float32 else np.float64)


def pair(arr: np.ndarray):
    """The same values as a cpu tensor and a cuda tensor."""
    cpu = aakaar.tensor(arr)
    return cpu, cpu.to("cuda")


def check(got, want, rtol: float = 1e-6, atol: float = 1e-6) -> None:
    """`got` (on cuda) equals `want` (on cpu): same shape, dtype and values (floats within tolerance)."""
    assert got.device.type == "cuda", got.device
    assert want.device.type == "cpu"
    assert tuple(got.shape) == tuple(want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    if want.dtype == aakaar.bfloat16:  # numpy has no bfloat16: compare the float32 values it holds exactly
        got, want = got.float(), want.float()
    g, w = got.cpu().numpy(), want.numpy()
    if want.dtype.is_floating_point:
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, equal_nan=True)
    else:
        np.testing.assert_array_equal(g, w)
