"""Bad input: each case of the issue raises a Python exception whose message
names the shapes, dtypes or indices involved, and never crashes the process.

The cases are source strings so that the last test can also run all of them
in a fresh interpreter and check that it exits normally: a segfault in any
case shows up there as a clear failure instead of killing the test run."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import aakaar

# (id, code, exception type, fragments the message must contain)
CASES = [
    # shapes that do not broadcast
    ("broadcast_add", "aakaar.zeros(2, 3) + aakaar.zeros(4)", ValueError, ["[2, 3]", "[4]", "broadcast"]),
    ("broadcast_where", "aakaar.where(aakaar.zeros(3, dtype=aakaar.bool), aakaar.zeros(2), 0.0)", ValueError, ["[3]", "[2]"]),
    ("broadcast_expand", "aakaar.zeros(3).expand(2, 4)", ValueError, ["[3]", "[2, 4]"]),
    ("broadcast_shapes", "aakaar.broadcast_shapes((2, 3), (3, 2))", ValueError, ["[2, 3]", "[3, 2]"]),
    ("broadcast_masked_fill", "aakaar.zeros(3).masked_fill(aakaar.zeros(2, 3, dtype=aakaar.bool), 1.0)", ValueError, ["[2, 3]", "[3]"]),
    # matmul inner-dimension mismatch
    ("matmul_inner", "aakaar.zeros(2, 3) @ aakaar.zeros(4, 5)", ValueError, ["[2, 3]", "[4, 5]", "3 != 4"]),
    ("matmul_vec", "aakaar.zeros(3) @ aakaar.zeros(4)", ValueError, ["[3]", "[4]"]),
    ("matmul_batch", "aakaar.zeros(2, 2, 3) @ aakaar.zeros(3, 3, 4)", ValueError, ["[2]", "[3]"]),
    ("matmul_0d", "aakaar.zeros(()) @ aakaar.zeros(3)", ValueError, ["[]", "[3]"]),
    ("mm_inner", "aakaar.zeros(2, 3).mm(aakaar.zeros(2, 3))", ValueError, ["[2, 3]", "3 != 2"]),
    ("bmm_rank", "aakaar.bmm(aakaar.zeros(2, 3), aakaar.zeros(3, 2))", ValueError, ["3-d", "[2, 3]"]),
    ("bmm_batch", "aakaar.bmm(aakaar.zeros(2, 2, 3), aakaar.zeros(3, 3, 2))", ValueError, ["[2, 2, 3]", "[3, 3, 2]"]),
    # index out of range, in every indexing op
    ("getitem_int", "aakaar.zeros(3, 4)[3]", IndexError, ["index 3", "size 3"]),
    ("getitem_neg", "aakaar.zeros(3, 4)[:, -5]", IndexError, ["-5", "dimension 1", "size 4"]),
    ("getitem_too_many", "aakaar.zeros(3)[0, 0]", IndexError, ["too many indices", "1"]),
    ("getitem_0d", "aakaar.tensor(1.0)[0]", IndexError, ["too many indices", "dimension 0"]),
    ("getitem_tensor", "aakaar.zeros(3, 4)[aakaar.tensor([0, 3])]", IndexError, ["index 3", "size 3"]),
    ("getitem_list", "aakaar.zeros(3, 4)[:, [1, 4]]", IndexError, ["index 4", "dimension 1", "size 4"]),
    ("getitem_mask", "aakaar.zeros(3, 4)[aakaar.tensor([True, False])]", IndexError, ["[2]", "[3, 4]"]),
    ("getitem_float", "aakaar.zeros(3)[1.5]", IndexError, ["float"]),
    ("getitem_float_tensor", "aakaar.zeros(3)[aakaar.tensor([1.0])]", IndexError, ["float32"]),
    ("setitem_int", "aakaar.zeros(3)[5] = 1.0", IndexError, ["index 5", "size 3"]),
    ("setitem_tensor", "aakaar.zeros(3)[aakaar.tensor([-4])] = 1.0", IndexError, ["-4", "size 3"]),
    ("index_put", "aakaar.zeros(3).index_put_([aakaar.tensor([3])], aakaar.tensor(1.0))", IndexError, ["index 3", "size 3"]),
    ("index_select", "aakaar.zeros(3, 4).index_select(1, aakaar.tensor([4]))", IndexError, ["index 4", "dimension 1", "size 4"]),
    ("gather", "aakaar.zeros(3, 4).gather(1, aakaar.tensor([[0, 4]]))", RuntimeError, ["index 4", "dimension 1", "size 4"]),
    ("gather_neg", "aakaar.zeros(3, 4).gather(0, aakaar.tensor([[-1]]))", RuntimeError, ["-1", "dimension 0"]),
    ("scatter", "aakaar.zeros(3, 4).scatter(0, aakaar.tensor([[3]]), 1.0)", RuntimeError, ["index 3", "size 3"]),
    ("scatter_add", "aakaar.zeros(3).scatter_add_(0, aakaar.tensor([7]), aakaar.ones(1))", RuntimeError, ["index 7", "size 3"]),
    ("select", "aakaar.zeros(3, 4).select(1, 4)", IndexError, ["index 4", "dimension 1", "size 4"]),
    ("narrow", "aakaar.zeros(3, 4).narrow(1, 2, 3)", RuntimeError, ["start 2", "length 3", "size 4"]),
    ("narrow_start", "aakaar.zeros(3, 4).narrow(1, 5, 0)", IndexError, ["start 5", "[-4, 4]", "size 4"]),
    ("unbind_0d", "aakaar.tensor(1.0).unbind(0)", IndexError, ["unbind", "0-d"]),
    ("narrow_0d", "aakaar.tensor(1.0).narrow(0, 0, 1)", RuntimeError, ["narrow", "0-d"]),
    ("split_0d", "aakaar.tensor(1.0).split(1)", RuntimeError, ["split", "0-d"]),
    ("chunk_0d", "aakaar.tensor(1.0).chunk(1)", RuntimeError, ["chunk", "0-d"]),
    # gather and the scatters raise RuntimeError for an index out of range, as torch (x[idx] IndexError)
    ("size_0d", "aakaar.tensor(1.0).size(0)", IndexError, ["0-d"]),
    ("stride_0d", "aakaar.tensor(1.0).stride(0)", IndexError, ["0-d"]),
    ("item_many", "aakaar.zeros(2).item()", ValueError, ["2 elements", "[2]"]),
    # a view that cannot be a view
    ("view_transposed", "aakaar.zeros(3, 4).T.view(12)", RuntimeError, ["[12]", "[4, 3]", ".reshape", ".contiguous()"]),
    ("view_sliced", "aakaar.zeros(4, 4)[:, :2].view(8)", RuntimeError, ["[8]", "[4, 2]", "[4, 1]", ".reshape"]),
    ("unflatten_view", "aakaar.zeros(3, 4).T.unflatten(0, (2, 2)).view(-1)", RuntimeError, [".reshape"]),
    # invalid dim
    ("dim_sum", "aakaar.zeros(2, 3).sum(2)", IndexError, ["[-2, 1]", "got 2"]),
    ("dim_transpose", "aakaar.zeros(2, 3).transpose(0, -3)", IndexError, ["[-2, 1]", "-3"]),
    ("dim_softmax", "aakaar.zeros(2, 3).softmax(5)", IndexError, ["[-2, 1]", "5"]),
    ("dim_cat", "aakaar.cat([aakaar.zeros(2), aakaar.zeros(2)], 1)", IndexError, ["[-1, 0]", "1"]),
    ("dim_unsqueeze", "aakaar.zeros(2).unsqueeze(3)", IndexError, ["[-2, 1]", "3"]),
    ("dim_permute_dup", "aakaar.zeros(2, 3).permute(0, 0)", ValueError, ["dim 0", "more than once"]),
    ("dim_permute_len", "aakaar.zeros(2, 3).permute(0)", ValueError, ["2 dims", "[2, 3]"]),
    ("dim_repeated", "aakaar.zeros(2, 3).sum((1, -1))", ValueError, ["dim 1", "multiple times"]),
    ("dim_max", "aakaar.zeros(2, 3).max(2)", IndexError, ["[-2, 1]", "2"]),
    ("dim_gather", "aakaar.zeros(2, 3).gather(2, aakaar.zeros(2, 3, dtype=aakaar.int64))", IndexError, ["[-2, 1]"]),
    # dtype an op does not support
    ("dtype_mean", "aakaar.zeros(2, dtype=aakaar.int64).mean()", TypeError, ["int64", "floating"]),
    ("dtype_var", "aakaar.zeros(2, dtype=aakaar.uint8).var()", TypeError, ["uint8"]),
    ("dtype_matmul", "aakaar.zeros(2, 2, dtype=aakaar.bool) @ aakaar.zeros(2, 2, dtype=aakaar.bool)", TypeError, ["bool", "float32"]),
    ("dtype_matmul_mixed", "aakaar.zeros(2, 2) @ aakaar.zeros(2, 2, dtype=aakaar.float64)", TypeError, ["float32", "float64"]),
    ("dtype_bool_sub", "aakaar.zeros(2, dtype=aakaar.bool) - aakaar.zeros(2, dtype=aakaar.bool)", TypeError, ["bool"]),
    ("dtype_bool_neg", "-aakaar.zeros(2, dtype=aakaar.bool)", TypeError, ["bool", "logical_not"]),
    ("dtype_invert_float", "~aakaar.zeros(2)", TypeError, ["bool", "float32"]),
    ("dtype_and_float", "aakaar.zeros(2) & aakaar.zeros(2)", TypeError, ["float32"]),  # ints: bitwise, as torch
    ("dtype_index", "aakaar.zeros(3).index_select(0, aakaar.tensor([0.0]))", TypeError, ["int64", "float32"]),
    ("dtype_gather", "aakaar.zeros(3).gather(0, aakaar.tensor([True]))", TypeError, ["int64", "bool"]),
    ("dtype_where", "aakaar.where(aakaar.zeros(2), aakaar.zeros(2), aakaar.ones(2))", TypeError, ["bool", "float32"]),
    ("dtype_masked_fill", "aakaar.zeros(2).masked_fill(aakaar.zeros(2, dtype=aakaar.int64), 1.0)", TypeError, ["bool", "int64"]),
    ("dtype_masked_fill_value", "aakaar.zeros(2, dtype=aakaar.int64).masked_fill(aakaar.ones(2, dtype=aakaar.bool), 0.5)", TypeError, ["int64", "0.5"]),
    ("dtype_rand", "aakaar.rand(3, dtype=aakaar.int64)", TypeError, ["int64"]),
    ("dtype_cumsum_inplace", "aakaar.zeros(2, dtype=aakaar.int64).exp_()", TypeError, ["int64"]),
    ("dtype_bernoulli", "aakaar.bernoulli(aakaar.zeros(2, dtype=aakaar.int64))", TypeError, ["int64"]),
    ("dtype_arg", "aakaar.zeros(2, dtype='float32')", TypeError, ["dtype"]),
    # in-place op whose result would need another shape or dtype
    ("inplace_shape", "aakaar.zeros(3).add_(aakaar.zeros(2, 3))", ValueError, ["[3]", "[2, 3]"]),
    ("inplace_shape_op", "t = aakaar.zeros(1, 3); t *= aakaar.zeros(4, 1)", ValueError, ["[1, 3]", "[4, 3]"]),
    ("inplace_dtype", "aakaar.zeros(3, dtype=aakaar.int64).mul_(aakaar.ones(3))", TypeError, ["float32", "int64"]),
    ("inplace_div_int", "aakaar.zeros(3, dtype=aakaar.int64).div_(2)", TypeError, ["float32", "int64"]),
    ("inplace_expanded", "aakaar.zeros(1, 3).expand(2, 3).add_(1)", RuntimeError, ["memory location", "clone"]),
    ("inplace_masked_fill_shape", "aakaar.zeros(3).masked_fill_(aakaar.zeros(2, 3, dtype=aakaar.bool), 1.0)", ValueError, ["[2, 3]", "[3]"]),
    # negative sizes
    ("neg_zeros", "aakaar.zeros(2, -1)", ValueError, ["[2, -1]", "negative"]),
    ("neg_empty", "aakaar.empty(-3)", ValueError, ["[-3]"]),
    ("neg_full", "aakaar.full((-1,), 1.0)", ValueError, ["[-1]"]),
    ("neg_rand", "aakaar.randn(2, -2)", ValueError, ["[2, -2]"]),
    ("neg_reshape", "aakaar.zeros(4).reshape(-2, 2)", ValueError, ["[-2, 2]"]),
    ("neg_reshape_two", "aakaar.zeros(4).reshape(-1, -1)", ValueError, ["[-1, -1]", "one dimension"]),
    ("neg_reshape_size", "aakaar.zeros(4).reshape(3, -1)", RuntimeError, ["[3, -1]", "size 4"]),
    ("neg_expand", "aakaar.zeros(1).expand(-2)", ValueError, ["-2"]),
    ("neg_eye", "aakaar.eye(-1)", ValueError, ["-1"]),
    ("neg_linspace", "aakaar.linspace(0, 1, -1)", ValueError, ["-1"]),
    ("neg_randperm", "aakaar.randperm(-5)", ValueError, ["-5"]),
    ("neg_narrow", "aakaar.zeros(3).narrow(0, 0, -1)", RuntimeError, ["length -1"]),
    ("neg_split", "aakaar.zeros(3).split([2, -1, 2])", ValueError, ["[2, -1, 2]"]),
    ("neg_as_strided", "aakaar.zeros(3).as_strided((-1,), (1,))", ValueError, ["[-1]"]),
    ("huge_shape", "aakaar.zeros(2**40, 2**40)", ValueError, ["[1099511627776, 1099511627776]"]),
    ("huge_arange", "aakaar.arange(0, 1e20, 1e-20)", ValueError, ["arange", "2^63"]),
    # ragged nested lists
    ("ragged", "aakaar.tensor([[1, 2], [3]])", ValueError, ["ragged", "data[0]", "[2]", "data[1]", "[1]"]),
    ("ragged_deep", "aakaar.tensor([[[1], [2]], [[3], 4]])", ValueError, ["ragged", "data[1]"]),
    ("ragged_str", "aakaar.tensor([1, 'a'])", TypeError, ["str", "data[1]"]),
    ("tensor_bad_object", "aakaar.tensor({'a': 1})", TypeError, ["dict"]),
    ("tensor_overflow", "aakaar.tensor([2**70])", ValueError, ["int64"]),
    # numpy arrays with unsupported dtypes or negative strides
    ("numpy_uint32", "aakaar.from_numpy(np.zeros(3, dtype=np.uint32))", TypeError, ["uint32", "astype"]),
    ("numpy_complex", "aakaar.from_numpy(np.zeros(3, dtype=np.complex64))", TypeError, ["complex64"]),
    ("numpy_uint16", "aakaar.from_numpy(np.zeros(3, dtype=np.uint16))", TypeError, ["uint16"]),
    ("numpy_object", "aakaar.tensor(np.array([1, None], dtype=object))", TypeError, ["object"]),
    ("numpy_negative_strides", "aakaar.from_numpy(np.arange(5.0)[::-1])", ValueError, ["negative strides", "[-8]", "copy"]),
    ("numpy_negative_strides_2d", "aakaar.from_numpy(np.zeros((2, 3))[:, ::-1])", ValueError, ["negative strides", "[24, -8]"]),
    ("numpy_big_endian", "aakaar.from_numpy(np.zeros(3, dtype='>f8'))", ValueError, ["big-endian"]),
    ("numpy_unaligned_strides", "aakaar.from_numpy(np.lib.stride_tricks.as_strided(np.zeros(8), (3,), (12,)))", ValueError, ["12", "item size"]),
    # as_strided that would read outside its storage
    ("as_strided_oob", "aakaar.zeros(6).as_strided((3, 3), (3, 1))", RuntimeError, ["[3, 3]", "[3, 1]", "element 8", "6 elements"]),
    ("as_strided_offset", "aakaar.zeros(6).as_strided((2,), (1,), 5)", RuntimeError, ["offset 5", "6 elements"]),
    ("as_strided_view", "aakaar.zeros(6)[4:].as_strided((3,), (1,))", RuntimeError, ["offset 4", "element 6"]),
    ("as_strided_overflow", "aakaar.zeros(3).as_strided((2**62, 2), (2**62, 1))", RuntimeError, ["as_strided"]),
    ("as_strided_len", "aakaar.zeros(3).as_strided((3,), (1, 1))", ValueError, ["[3]", "[1, 1]"]),
    ("as_strided_neg_offset", "aakaar.zeros(3).as_strided((1,), (1,), -1)", ValueError, ["-1"]),
    # integer division by zero: an exception, not SIGFPE
    ("int_floordiv_zero", "aakaar.tensor([1, 2]) // 0", RuntimeError, ["ZeroDivisionError", "floor_divide"]),
    ("int_mod_zero", "aakaar.tensor([1, 2]) % aakaar.tensor([1, 0])", RuntimeError, ["ZeroDivisionError", "remainder"]),
    ("uint8_floordiv_zero", "aakaar.tensor([1], dtype=aakaar.uint8) // aakaar.tensor([0], dtype=aakaar.uint8)", RuntimeError, ["ZeroDivisionError"]),
    ("int_rfloordiv_zero", "5 // aakaar.tensor([0])", RuntimeError, ["ZeroDivisionError"]),
    ("int_inplace_mod_zero", "aakaar.tensor([4]).remainder_(0)", RuntimeError, ["ZeroDivisionError"]),
    ("uint8_negative_pow_scalar", "aakaar.tensor([2], dtype=aakaar.uint8) ** -1", ValueError, ["negative integer powers", "uint8"]),
    # other argument errors
    ("cat_mismatch", "aakaar.cat([aakaar.zeros(2, 3), aakaar.zeros(2, 4)])", ValueError, ["[2, 3]", "[2, 4]", "dim 0"]),
    ("stack_mismatch", "aakaar.stack([aakaar.zeros(2), aakaar.zeros(3)])", ValueError, ["[2]", "[3]", "entry 1"]),
    ("cat_empty", "aakaar.cat([])", ValueError, ["non-empty"]),
    ("gather_rank", "aakaar.zeros(2, 3).gather(0, aakaar.zeros(2, dtype=aakaar.int64))", ValueError, ["[2]", "[2, 3]"]),
    ("scatter_src_small", "aakaar.zeros(3, 3).scatter_(0, aakaar.zeros(2, 2, dtype=aakaar.int64), aakaar.zeros(1, 2))", ValueError, ["[2, 2]", "[1, 2]"]),
    ("split_sizes_sum", "aakaar.zeros(5).split([2, 2])", ValueError, ["[2, 2]", "4", "5"]),
    ("chunk_zero", "aakaar.zeros(5).chunk(0)", ValueError, ["chunks", "0"]),
    ("slice_step", "aakaar.zeros(5)[::-1]", ValueError, ["step", "-1"]),
    ("ellipsis_twice", "aakaar.zeros(2)[..., ...]", IndexError, ["ellipsis"]),
    ("arange_step0", "aakaar.arange(0, 5, 0)", ValueError, ["step", "nonzero"]),
    ("arange_sign", "aakaar.arange(5, 0, 1)", ValueError, ["start=5", "end=0"]),
    ("randint_range", "aakaar.randint(5, 5, (2,))", ValueError, ["low=5", "high=5"]),
    ("clamp_none", "aakaar.zeros(2).clamp()", ValueError, ["min", "max"]),
    ("device_unknown", "aakaar.zeros(2, device='tpu')", ValueError, ["tpu"]),
    ("threads_zero", "aakaar.set_num_threads(0)", ValueError, ["0"]),
    ("shape_float", "aakaar.zeros(2.5)", TypeError, ["float"]),
    ("dlpack_object", "aakaar.from_dlpack(3)", TypeError, ["__dlpack__"]),
    ("scalar_too_big", "aakaar.zeros(2, dtype=aakaar.int64) + 2**70", ValueError, ["int64"]),  # a float tensor takes it as a float
    ("max_empty", "aakaar.zeros(0).amax()", RuntimeError, ["[0]", "zero-size"]),
    ("argmax_empty", "aakaar.zeros(2, 0).argmax(1)", IndexError, ["[2, 0]", "size 0"]),
]


def run_case(code):
    exec(code, {"aakaar": aakaar, "np": np})


@pytest.mark.parametrize("code,exc,fragments", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_raises_a_clear_error(code, exc, fragments):
    with pytest.raises(exc) as info:
        run_case(code)
    msg = str(info.value)
    missing = [f for f in fragments if f not in msg]
    assert not missing, f"message {msg!r} lacks {missing}"


def test_no_bad_input_crashes_a_fresh_process():
    script = textwrap.dedent(
        """
        import sys
        import numpy as np
        import aakaar
        cases = %r
        for name, code in cases:
            try:
                exec(code, {"aakaar": aakaar, "np": np})
            except Exception:
                pass
            else:
                print("no exception:", name)
        print("survived", len(cases))
        """
    ) % ([(c[0], c[1]) for c in CASES],)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f"the process died (code {proc.returncode}): {proc.stderr[-2000:]}"
    assert f"survived {len(CASES)}" in proc.stdout
    assert "no exception" not in proc.stdout, proc.stdout
