"""Fuzz groups "matmul" and "index" of the differential fuzz against PyTorch
(fuzz_torch_worker.py), compared strictly (fuzz_torch_common.strict).

matmul: operands of rank 1 to 4 with broadcast (or clashing) batch dims,
matching (or not) inner sizes, zero sizes, transposed operands, and pairs of
dtypes (mismatched ones too), through ``@``, ``matmul``, ``mm`` and ``bmm``.

index: getitem and setitem with ints (out of range too), slices (zero and
negative steps), None, Ellipsis (two of them), int lists, int64 tensors
(out of range too), bool masks (of the right shape or not), bool scalars;
setitem with a Python scalar or a tensor of the result's shape, a broadcast
of it, or a wrong one, of the same dtype or another.
"""

from __future__ import annotations

import numpy as np
import torch
from hypothesis import strategies as st

import aakaar as ak
from fuzz_torch_common import DTYPES, Discrepancy, Skip, arrays, same, strict, to_np, values_for


def _matmul_refusal(exc, torch_result) -> bool:
    """Where aakaar refuses a matmul torch computes, on purpose:

    - integer and bool operands: aakaar's matmul is for float32 and float64 only (integer matmul
      is not part of the book's GEMM chapter, and PyTorch's CUDA has none either); the TypeError
      names the dtype;
    - operands of different dtypes whose product is empty: PyTorch checks the dtypes only when there
      is something to multiply (``bool(0, 0) @ uint8(1, 0, 0)`` passes, ``float32 @ float64`` of
      nonempty operands is refused); whether a dtype mismatch is an error should not depend on
      the sizes, so aakaar refuses it always.
    """
    if not isinstance(exc, TypeError):
        return False
    if "matmul supports float32 and float64" in str(exc):
        return True
    return "same dtype" in str(exc) and isinstance(torch_result, torch.Tensor) and torch_result.numel() == 0


@st.composite
def matmul_case(draw):
    m, k, n = (draw(st.integers(0, 3)) for _ in range(3))
    k_b = k if draw(st.integers(0, 5)) else draw(st.integers(0, 3))  # sometimes a clash
    batch = draw(st.lists(st.integers(0, 3), max_size=2))
    shapes = []
    for which, last in enumerate(((m, k), (k_b, n))):
        rank = draw(st.integers(1, 2 + len(batch)))
        if rank == 1:  # a vector: its length is the inner size
            shapes.append((last[1 - which],))
            continue
        b = list(batch[len(batch) - (rank - 2):]) if rank > 2 else []
        for i in range(len(b)):
            pick = draw(st.integers(0, 5))
            b[i] = 1 if pick == 0 else (draw(st.integers(0, 3)) if pick == 1 else b[i])  # broadcast or clash
        shapes.append(tuple(b) + last)
    float_pair = draw(st.integers(0, 4))
    if float_pair:
        dt = draw(st.sampled_from(["float32", "float64"]))
        dtypes = (dt, dt)
    else:
        dtypes = (draw(st.sampled_from(DTYPES)), draw(st.sampled_from(DTYPES)))
    arrs = []
    for shape, dt in zip(shapes, dtypes):
        transposed = len(shape) >= 2 and draw(st.booleans())
        stored = shape[:-2] + (shape[-1], shape[-2]) if transposed else shape
        arrs.append((draw(arrays(dtypes=[dt], shape=stored, tame=True)), transposed))
    op = draw(st.sampled_from(["@", "matmul", "mm", "bmm"]))
    return arrs, op


def _operand(lib, arr, transposed):
    t = lib.tensor(arr)
    return t.transpose(-1, -2) if transposed else t


