"""The worker of test_fuzz_against_torch.py: a differential fuzz of aakaar against PyTorch.

Run as a separate process (``python fuzz_torch_worker.py GROUP N_EXAMPLES SEED LAST_CASE_FILE``)
so that a crash (a segfault, an abort, a sanitizer report) kills only it: before
each case it writes the case to LAST_CASE_FILE, and the parent test reports that
case when the process dies. Exit status 0: every case agreed.

Hypothesis draws shapes (with zero sizes), dtypes, special values (NaN, +-inf,
-0.0, int64 extremes), views (transposes, strided slices, expands,
as_strided with stride-0 and huge size-1 strides) and argument corners
(negative and out-of-range dims, huge steps and starts, NaN bounds). For each
case: if both libraries return, shapes, dtypes and values must agree (NaN
equal to NaN; float tolerance for reductions and transcendental functions); if
aakaar raises, its error must be one of its documented types; where torch
raises, aakaar must raise an exception caught as torch's is (except the
documented acceptances in fuzz_torch_common.torch_refusal_we_accept). In this
group ("ops") aakaar may refuse inputs PyTorch accepts (on purpose, listed in
test_torch_errors.py); the groups "matmul", "index" (fuzz_torch_matmul_index.py),
"autograd" (fuzz_torch_autograd.py), "math" and "sortconv" (fuzz_torch_math.py)
allow only the refusals they document.
"""

from __future__ import annotations

import sys
import warnings

import numpy as np
import torch
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

import aakaar as ak
from fuzz_torch_autograd import AUTOGRAD_CASES, run_autograd_case
from fuzz_torch_common import OUTCOMES, ALLOWED, BIG, DTYPES, SPECIAL_FLOATS, SPECIAL_INTS, Skip, arrays, compare
from fuzz_torch_matmul_index import INDEX_CASES, MATMUL_CASES, run_index_case, run_matmul_case
from fuzz_torch_math import MATH_CASES, SORTCONV_CASES, run_math_case, run_sortconv_case

@st.composite
def viewed(draw):
    """(array, list of view steps): the steps are applied to both libraries' tensors."""
    arr = draw(arrays())
    steps = []
    ndim = arr.ndim
    for _ in range(draw(st.integers(0, 2))):
        kind = draw(st.sampled_from(["t", "slice", "expand", "strided"]))
        if kind == "t" and ndim >= 2:
            steps.append(("transpose", 0, ndim - 1))
        elif kind == "slice" and ndim >= 1:
            steps.append(("slice", draw(st.integers(0, ndim - 1)), draw(st.sampled_from([None, 0, 1, -1, -BIG, BIG])),
                          draw(st.sampled_from([None, 1, 3, -2, BIG])), draw(st.sampled_from([1, 2, 3]))))
            # (No huge step here: PyTorch truncates it and gets x[::2**63-1] wrong -- an empty
            # result; test_size_arithmetic_overflow.py checks ours against Python's rule.)
        elif kind == "expand":
            steps.append(("expand_new", draw(st.integers(0, 3))))
        elif kind == "strided":
            steps.append(("strided1",))
    return arr, steps


def apply_steps(x, steps, lib):
    for s in steps:
        if s[0] == "transpose":
            x = x.transpose(s[1], s[2])
        elif s[0] == "slice":
            idx = [slice(None)] * x.ndim
            if s[1] >= x.ndim:
                continue
            idx[s[1]] = slice(s[2], s[3], s[4])
            x = x[tuple(idx)]
        elif s[0] == "expand_new":
            x = x.unsqueeze(0).expand(s[1], *x.shape)
        elif s[0] == "strided1":
            # a size-1 leading dim with a huge stride (never stepped along)
            if x.numel() > 0 and x.is_contiguous():
                x = x.as_strided((1,) + tuple(x.shape), (2**40,) + tuple(x.stride()), x.storage_offset())
    return x


def prepared(arr, steps):
    """The same view chain in both libraries (Skip when torch refuses a step; aakaar may only refuse
    with one of its documented error types)."""
    try:
        a = apply_steps(ak.tensor(arr), steps, ak)
    except ALLOWED:
        raise Skip from None
    try:
        t = apply_steps(torch.tensor(arr), steps, torch)
    except Exception:
        raise Skip from None
    return a, t


# (Not sign: aakaar's sign(NaN) is NaN, as numpy's; PyTorch's is 0.)
UNARY = ["neg", "abs", "exp", "sigmoid", "tanh", "relu", "floor", "sqrt", "square", "logical_not"]
BINARY = ["add", "sub", "mul", "div", "floor_divide", "remainder", "maximum", "minimum", "eq", "lt", "pow"]


