"""grad_fn as torch shows it: type(t.grad_fn).__name__ and t.grad_fn.name() are torch's node names
(MulBackward0, SumBackward1, MmBackward0, ...), next_functions reaches leaves through
AccumulateGrad nodes (whose name() is torch's "torch::autograd::AccumulateGrad" and whose
.variable is the leaf), and a custom Function's node keeps the name the user gave it."""

from __future__ import annotations

import re

import pytest

import aakaar

torch = pytest.importorskip("torch")

# Expressions over a, b (2x2, requiring grad), v (2), s (0-d) whose graphs torch and aakaar build
# alike: the node names are compared two levels deep.
EXPRS = [
    "a + b", "a - b", "a * b", "a / b", "a + 1", "a * 2", "-a", "a ** 2", "a.pow(3)", "a.sum()", "a.sum(0)",
    "a.sum(dim=1, keepdim=True)", "a.mean()", "a.mean(0)", "a.prod()", "a.max(0)", "a.min(1)", "a.amax(0)",
    "a.exp()", "a.log()", "a.sqrt()", "a.rsqrt()", "a.sin()", "a.cos()", "a.tanh()", "a.sigmoid()", "a.relu()",
    "a.abs()", "a.reciprocal()", "a.clamp(0, 2)", "a.clamp(min=0)", "a.clamp(T.tensor(0.), T.tensor(3.))",
    "a.clamp(min=T.tensor(1.))", "a.sign()", "a.floor()", "a.square()",
    "a.log1p()", "a.expm1()", "a.exp2()", "a.log2()", "a @ b", "a.mm(b)", "T.bmm(a[None], b[None])",
    "a.transpose(0, 1)", "a.permute(1, 0)", "a.T", "a.view(4)", "a.reshape(4)", "a.flatten()", "a.unsqueeze(0)",
    "a.squeeze()", "a.expand(2, 2, 2)", "a[0]", "a[0:1]", "a[T.tensor([0, 1])]", "a.clone()", "a.to(T.float64)",
    "a.double()", "T.cat([a, b])", "a.softmax(0)", "a.log_softmax(1)", "F.relu(a)", "F.gelu(a)", "F.silu(a)",
    "F.softplus(a)", "F.l1_loss(a, b)", "F.binary_cross_entropy(a.sigmoid(), b.sigmoid().detach())",
    "F.binary_cross_entropy_with_logits(a, b.detach())", "a.gather(1, T.tensor([[0], [1]]))",
    "T.where(a > 2, a, b)", "a.maximum(b)", "a.minimum(b)", "a.cumsum(0)", "a.cumprod(0)", "a.narrow(0, 0, 1)",
    "a.select(0, 1)", "a.diagonal()", "a.lerp(b, 0.5)", "a.hypot(b)", "a.atan2(b)", "a.fmod(1.5)", "a.erf()",
    "F.hardtanh(a)", "F.kl_div(a, b, reduction='batchmean')", "s * 2", "s.exp()", "a.sum() * 2",
    "a.mean() + b.mean()", "a.max(0).values.sum()",
    # ops that record through another op, under the name PyTorch gives them
    "a.t()", "a.index_select(0, T.tensor([1]))", "a.sort(0)", "a.topk(1)", "a.cummax(0)",
    "a.cummin(1)", "a.max()", "a.min()",
]


def _env(T):
    return {"T": T, "F": T.nn.functional, "a": T.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True),
            "b": T.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True), "v": T.tensor([1.0, 2.0], requires_grad=True),
            "s": T.tensor(2.0, requires_grad=True)}


def _names(fn, depth=3):
    """(class name, name(), [the same for each next function]) down to ``depth`` levels; edges to
    no node (constants) are left out: where a number operand sits is not part of the naming."""
    if fn is None or depth == 0:
        return None
    return (type(fn).__name__, fn.name(), [(_names(f, depth - 1), nr) for f, nr in fn.next_functions if f is not None])