def _matmul_check(ra, rt, a, b):
    """Values within a bound on the rounding of a length-k dot product; NaN and inf where torch's are."""
    ra, rt = to_np(ra), to_np(rt)
    if ra.shape != rt.shape:
        raise Discrepancy(f"matmul shape: aakaar {ra.shape}, torch {rt.shape}")
    if rt.dtype.kind != "f":
        same(ra, rt, 0)
        return
    if ra.dtype != rt.dtype:
        raise Discrepancy(f"matmul dtype: aakaar {ra.dtype}, torch {rt.dtype}")
    # |a| @ |b| in float64 bounds the error of any order of summation (k terms).
    bound = np.abs(np.matmul(np.abs(a.astype(np.float64)), np.abs(b.astype(np.float64))))
    eps = np.finfo(rt.dtype).eps * 8
    with np.errstate(invalid="ignore"):
        finite = np.isfinite(rt) & np.isfinite(bound)
        if not np.array_equal(np.isnan(ra), np.isnan(rt)) or not np.array_equal(ra[np.isinf(rt)], rt[np.isinf(rt)]):
            raise Discrepancy(f"matmul: NaN/inf differ:\naakaar {ra}\ntorch {rt}")
        err = np.abs(ra.astype(np.float64) - rt.astype(np.float64))
    if np.any(err[finite] > eps * bound[finite] + 1e-30):
        raise Discrepancy(f"matmul: values differ beyond rounding:\naakaar {ra}\ntorch {rt}")


def run_matmul_case(case):
    (arr_a, ta), (arr_b, tb) = case[0]
    op = case[1]
    fns = {"@": lambda x, y: x @ y, "matmul": lambda x, y: x.matmul(y), "mm": lambda x, y: x.mm(y),
           "bmm": lambda x, y: x.bmm(y)}

    def run(lib):
        return fns[op](_operand(lib, arr_a, ta), _operand(lib, arr_b, tb))

    a = arr_a.swapaxes(-1, -2) if ta else arr_a
    b = arr_b.swapaxes(-1, -2) if tb else arr_b
    strict(f"matmul({op}) {a.dtype}{a.shape} {b.dtype}{b.shape}", lambda: run(ak), lambda: run(torch),
           lambda ra, rt: _matmul_check(ra, rt, a, b), refusal_ok=_matmul_refusal)


MATMUL_CASES = matmul_case()


# ---- indexing ----

@st.composite
def index_item(draw, allow_ellipsis=True):
    kind = draw(st.sampled_from(["int", "slice", "none", "ellipsis", "list", "array", "mask", "bool", "int0d"]))
    if kind == "int":
        return ("int", draw(st.integers(-5, 5)))
    if kind == "slice":
        pick = st.sampled_from([None, -5, -2, -1, 0, 1, 2, 5])
        return ("slice", draw(pick), draw(pick), draw(st.sampled_from([None, 1, 2, 3, -1, 0])))
    if kind == "none":
        return ("none",)
    if kind == "ellipsis":
        return ("ellipsis",)
    if kind == "list":
        return ("list", draw(st.lists(st.integers(-5, 5), max_size=3)))
    if kind == "array":
        shape = tuple(draw(st.lists(st.integers(0, 3), min_size=0, max_size=2)))
        n = int(np.prod(shape)) if shape else 1
        return ("array", np.array(draw(st.lists(st.integers(-5, 5), min_size=n, max_size=n)), dtype=np.int64).reshape(shape))
    if kind == "mask":
        shape = tuple(draw(st.lists(st.integers(0, 4), min_size=0, max_size=2)))
        n = int(np.prod(shape)) if shape else 1
        return ("mask", np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool).reshape(shape))
    if kind == "bool":
        return ("bool", draw(st.booleans()))
    return ("int0d", draw(st.integers(-5, 5)))


def build_index(lib, items):
    out = []
    for it in items:
        k = it[0]
        if k == "int":
            out.append(it[1])
        elif k == "slice":
            out.append(slice(it[1], it[2], it[3]))
        elif k == "none":
            out.append(None)
        elif k == "ellipsis":
            out.append(Ellipsis)
        elif k == "list":
            out.append(list(it[1]))
        elif k in ("array", "mask"):
            out.append(lib.tensor(it[1]))
        elif k == "bool":
            out.append(it[1])
        else:
            out.append(lib.tensor(it[1]))
    return tuple(out) if len(out) != 1 else out[0]


