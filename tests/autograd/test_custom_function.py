"""aakaar.autograd.Function against torch.autograd.Function: the same class body, written once
for both libraries, gives the same values, gradients, graph behaviour and errors."""

from __future__ import annotations

import numpy as np
import pytest

import aakaar as ak
from aakaar.autograd import Function, once_differentiable

torch = pytest.importorskip("torch")


def make_exp(m):
    class Exp(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, grad):
            (y,) = ctx.saved_tensors
            return grad * y

    return Exp


def make_scaled_mul(m):
    # Tensor and non-tensor arguments, two outputs, ctx attributes, needs_input_grad.
    class ScaledMul(m.autograd.Function):
        @staticmethod
        def forward(ctx, a, b, scale):
            ctx.scale = scale
            ctx.save_for_backward(a, b)
            return a * b * scale, a + b

        @staticmethod
        def backward(ctx, g_prod, g_sum):
            a, b = ctx.saved_tensors
            ga = (g_prod * b * ctx.scale + g_sum) if ctx.needs_input_grad[0] else None
            gb = (g_prod * a * ctx.scale + g_sum) if ctx.needs_input_grad[1] else None
            return ga, gb, None

    return ScaledMul


def both(fn, *arrays, requires_grad=True):
    out = []
    for m in (ak, torch):
        ts = [m.tensor(a, requires_grad=requires_grad) for a in arrays]
        out.append((ts, fn(m, *ts)))
    return out


def test_values_gradients_and_node_name_match_torch():
    x = np.random.default_rng(0).standard_normal((3, 4))
    results = []
    for m in (ak, torch):
        t = m.tensor(x, requires_grad=True)
        y = make_exp(m).apply(t)
        assert type(y.grad_fn).__name__ == "ExpBackward" or y.grad_fn.name() == "ExpBackward"
        (y * y).sum().backward()
        results.append((np.asarray(y.detach().tolist()), np.asarray(t.grad.tolist())))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-12)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-12)


def test_mixed_arguments_two_outputs_and_needs_input_grad():
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal(5), rng.standard_normal(5)
    grads = []
    for m in (ak, torch):
        ta, tb = m.tensor(a, requires_grad=True), m.tensor(b)  # b needs no gradient
        prod, total = make_scaled_mul(m).apply(ta, tb, 3.0)
        (prod.sum() + 2 * total.sum()).backward()
        assert tb.grad is None
        grads.append(np.asarray(ta.grad.tolist()))
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12)


def test_gradcheck_in_float64_and_a_second_derivative():
    class Cube(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 3 * g * x * x  # written with ops: differentiable again under create_graph

    x = ak.tensor([0.5, -1.5, 2.0], dtype=ak.float64, requires_grad=True)
    assert ak.autograd.gradcheck(Cube.apply, (x,))
    (g,) = ak.autograd.grad(Cube.apply(x).sum(), x, create_graph=True)
    (gg,) = ak.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(gg.tolist(), [6 * v for v in [0.5, -1.5, 2.0]], rtol=1e-12)


def test_setup_context_style_and_output_returned_as_input():
    class Identity(Function):
        @staticmethod
        def forward(x):
            return x

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.seen = inputs[0].shape

        @staticmethod
        def backward(ctx, g):
            return 2 * g

    x = ak.ones(3, requires_grad=True)
    y = Identity.apply(x)
    assert y is not x and x.is_leaf and not y.is_leaf  # the argument keeps its own history
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]


def test_saved_tensor_changed_in_place_is_caught_and_saved_tensors_are_freed():
    for m in (ak, torch):
        x = m.ones(3, requires_grad=True)
        h = x * 1
        y = make_exp(m).apply(h)
        y.add_(1)  # the saved output changed before backward
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.sum().backward()
    for m in (ak, torch):
        x = m.ones(3, requires_grad=True)
        y = make_exp(m).apply(x)
        s = y.sum()
        s.backward()
        with pytest.raises(RuntimeError, match="second time"):
            s.backward()


def test_broadcast_gradients_are_summed_and_wrong_shapes_or_counts_refused():
    class Wide(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return g.expand(4, 3)  # broadcast to (4, 3): summed back to x's (3,)

    x = ak.ones(3, requires_grad=True)
    Wide.apply(x).sum().backward()
    assert x.grad.tolist() == [4.0, 4.0, 4.0]

    class WrongShape(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return ak.ones(5)

    with pytest.raises(RuntimeError, match="invalid gradient at index 0"):
        WrongShape.apply(ak.ones(3, requires_grad=True)).sum().backward()

    class TooFew(Function):
        @staticmethod
        def forward(ctx, a, b):
            return a * b

        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(RuntimeError, match="incorrect number of gradients"):
        TooFew.apply(ak.ones(2, requires_grad=True), ak.ones(2, requires_grad=True)).sum().backward()

    class GradForNumber(Function):
        @staticmethod
        def forward(ctx, a, k):
            return a * k

        @staticmethod
        def backward(ctx, g):
            return g, g

    with pytest.raises(RuntimeError, match="was not a Tensor"):
        GradForNumber.apply(ak.ones(2, requires_grad=True), 3.0).sum().backward()


def test_mark_non_differentiable_mark_dirty_and_errors_of_use():
    class SortWithIndex(Function):
        @staticmethod
        def forward(ctx, x):
            values, index = x.sort()
            ctx.mark_non_differentiable(index)
            ctx.save_for_backward(index)
            return values, index

        @staticmethod
        def backward(ctx, g_values, g_index):
            (index,) = ctx.saved_tensors
            out = ak.zeros(g_values.shape, dtype=g_values.dtype)
            out[index] = g_values
            return out

    x = ak.tensor([3.0, 1.0, 2.0], requires_grad=True)
    values, index = SortWithIndex.apply(x)
    assert not index.requires_grad
    (values * ak.tensor([1.0, 10.0, 100.0])).sum().backward()
    assert x.grad.tolist() == [100.0, 1.0, 10.0]

    class AddOneInPlace(Function):
        @staticmethod
        def forward(ctx, x):
            x.add_(1)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    leaf = ak.ones(2, requires_grad=True)
    h = leaf * 3
    out = AddOneInPlace.apply(h)
    assert out is h and h.grad_fn.name() == "AddOneInPlaceBackward"
    out.sum().backward()
    assert leaf.grad.tolist() == [3.0, 3.0]
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        AddOneInPlace.apply(ak.ones(2, requires_grad=True))

    with pytest.raises(RuntimeError, match="call Exp.apply"):
        make_exp(ak)()
    with pytest.raises(TypeError, match="save_for_backward can only save tensors"):
        class SavesNumber(Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(3)
                return x * 1
        SavesNumber.apply(ak.ones(1, requires_grad=True))


def test_once_differentiable_and_no_recording_without_grad():
    class Square(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * g * x

    x = ak.tensor([1.0, 2.0], requires_grad=True)
    (g,) = ak.autograd.grad(Square.apply(x).sum(), x, create_graph=True)
    assert g.tolist() == [2.0, 4.0] and not g.requires_grad
    with ak.no_grad():
        assert Square.apply(x).grad_fn is None
    assert Square.apply(ak.ones(2)).grad_fn is None  # no input needs a gradient


def test_a_backward_returning_something_else_than_tensors_is_a_type_error():
    class ReturnsText(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return "no"

    with pytest.raises(TypeError, match="returned a str as gradient 0"):
        ReturnsText.apply(ak.ones(2, requires_grad=True)).sum().backward()
