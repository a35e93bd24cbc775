"""Runs one op on aakaar and on torch with the same inputs and compares results and gradients.

A case is ``fn(lib, *tensors)``, written once for both libraries (``lib`` is the aakaar or torch
module); its outputs (a tensor, a tuple, a named tuple) are compared elementwise, and the gradient
of a fixed random weighting of its floating outputs is compared for every floating input.
"""

from __future__ import annotations

import numpy as np
import pytest

import aakaar

torch = pytest.importorskip("torch")


def _outputs(out):
    if isinstance(out, (tuple, list)):
        return [o for item in out for o in _outputs(item)]
    return [out]


def _run(lib, fn, arrays, grad):
    conv = aakaar.from_numpy if lib is aakaar else torch.from_numpy
    ts = []
    for a in arrays:
        if isinstance(a, np.ndarray):
            t = conv(a.copy())
            if grad and a.dtype.kind == "f":
                t.requires_grad_()
            ts.append(t)
        else:
            ts.append(a)
    outs = _outputs(fn(lib, *ts))
    grads = []
    if grad:
        rng = np.random.default_rng(7)
        loss = None
        for o in outs:
            if o.dtype.is_floating_point and o.requires_grad:
                w = conv(rng.standard_normal(tuple(o.shape)).astype(np.float64)).to(o.dtype)
                term = (o * w).sum()
                loss = term if loss is None else loss + term
        if loss is not None:
            loss.backward()
        for t in ts:
            if hasattr(t, "requires_grad") and t.requires_grad:
                grads.append(None if t.grad is None else t.grad.detach().numpy().copy())
    return [np.array(o.detach().numpy(), copy=True) for o in outs], grads


def compare(fn, arrays, grad=True, rtol=1e-5, atol=1e-6):
    """Runs fn on both libraries and asserts equal shapes, dtypes, values and gradients."""
    got, got_g = _run(aakaar, fn, arrays, grad)
    ref, ref_g = _run(torch, fn, arrays, grad)
    assert len(got) == len(ref), f"{len(got)} outputs, torch gives {len(ref)}"
    for k, (a, b) in enumerate(zip(got, ref)):
        assert a.shape == b.shape, f"output {k}: shape {a.shape} != torch {b.shape}"
        assert a.dtype == b.dtype, f"output {k}: dtype {a.dtype} != torch {b.dtype}"
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=f"output {k}")
    for k, (a, b) in enumerate(zip(got_g, ref_g)):
        if b is None:
            assert a is None or not np.any(a), f"input {k}: a gradient where torch has none"
            continue
        assert a is not None, f"input {k}: no gradient, torch has one"
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=f"gradient of input {k}")


def raises_like(fn, *args):
    """fn(aakaar, ...) raises an exception that is an instance of the class torch raises."""
    conv = lambda lib: [(aakaar.from_numpy(a.copy()) if lib is aakaar else torch.from_numpy(a.copy()))  # noqa: E731
                        if isinstance(a, np.ndarray) else a for a in args]
    with pytest.raises(Exception) as ref:
        fn(torch, *conv(torch))
    with pytest.raises(type(ref.value)) as got:
        fn(aakaar, *conv(aakaar))
    return got.value, ref.value