@st.composite
def index_case(draw):
    arr = draw(arrays(max_dims=3, tame=True))
    items = draw(st.lists(index_item(), min_size=0, max_size=3))
    if not draw(st.integers(0, 2)):
        return ("get", arr, items)
    # setitem: the value is fixed here from a shape drawn now; run_index_case reshapes it to the
    # result's shape (or a broadcast of it) when the case asks for that.
    value_kind = draw(st.sampled_from(["scalar", "exact", "broadcast", "random"]))
    value_dtype = draw(st.sampled_from([str(arr.dtype)] * 3 + DTYPES))
    if value_kind == "scalar":
        value = draw(st.one_of(st.integers(-3, 300), st.floats(-3, 3, width=32), st.booleans()))
        return ("set", arr, items, ("scalar", value))
    shape = tuple(draw(st.lists(st.integers(0, 3), max_size=3)))
    pool = values_for(draw, value_dtype, 64, tame=True)
    return ("set", arr, items, (value_kind, value_dtype, shape, pool, draw(st.integers(0, 2**31))))


def _value_for(spec, result_shape):
    """The value of a setitem case as a numpy array (or a Python scalar)."""
    if spec[0] == "scalar":
        return spec[1]
    kind, dtype, shape, pool, salt = spec
    if kind != "random" and result_shape is not None:
        shape = tuple(result_shape)
        if kind == "broadcast":
            rng = np.random.default_rng(salt)
            shape = tuple(1 if rng.integers(2) else s for s in shape)[int(rng.integers(len(shape) + 1)):]
    n = int(np.prod(shape)) if shape else 1
    vals = (pool * (n // len(pool) + 1))[:n]
    return np.array(vals, dtype=dtype).reshape(shape)


def _value_in(lib, value):
    return lib.tensor(value) if isinstance(value, np.ndarray) else value


def _index_refusal(exc, torch_result, empty_result=None) -> bool:
    """Where PyTorch is arguably wrong, aakaar follows numpy and refuses:

    - two or more Ellipses (``x[..., ...]``): PyTorch takes them as one, numpy raises IndexError
      (which of the ``...`` stands for the missing dims is ambiguous);
    - an index out of range when the result is empty anyway (``x[..., [4]]`` on a (4, 0, 3) tensor):
      PyTorch skips the bounds check because no element is read; numpy raises IndexError, and so
      do we -- the index is wrong whatever the other dims' sizes.
    """
    if not isinstance(exc, IndexError):
        return False
    if "single ellipsis" in str(exc):
        return True
    if empty_result is None:
        empty_result = isinstance(torch_result, torch.Tensor) and torch_result.numel() == 0
    return "out of bounds" in str(exc) and empty_result


def run_index_case(case):
    kind, arr, items = case[0], case[1], case[2]
    name = f"index {kind} {arr.dtype}{arr.shape} {items}"
    if kind == "get":
        strict(name, lambda: ak.tensor(arr)[build_index(ak, items)], lambda: torch.tensor(arr)[build_index(torch, items)],
               lambda ra, rt: same(to_np(ra), to_np(rt), 0, 0), refusal_ok=_index_refusal)
        return
    try:
        result_shape = tuple(torch.tensor(arr)[build_index(torch, items)].shape)
    except Exception:  # noqa: BLE001 -- a refused index: the value gets its drawn shape
        result_shape = None
    value = _value_for(case[3], result_shape)
    # Which element each selected position is: a position selected twice (a repeated index) gets
    # one of the values written there, in an unspecified order (in both libraries), so values are
    # compared only where every selected position is distinct.
    positions = torch.arange(max(arr.size, 1)).reshape(arr.shape) if arr.size else None
    unique = True
    if positions is not None and result_shape is not None and isinstance(value, np.ndarray):
        try:
            sel = positions[build_index(torch, items)].reshape(-1)
            unique = torch.unique(sel).numel() == sel.numel()
        except Exception:  # noqa: BLE001
            unique = True

    def run(lib):
        t = lib.tensor(arr)
        t[build_index(lib, items)] = _value_in(lib, value)
        return t

    def check(ra, rt):
        if unique:
            same(to_np(ra), to_np(rt), 0, 0)

    empty = result_shape is not None and 0 in result_shape  # the write selects nothing
    strict(f"{name} = {value!r}"[:400], lambda: run(ak), lambda: run(torch), check,
           refusal_ok=lambda exc, rt: _index_refusal(exc, rt, empty))


INDEX_CASES = index_case()
__all__ = ["INDEX_CASES", "MATMUL_CASES", "Skip", "run_index_case", "run_matmul_case"]
