"""inference_mode, aakaar.random (manual_seed's return, fork_rng), aakaar.backends' flags and
load(map_location=, weights_only=) as PyTorch code uses them."""

from __future__ import annotations

import io

import numpy as np
import pytest

import aakaar as ak

torch = pytest.importorskip("torch")


def test_inference_mode_as_context_and_decorator():
    x = ak.ones(2, requires_grad=True)
    assert not ak.is_inference_mode_enabled()
    with ak.inference_mode():
        assert ak.is_inference_mode_enabled() and not ak.is_grad_enabled()
        assert not (x * 2).requires_grad
        with ak.inference_mode(False):
            assert ak.is_inference_mode_enabled()  # an inner inference_mode(False) changes nothing here
    assert ak.is_grad_enabled() and not ak.is_inference_mode_enabled()

    @ak.inference_mode()
    def f(v):
        return v * 2

    @ak.inference_mode
    def g(v):
        return v * 3

    assert not f(x).requires_grad and not g(x).requires_grad and (x * 2).requires_grad
    with ak.autograd.inference_mode(False):
        assert (x * 2).requires_grad


def test_manual_seed_returns_the_generator_and_fork_rng_restores():
    gen = ak.manual_seed(5)
    assert isinstance(gen, ak.Generator) and gen.initial_seed() == 5
    assert isinstance(torch.manual_seed(5), torch.Generator)
    ak.random.manual_seed(7)
    expected = ak.rand(3).numpy()
    ak.random.manual_seed(7)
    with ak.random.fork_rng():
        ak.rand(10)  # draws inside the block do not shift what follows it
    np.testing.assert_array_equal(ak.rand(3).numpy(), expected)
    state = ak.random.get_rng_state()
    a = ak.rand(2).numpy()
    ak.random.set_rng_state(state)
    np.testing.assert_array_equal(ak.rand(2).numpy(), a)


def test_backends_flags_can_be_set_and_say_what_is_there():
    assert ak.backends.cudnn.is_available() is False and ak.backends.mps.is_available() is False
    ak.backends.cudnn.benchmark = True  # what training scripts write; selects nothing in aakaar
    assert ak.backends.cudnn.benchmark is True
    ak.backends.cudnn.benchmark = False
    ak.backends.cuda.matmul.allow_tf32 = False
    assert ak.backends.cpu.get_cpu_capability() in ("AVX512", "AVX2", "DEFAULT")
    assert ak.backends.cpu.get_cpu_capability() == {"avx512": "AVX512", "avx2": "AVX2"}.get(
        str(ak._C.cpu_isa()).lower(), "DEFAULT")


def test_load_accepts_torchs_arguments():
    buf = io.BytesIO()
    ak.save({"w": ak.ones(2, requires_grad=True), "rest": [ak.zeros(1), 3]}, buf)
    for kw in ({}, {"map_location": "cpu"}, {"map_location": ak.device("cpu")}, {"weights_only": True},
               {"map_location": {"cuda:0": "cpu"}}, {"weights_only": False}):
        buf.seek(0)
        out = ak.load(buf, **kw)
        assert out["rest"][1] == 3 and out["w"].requires_grad and out["w"].device.type == "cpu"
        np.testing.assert_array_equal(out["w"].detach().numpy(), [1.0, 1.0])
    buf.seek(0)
    with pytest.raises(NotImplementedError, match="callable map_location"):
        ak.load(buf, map_location=lambda storage, loc: storage)
    buf.seek(0)
    with pytest.raises(TypeError, match="pickle"):
        ak.load(buf, pickle_module=object())
    buf.seek(0)
    with pytest.warns(UserWarning, match="mmap"):
        ak.load(buf, mmap=True)
