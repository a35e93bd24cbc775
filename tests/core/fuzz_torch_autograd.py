"""Fuzz group "autograd" of the differential fuzz against PyTorch
(fuzz_torch_worker.py), compared strictly (fuzz_torch_common.strict).

A case is two leaves x and y (float64 or float32; y of a shape that
broadcasts against x's, or not) and a random chain of 1 to 4 ops on x
(unary functions, binary ops with y, reductions along a drawn dim -- out of
range too --, softmaxes, views, indexing, matmul, in-place ops on a fresh
result, on a leaf, or on a result the backward needs), then a backward: of
the sum, of a weighted sum, with an explicit gradient, without one on a
non-scalar, or twice (with and without retain_graph). Both libraries must
raise alike (at the op or at backward) or give the same x.grad and y.grad.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as TF
from hypothesis import strategies as st

import aakaar as ak
import aakaar.nn.functional as AF
from fuzz_torch_common import same, strict, to_np

UNARY = ["exp", "tanh", "sigmoid", "relu", "sin", "cos", "square", "neg", "abs", "silu", "gelu", "softplus",
         "sqrt1", "log1", "rsqrt1", "recip1", "expm1", "log1p1"]
BINARY = ["add", "sub", "mul", "div1", "maximum", "minimum", "where", "lerp", "pow_y"]
REDUCE = ["sum", "mean", "amax", "amin", "max_dim", "min_dim", "logsumexp", "softmax", "log_softmax", "cumsum",
          "var", "std", "prod"]
SHAPE = ["transpose", "reshape", "expand", "slice", "index", "mask", "unsqueeze", "squeeze", "flatten", "cat",
         "stack", "index_select", "masked_fill", "matmul_self", "matmul_y", "select", "narrow"]
INPLACE = ["inplace_fresh", "inplace_leaf", "inplace_saved", "detach", "scale", "pow", "clamp"]


@st.composite
def op_step(draw):
    group = draw(st.sampled_from(["unary", "binary", "reduce", "shape", "inplace"]))
    name = draw(st.sampled_from({"unary": UNARY, "binary": BINARY, "reduce": REDUCE, "shape": SHAPE,
                                 "inplace": INPLACE}[group]))
    return (name, draw(st.integers(-3, 3)), draw(st.booleans()), draw(st.sampled_from([-1.0, 0.0, 0.5, 2.0, 3.0])))


@st.composite
def autograd_case(draw):
    dtype = draw(st.sampled_from(["float64", "float64", "float32"]))
    shape = tuple(draw(st.lists(st.integers(1, 3), min_size=0, max_size=3)))
    y_shape = list(shape[draw(st.integers(0, len(shape))):])  # a suffix: broadcasts
    for i in range(len(y_shape)):
        pick = draw(st.integers(0, 6))
        y_shape[i] = 1 if pick == 0 else (draw(st.integers(1, 3)) if pick == 1 else y_shape[i])  # or not
    vals = st.floats(-2, 2, allow_nan=False, width=32)
    nx, ny = int(np.prod(shape)), int(np.prod(y_shape))
    x = np.array(draw(st.lists(vals, min_size=nx, max_size=nx)), dtype=dtype).reshape(shape)
    y = np.array(draw(st.lists(vals, min_size=ny, max_size=ny)), dtype=dtype).reshape(y_shape)
    steps = draw(st.lists(op_step(), min_size=1, max_size=4))
    ending = draw(st.sampled_from(["sum", "sum", "weighted", "grad", "nonscalar", "twice", "twice_retain"]))
    return x, y, steps, ending, draw(st.integers(0, 2**31))


def _apply(lib, c, x, y, step):
    name, dim, keep, s = step
    F = AF if lib is ak else TF
    if name in ("exp", "tanh", "sigmoid", "relu", "sin", "cos", "square", "neg", "abs", "expm1"):
        return getattr(c, name)()
    if name == "silu":
        return F.silu(c)
    if name == "gelu":
        return F.gelu(c)
    if name == "softplus":
        return c.softplus() if lib is ak else TF.softplus(c)
    if name == "sqrt1":
        return (c * c + 1).sqrt()
    if name == "log1":
        return (c * c + 1).log()
    if name == "rsqrt1":
        return (c * c + 1).rsqrt()
    if name == "recip1":
        return (c * c + 1).reciprocal()
    if name == "log1p1":
        return (c * c).log1p()
    if name in ("add", "sub", "mul", "maximum", "minimum"):
        return getattr(c, name)(y)
    if name == "div1":
        return c / (y * y + 1)
    if name == "where":
        return lib.where(c > y, c, y * 2)
    if name == "lerp":
        return c.lerp(y, 0.3)
    if name == "pow_y":
        return (c * c + 1).pow(y)
    if name in ("sum", "mean", "amax", "amin", "logsumexp"):
        return getattr(c, name)(dim, keepdim=keep)
    if name in ("max_dim", "min_dim"):
        return getattr(c, name[:3])(dim, keepdim=keep)[0]
    if name in ("softmax", "log_softmax", "cumsum"):
        return getattr(c, name)(dim)
    if name in ("var", "std"):
        return getattr(c, name)(dim, keepdim=keep)
    if name == "prod":
        return c.prod(dim, keepdim=keep)
    if name == "transpose":
        return c.transpose(0, dim)
    if name == "reshape":
        return c.reshape(-1)
    if name == "expand":
        return c.unsqueeze(0).expand(2, *c.shape)
    if name == "slice":
        return c[..., ::2]
    if name == "index":
        return c[lib.tensor([dim, 0, dim])]
    if name == "mask":
        return c[c > s]
    if name == "unsqueeze":
        return c.unsqueeze(dim)
    if name == "squeeze":
        return c.squeeze(dim)
    if name == "flatten":
        return c.flatten(min(dim, 0), max(dim, 0) if keep else -1)
    if name == "cat":
        return lib.cat([c, c * s], dim)
    if name == "stack":
        return lib.stack([c, y], dim)
    if name == "index_select":
        return c.index_select(dim, lib.tensor([0, 0]))
    if name == "masked_fill":
        return c.masked_fill(c > s, s)
    if name == "matmul_self":
        return c @ (c.transpose(-1, -2) if c.ndim >= 2 else c)
    if name == "matmul_y":
        return c @ (y.transpose(-1, -2) if y.ndim >= 2 else y)
    if name == "select":
        return c.select(0, dim)
    if name == "narrow":
        return c.narrow(0, dim, 1)
    if name == "inplace_fresh":  # an in-place op on a result nothing saved: allowed, and differentiated
        c = c * 1
        c.mul_(y) if keep else c.add_(s)
        return c
    if name == "inplace_leaf":  # on a leaf that requires grad: refused at once
        x.add_(s)
        return c
    if name == "inplace_saved":  # exp saves its result; changing it in place is caught at backward
        c = c.exp()
        c.add_(s)
        return c
    if name == "detach":
        return c.detach()
    if name == "scale":
        return c * s
    if name == "pow":
        return c.pow(s) if s >= 0 else (c * c + 1).pow(s)
    if name == "clamp":
        return c.clamp(-abs(s), abs(s) if keep else None)
    raise AssertionError(name)


def _grads(lib, case):
    x_arr, y_arr, steps, ending, salt = case
    x = lib.tensor(x_arr, requires_grad=True)
    y = lib.tensor(y_arr, requires_grad=True)
    c = x
    for step in steps:
        c = _apply(lib, c, x, y, step)
    w = lib.tensor(np.random.default_rng(salt).standard_normal(tuple(c.shape)).astype(x_arr.dtype))
    if ending == "sum":
        c.sum().backward()
    elif ending == "weighted":
        (c * w).sum().backward()
    elif ending == "grad":
        c.backward(w)
    elif ending == "nonscalar":
        c.backward()  # refused unless c has one element
    elif ending == "twice":
        out = c.sum()
        out.backward()
        out.backward()  # refused where the graph saved tensors (now freed)
    else:
        out = (c * w).sum()
        out.backward(retain_graph=True)
        out.backward()
    return [x.grad, y.grad]


def run_autograd_case(case):
    x_arr = case[0]
    rtol, atol = (1e-7, 1e-9) if x_arr.dtype == np.float64 else (1e-4, 1e-5)
    strict(f"autograd {case[2]} {case[3]}", lambda: _grads(ak, case), lambda: _grads(torch, case),
           lambda ra, rt: same(to_np(ra), to_np(rt), rtol, atol))


AUTOGRAD_CASES = autograd_case()