CASES = st.one_of(
    st.tuples(st.just("unary"), viewed(), st.sampled_from(UNARY)),
    st.tuples(st.just("binary"), viewed(), viewed(), st.sampled_from(BINARY)),
    st.tuples(st.just("scalar"), viewed(), st.sampled_from(["add", "mul", "sub"]),
              st.one_of(st.sampled_from(SPECIAL_INTS), st.sampled_from(SPECIAL_FLOATS))),
    st.tuples(st.just("clamp"), viewed(), st.sampled_from([None, 0, 1.5, float("nan"), -1e300]),
              st.sampled_from([None, 2, float("nan"), 1e300])),
    st.tuples(st.just("reduce"), viewed(), st.sampled_from(["sum", "amax", "amin", "mean", "prod", "any", "all"]),
              st.sampled_from([None, 0, -1, 1, 5])),
    st.tuples(st.just("convert"), viewed(), st.sampled_from(DTYPES)),
    st.tuples(st.just("narrow"), viewed(), st.integers(-2, 3), st.sampled_from([0, 1, -1, BIG, -BIG]),
              st.sampled_from([0, 1, 2, BIG])),
    st.tuples(st.just("split"), viewed(), st.sampled_from([1, 2, BIG, [1, 1], [BIG, BIG], [0, 0]]), st.integers(-1, 1)),
    st.tuples(st.just("chunk"), viewed(), st.sampled_from([1, 2, 3, 7]), st.integers(-1, 1)),
    st.tuples(st.just("flatten"), viewed(), st.integers(-3, 3), st.integers(-3, 3)),
)


def run_case(case):
    kind = case[0]
    if kind == "unary":
        (arr, steps), op = case[1], case[2]
        a, t = prepared(arr, steps)
        compare(op, lambda: getattr(a, op)(), lambda: getattr(t, op)(), rtol=1e-5)
    elif kind == "binary":
        (arr1, s1), (arr2, s2), op = case[1], case[2], case[3]
        a1, t1 = prepared(arr1, s1)
        a2, t2 = prepared(arr2, s2)
        compare(op, lambda: getattr(a1, op)(a2), lambda: getattr(t1, op)(t2), rtol=1e-5)
    elif kind == "scalar":
        (arr, steps), op, v = case[1], case[2], case[3]
        a, t = prepared(arr, steps)
        compare(op, lambda: getattr(a, op)(v), lambda: getattr(t, op)(v), rtol=1e-6)
    elif kind == "clamp":
        (arr, steps), lo, hi = case[1], case[2], case[3]
        if lo is None and hi is None:
            return
        a, t = prepared(arr, steps)
        compare("clamp", lambda: a.clamp(lo, hi), lambda: t.clamp(lo, hi))
    elif kind == "reduce":
        (arr, steps), op, dim = case[1], case[2], case[3]
        a, t = prepared(arr, steps)
        if dim is None:
            compare(op, lambda: getattr(a, op)(), lambda: getattr(t, op)(), rtol=1e-4)
        else:
            compare(op, lambda: getattr(a, op)(dim), lambda: getattr(t, op)(dim), rtol=1e-4)
    elif kind == "convert":
        (arr, steps), dt = case[1], case[2]
        a, t = prepared(arr, steps)
        compare("to", lambda: a.to(getattr(ak, dt)), lambda: t.to(getattr(torch, dt)))
    elif kind == "narrow":
        (arr, steps), dim, start, length = case[1:]
        a, t = prepared(arr, steps)
        compare("narrow", lambda: a.narrow(dim, start, length), lambda: t.narrow(dim, start, length))
    elif kind == "split":
        (arr, steps), size, dim = case[1:]
        a, t = prepared(arr, steps)
        compare("split", lambda: list(a.split(size, dim)), lambda: list(t.split(size, dim)))
    elif kind == "chunk":
        (arr, steps), n, dim = case[1:]
        a, t = prepared(arr, steps)
        compare("chunk", lambda: list(a.chunk(n, dim)), lambda: list(t.chunk(n, dim)))
    elif kind == "flatten":
        (arr, steps), s, e = case[1:]
        a, t = prepared(arr, steps)
        compare("flatten", lambda: a.flatten(s, e), lambda: t.flatten(s, e))


# Each group: its strategy and how one case runs. "ops" is the first campaign's (lenient
# comparison), the others compare strictly (fuzz_torch_common.strict).
GROUPS = {
    "ops": (CASES, run_case),
    "matmul": (MATMUL_CASES, run_matmul_case),
    "index": (INDEX_CASES, run_index_case),
    "autograd": (AUTOGRAD_CASES, run_autograd_case),
    "math": (MATH_CASES, run_math_case),
    "sortconv": (SORTCONV_CASES, run_sortconv_case),
}


def main() -> None:
    group, n_examples, seed_value, last_case = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    strategy, run = GROUPS[group]

    @seed(seed_value)
    @settings(max_examples=n_examples, deadline=None, database=None, derandomize=False,
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def fuzz(case):
        with open(last_case, "w") as f:
            f.write(repr(case))
        try:
            run(case)
        except Skip:
            pass

    np.seterr(all="ignore")
    warnings.simplefilter("ignore")
    fuzz()
    print("fuzz: ok", group, n_examples, "examples", dict(OUTCOMES))


if __name__ == "__main__":
    main()