def _graph_of(T, expr):
    out = eval(expr, _env(T))  # noqa: S307 (test expressions written here)
    return _names((out[0] if isinstance(out, tuple) else out).grad_fn)


@pytest.mark.parametrize("expr", EXPRS)
def test_node_names_as_torch(expr):
    assert _graph_of(aakaar, expr) == _graph_of(torch, expr)


@pytest.mark.parametrize("expr", ["T.stack([a, b])", "T.stack([a, b], 1)"])
def test_node_name_as_torch_where_the_graph_below_differs(expr):
    # aakaar's stack is a cat of unsqueezed views: the node is named as torch's, its inputs differ
    assert _graph_of(aakaar, expr)[:2] == _graph_of(torch, expr)[:2]


def test_leaves_are_reached_through_accumulate_grad():
    x = aakaar.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    acc, nr = y.grad_fn.next_functions[0]
    assert (type(acc).__name__, acc.name(), nr) == ("AccumulateGrad", "torch::autograd::AccumulateGrad", 0)
    assert acc.next_functions == () and acc.variable is x
    tx = torch.tensor([1.0, 2.0], requires_grad=True)
    t_acc = (tx * 2).grad_fn.next_functions[0][0]
    assert (type(t_acc).__name__, t_acc.name()) == (type(acc).__name__, acc.name())
    with pytest.raises(AttributeError, match="variable"):
        y.grad_fn.variable  # noqa: B018


def test_nodes_are_stable_objects_and_print_as_torch():
    x = aakaar.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    assert y.grad_fn is y.grad_fn
    mul = y.grad_fn.next_functions[0][0]
    assert mul is y.grad_fn.next_functions[0][0] and type(mul).__name__ == "MulBackward0"
    assert re.fullmatch(r"<SumBackward0 object at 0x[0-9a-f]+>", repr(y.grad_fn))
    assert isinstance(y.grad_fn, aakaar._C.autograd.Node) and isinstance(mul, aakaar._C.autograd.Node)
    assert repr(y) == "tensor(5., grad_fn=<SumBackward0>)"
    y.backward()  # the graph still runs after its nodes changed class
    assert x.grad.tolist() == [2.0, 4.0]


def test_custom_function_nodes_keep_their_name():
    class Double(aakaar.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    class TDouble(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    y = Double.apply(aakaar.tensor([1.0], requires_grad=True))
    ty = TDouble.apply(torch.tensor([1.0], requires_grad=True))
    assert (type(y.grad_fn).__name__, y.grad_fn.name()) == ("DoubleBackward", "DoubleBackward")
    assert type(ty.grad_fn).__name__ == "TDoubleBackward" and ty.grad_fn.name() == "TDoubleBackward"


@pytest.mark.parametrize("expr", ["a.sum(0)", "a.mean(1, keepdim=True)", "a.prod(0)", "a.amax(1)", "a.max(1).values",
                                  "a.min(0, keepdim=True).values", "a @ b", "a.mm(b.t())"])
def test_folded_nodes_keep_their_gradients(expr):
    # sum/mean/prod/amax/max(dim) record one node whatever keepdim, mm one node: the gradients
    # are unchanged, against finite differences
    a = aakaar.tensor([[1.0, -2.0, 0.5], [3.0, 0.25, -1.5]], dtype=aakaar.float64, requires_grad=True)
    b = aakaar.tensor([[0.5, 1.0], [-1.0, 2.0], [0.75, -0.5]], dtype=aakaar.float64, requires_grad=True)
    if "b.t()" in expr:
        b = aakaar.tensor([[0.5, 1.0, 2.0], [-1.0, 2.0, 0.5]], dtype=aakaar.float64, requires_grad=True)
    fn = lambda a, b: eval(expr, {"a": a, "b": b})  # noqa: E731,S307
    assert aakaar.autograd.gradcheck(fn, (a, b))
