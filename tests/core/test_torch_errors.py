"""Errors catchable the way PyTorch code catches them. torch raises most shape,
argument and dtype mistakes as RuntimeError; aakaar raises an ArgumentError
(a ValueError *and* a RuntimeError) or a DTypeError (a TypeError *and* a
RuntimeError), so ``except RuntimeError`` written for torch works, and so does
``except ValueError``. Index errors are IndexErrors in both."""

from __future__ import annotations

import pytest

import aakaar

# (id, code run with `lib` bound to aakaar or torch, the Python-habit class aakaar also raises)
CASES = [
    ("add_not_broadcastable", "lib.ones(2, 3) + lib.ones(4)", ValueError),
    ("mul_not_broadcastable", "lib.ones(2, 3).mul(lib.ones(2))", ValueError),
    ("inplace_add_shape", "lib.zeros(3).add_(lib.zeros(2, 3))", ValueError),
    ("matmul_shapes", "lib.ones(2, 3) @ lib.ones(4, 5)", ValueError),
    ("mm_shapes", "lib.mm(lib.ones(2, 3), lib.ones(2, 3))", ValueError),
    ("view_numel", "lib.ones(6).view(4)", ValueError),
    ("view_of_non_contiguous", "lib.ones(2, 3).t().view(6)", ValueError),
    ("reshape_numel", "lib.ones(6).reshape(4, 2)", ValueError),
    ("expand_size", "lib.ones(2, 3).expand(4, 3)", ValueError),
    ("cat_shapes", "lib.cat([lib.ones(2, 3), lib.ones(2, 4)])", ValueError),
    ("stack_shapes", "lib.stack([lib.ones(2), lib.ones(3)])", ValueError),
    ("scalar_of_many", "float(lib.ones(2))", ValueError),
    ("inplace_result_dtype", "lib.zeros(3, dtype=lib.int64).mul_(lib.ones(3))", TypeError),
    ("inplace_float_op_on_int", "lib.zeros(3, dtype=lib.int64).exp_()", TypeError),
    ("index_out_of_range", "lib.ones(3)[5]", IndexError),
    ("index_2d_out_of_range", "lib.ones(2, 3)[0, 3]", IndexError),
    ("dim_out_of_range", "lib.ones(2).sum(dim=3)", IndexError),
    ("index_select_out_of_range", "lib.ones(3).index_select(0, lib.tensor([7]))", IndexError),
]


def _raised(lib, code):
    try:
        exec(code, {"lib": lib})
    except Exception as e:  # noqa: BLE001  (the type is what is compared)
        return e
    return None


@pytest.mark.parametrize("case, code, habit", CASES, ids=[c[0] for c in CASES])
def test_torch_style_except_catches_aakaar_errors(case, code, habit, torch):
    theirs = _raised(torch, code)
    assert theirs is not None, f"torch accepts {code}"
    ours = _raised(aakaar, code)
    assert ours is not None, f"aakaar accepts {code}"
    # What a torch user wrote (`except RuntimeError`, `except IndexError`) catches ours.
    assert isinstance(ours, type(theirs)), f"{case}: torch raises {type(theirs).__name__}, aakaar {type(ours).__mro__}"
    # ... and so does the Python habit.
    assert isinstance(ours, habit)
    assert str(ours), "an error message that says what was wrong"


def test_except_clauses_in_both_habits():
    for handler in (RuntimeError, ValueError):
        try:
            aakaar.ones(2, 3) + aakaar.ones(4)
        except handler as e:
            assert "[2, 3]" in str(e) and "[4]" in str(e)
        else:
            pytest.fail("no error")
    try:
        aakaar.zeros(2, dtype=aakaar.int64).exp_()
    except RuntimeError as e:
        assert isinstance(e, TypeError) and "int64" in str(e)


def test_error_classes_are_exported():
    assert issubclass(aakaar.ArgumentError, ValueError) and issubclass(aakaar.ArgumentError, RuntimeError)
    assert issubclass(aakaar.DTypeError, TypeError) and issubclass(aakaar.DTypeError, RuntimeError)
    with pytest.raises(aakaar.ArgumentError):
        aakaar.ones(6).view(4)
    with pytest.raises(aakaar.DTypeError):
        aakaar.zeros(2, dtype=aakaar.int64).exp_()


def test_fused_linear_shape_error_is_a_runtime_error_too(torch):
    x, w = aakaar.ones(2, 3), aakaar.ones(4, 5)
    with pytest.raises(RuntimeError):
        torch.nn.functional.linear(torch.ones(2, 3), torch.ones(4, 5))
    with pytest.raises(RuntimeError, match=r"in_features=5"):
        aakaar.nn.functional.linear(x, w)
    with pytest.raises(ValueError):
        aakaar.nn.functional.linear(x, w)
