"""The engine's behaviour: accumulation, retain_graph, create_graph (double
backward), leaves and non-leaves, grad modes, hooks, version counters, and
long chains (the engine is iterative, never recursive)."""

from __future__ import annotations

import numpy as np
import pytest

import aakaar
from aakaar import autograd


def leaf(values, dtype=aakaar.float64):
    return aakaar.tensor(values, dtype=dtype).requires_grad_()


def close(t, expected, **kw):
    got = t if isinstance(t, np.ndarray) else t.detach().numpy()
    np.testing.assert_allclose(got, np.asarray(expected, dtype=np.float64), **kw)


# ---- accumulation and retain_graph -----------------------------------------------------


def test_gradients_accumulate_across_backward_calls():
    x = leaf([1.0, -2.0, 3.0])
    (x * x).sum().backward()
    (x * x).sum().backward()  # a fresh graph: adds into the same .grad
    close(x.grad, 4 * np.array([1.0, -2.0, 3.0]))
    x.grad = None
    (x * 3).sum().backward()
    close(x.grad, [3.0, 3.0, 3.0])


def test_retain_graph_allows_a_second_backward_and_then_frees():
    x = leaf([0.5, 1.5])
    y = (x.exp() * x).sum()
    y.backward(retain_graph=True)
    y.backward()  # allowed: the first call kept the graph
    close(x.grad, 2 * np.exp([0.5, 1.5]) * (1 + np.array([0.5, 1.5])))
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()


def test_shared_subexpression_gets_both_gradients():
    x = leaf([2.0])
    a = x * x  # used twice below: the engine must wait for both before running a's node
    (a * 3 + a.exp()).sum().backward()
    close(x.grad, [2 * 2.0 * (3 + np.exp(4.0))])


# ---- create_graph: double backward, against torch ------------------------------------------

DOUBLE = {
    "cube": lambda L, x, y: (x**3).sum(),
    "tanh_sigmoid_exp": lambda L, x, y: (x.tanh() * x.sigmoid() + (x * 0.3).exp()).sum(),
    "mul_div": lambda L, x, y: (x * y / (y * y + 1)).sum(),
    "matmul": lambda L, x, y: ((x @ y.transpose(0, 1)) ** 2).sum(),
    "softmax": lambda L, x, y: (x.softmax(1) * y).sum(),
    "log_softmax": lambda L, x, y: (x.log_softmax(0) * y).sum(),
    "logsumexp": lambda L, x, y: x.logsumexp(1).sum() * y.sum(),
    "mean_var": lambda L, x, y: x.var(1).sum() + (x.mean(0) ** 2).sum(),
    "sum_squared": lambda L, x, y: x.sum() ** 2 + (x.amax(1) * y.amin(1)).sum(),
    "views": lambda L, x, y: (x.transpose(0, 1)[1:].reshape(-1) ** 2).sum() * y[0, 0],
    "sqrt_log": lambda L, x, y: ((x * x + 1).sqrt() * (y * y + 1).log()).sum(),
    # prod and pow save their outputs: under create_graph those must be recomputed with history.
    "prod": lambda L, x, y: (x.prod(1) * y.sum(1)).sum() + (x + 3).prod() * 0.1,
    "pow_tensor_exponent": lambda L, x, y: ((x * x + 0.5) ** y).sum(),
    "fused_linear": lambda L, x, y: (L.linear(x, y, y[:, 0], relu=True) ** 2).sum() + L.linear(x, y).tanh().sum(),
    "index_gather_cat": lambda L, x, y: (L.cat([x[:, [0, 0, 2]], y.gather(1, L.tensor(np.array([[1, 1, 0]] * 2)))], 1) ** 3).sum(),
}


@pytest.mark.parametrize("name", sorted(DOUBLE))
def test_double_backward_matches_torch(name):
    torch = pytest.importorskip("torch")
    from autograd_cases import AK, TORCH

    rng = np.random.default_rng(7)
    xv, yv, wv = rng.standard_normal((3, 2, 3))
    fn = DOUBLE[name]
    results = []
    for L, make in ((AK, lambda v: aakaar.from_numpy(v.copy()).requires_grad_()),
                    (TORCH, lambda v: torch.tensor(v, requires_grad=True))):
        x, y = make(xv), make(yv)
        grad = autograd.grad if L is AK else torch.autograd.grad
        gx, gy = grad(fn(L, x, y), (x, y), create_graph=True, allow_unused=True)
        w = aakaar.from_numpy(wv.copy()) if L is AK else torch.from_numpy(wv.copy())
        second = (gx * w).sum() + ((gy * gy).sum() if gy is not None else 0)
        if second.requires_grad:
            second.backward()
        results.append([np.zeros(xv.shape) if t is None else t.detach().numpy().copy() for t in (gx, gy, x.grad, y.grad)])
    for ours, ref, what in zip(*results, ["dx", "dy", "d(dx.w + dy^2)/dx", "d(dx.w + dy^2)/dy"]):
        np.testing.assert_allclose(ours, ref, rtol=1e-9, atol=1e-12, err_msg=f"{name}: {what}")


def test_accumulating_a_broadcast_gradient_twice():
    # sum's backward hands each leaf a stride-0 view of one number; .grad must
    # own its memory so the next backward can add into it.
    x = leaf([1.0, 2.0, 3.0])
    x.sum().backward()
    x.sum().backward()
    close(x.grad, [2.0, 2.0, 2.0])
    assert x.grad.is_contiguous()


def test_gradient_argument_is_never_written_into():
    g = aakaar.ones(2, 2, dtype=aakaar.float64)
    x = leaf([0.0, 0.0, 0.0, 0.0])
    x.view(2, 2).backward(g)  # the leaf's gradient is a view of g
    x.view(2, 2).backward(g)  # accumulating must not write into g
    close(g, np.ones((2, 2)))
    close(x.grad, [2.0, 2.0, 2.0, 2.0])


def test_sibling_gradients_do_not_share_memory():
    a, b = leaf([1.0, 2.0]), leaf([3.0])
    aakaar.cat([a, b]).sum().backward()  # both grads come from one buffer
    a.grad.mul_(10)
    close(b.grad, [1.0])


def test_backward_with_inputs_accumulates_only_into_them():
    a, b = leaf([1.0]), leaf([2.0])
    g = aakaar.ones(1, dtype=aakaar.float64)
    (a * b).backward(g, inputs=[a])
    (a * b).backward(g, inputs=[a])
    close(a.grad, [4.0])
    close(g, [1.0])
    assert b.grad is None


def test_create_graph_gradient_has_history_and_leaf_grad_too():
    x = leaf([1.0, 2.0])
    (x**3).sum().backward(create_graph=True)
    assert x.grad.requires_grad and x.grad.grad_fn is not None
    g = x.grad
    x.grad = None
    g.sum().backward()
    close(x.grad, 6 * np.array([1.0, 2.0]))


# ---- requires_grad, leaves, retain_grad, detach -----------------------------------------------


def test_requires_grad_propagates():
    x = leaf([1.0, 2.0])
    c = aakaar.tensor([3.0, 4.0], dtype=aakaar.float64)
    assert (x * c).requires_grad and (c + x).requires_grad and x.sum().requires_grad
    assert not (c * 2).requires_grad and (c * 2).grad_fn is None
    assert not x.detach().requires_grad
    assert not (x > 1).requires_grad  # comparisons give bool results, never differentiable
    assert not x.argmax().requires_grad
    v, i = x.max(0)
    assert v.requires_grad and not i.requires_grad


def test_leaf_and_non_leaf():
    x = leaf([1.0, 2.0])
    y = x * 2
    c = aakaar.ones(2)
    assert x.is_leaf and c.is_leaf and not y.is_leaf
    assert x.grad_fn is None and y.grad_fn.name() == "MulBackward0"  # torch's names
    assert type(y.grad_fn.next_functions[0][0]).__name__ == "AccumulateGrad"
    y.sum().backward()
    assert y.grad is None  # non-leaves keep no .grad unless asked
    close(x.grad, [2.0, 2.0])


def test_retain_grad_keeps_non_leaf_gradient():
    x = leaf([1.0, 2.0])
    y = x * x
    y.retain_grad()
    assert y.retains_grad
    (y * 3).sum().backward()
    close(y.grad, [3.0, 3.0])
    close(x.grad, [6.0, 12.0])


def test_detach_and_detach_():
    x = leaf([1.0, 2.0])
    y = x * 2
    d = y.detach()
    assert not d.requires_grad and d.is_leaf and d.grad_fn is None
    assert d.untyped_storage_ptr() == y.untyped_storage_ptr()  # same memory, no copy
    y.detach_()
    assert not y.requires_grad and y.grad_fn is None and y.is_leaf
    z = (y * x).sum()
    z.backward()
    close(x.grad, [2.0, 4.0])  # no gradient through y any more


# ---- grad modes ----------------------------------------------------------------------------


def test_no_grad_records_nothing_and_restores():
    x = leaf([1.0, 2.0])
    with aakaar.no_grad():
        y = x * 2 + x.exp()
        assert not aakaar.is_grad_enabled()
        with aakaar.enable_grad():
            z = x * 3
    assert aakaar.is_grad_enabled()
    assert not y.requires_grad and y.grad_fn is None
    assert z.requires_grad and z.grad_fn is not None


def test_grad_mode_restored_after_an_exception():
    with pytest.raises(ZeroDivisionError):
        with aakaar.no_grad():
            1 / 0
    assert aakaar.is_grad_enabled()


def test_set_grad_enabled_as_context_and_call():
    x = leaf([1.0])
    with aakaar.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    assert (x * 2).requires_grad
    aakaar.set_grad_enabled(False)
    try:
        assert not (x * 2).requires_grad
    finally:
        aakaar.set_grad_enabled(True)
    assert (x * 2).requires_grad


def test_no_grad_and_enable_grad_as_decorators():
    x = leaf([1.0])

    @aakaar.no_grad()
    def infer(t):
        return t * 2

    @aakaar.enable_grad()
    def train(t):
        return t * 2

    @aakaar.no_grad
    def bare(t):  # like torch, the decorator also works without parentheses
        return t * 2

    @aakaar.set_grad_enabled(False)
    def frozen(t):
        return t * 2

    assert aakaar.is_grad_enabled()  # decorating did not switch the mode
    assert not infer(x).requires_grad and not bare(x).requires_grad and not frozen(x).requires_grad
    assert aakaar.is_grad_enabled()
    with aakaar.no_grad():
        assert train(x).requires_grad
    assert infer.__name__ == "infer"


# ---- hooks -------------------------------------------------------------------------------


def test_hook_on_leaf_sees_and_replaces_the_gradient():
    x = leaf([1.0, 2.0])
    seen = []
    x.register_hook(lambda g: seen.append(g.numpy().copy()))
    x.register_hook(lambda g: g * 10)
    (x * 3).sum().backward()
    close(seen[0], [3.0, 3.0])
    close(x.grad, [30.0, 30.0])


def test_leaf_hooks_run_under_autograd_grad():
    x = leaf([1.0, 2.0])
    x.register_hook(lambda g: g * 10)
    (gx,) = autograd.grad((x * 3).sum(), x)
    close(gx, [30.0, 30.0])
    assert x.grad is None


def test_retain_grad_sees_what_the_hooks_made_of_the_gradient():
    # PyTorch's order: retain_grad's hook runs after the tensor's other hooks,
    # whichever was registered first.
    x = leaf([1.0, 2.0])
    h = x * 2
    h.retain_grad()
    h.register_hook(lambda g: g * 3)
    (h * h).sum().backward()
    close(h.grad, [12.0, 24.0])
    close(x.grad, [24.0, 48.0])


def test_hook_on_non_leaf_replaces_the_gradient_flowing_on():
    x = leaf([1.0, 2.0])
    y = x * x
    y.register_hook(lambda g: g * 0 + 1)  # pretend dL/dy = 1
    (y * 5).sum().backward()
    close(x.grad, [2.0, 4.0])


# ---- version counters --------------------------------------------------------------------------


def test_modifying_a_saved_tensor_is_caught_naming_the_op():
    x = leaf([1.0, 2.0])
    c = aakaar.tensor([3.0, 4.0], dtype=aakaar.float64)
    y = x * c  # MulBackward saves c
    c.add_(1)
    with pytest.raises(RuntimeError, match=r"modified by an inplace operation.*MulBackward"):
        y.sum().backward()


def test_modifying_a_saved_output_under_no_grad_is_caught():
    x = leaf([1.0, 2.0])
    y = x.sigmoid()  # saves its output
    with aakaar.no_grad():
        y.mul_(2)
    with pytest.raises(RuntimeError, match=r"modified by an inplace operation.*SigmoidBackward"):
        y.sum().backward()


def test_inplace_on_sole_owner_of_a_view_is_allowed():
    # matmul's result is internally a view of the batched product; nothing else
    # shares its memory, so an in-place relu on it is safe (nn code does this).
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    xv, wv = rng.standard_normal((4, 3)), rng.standard_normal((3, 5))
    grads = []
    for lib, make in ((aakaar, lambda v: aakaar.from_numpy(v.copy()).requires_grad_()),
                      (torch, lambda v: torch.tensor(v, requires_grad=True))):
        x, w = make(xv), make(wv)
        h = x @ w
        h.mul_(2)
        h.relu_()
        (h * h).sum().backward()
        grads.append((x.grad.numpy().copy(), w.grad.numpy().copy()))
    for a, b in zip(*grads):
        np.testing.assert_allclose(a, b, rtol=1e-10)


# ---- long chains -----------------------------------------------------------------------------


def test_100k_node_chain_backward():
    x = leaf([1.0])
    y = x
    for _ in range(100_000):
        y = y * 1.00001
    y.sum().backward()
    close(x.grad, [1.00001**100_000], rtol=1e-9)


TEARDOWN = """
import sys, threading, aakaar
def build_and_drop(n, op):
    x = aakaar.ones(1, dtype=aakaar.float64).requires_grad_()
    y = x
    for _ in range(n):
        y = y * x if op == "mul" else y + 1.0   # mul saves its inputs: the chain also runs through saved tensors
    if op == "backward":
        y.sum().backward()
    del y
threading.stack_size(256 * 1024)  # a small stack: a recursive teardown of the graph would overflow it
for op in ("add", "mul", "backward"):
    t = threading.Thread(target=build_and_drop, args=(int(sys.argv[1]), op))
    t.start(); t.join()
print("ok")
"""


def run_teardown(n):
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-c", TEARDOWN, str(n)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0 and r.stdout.strip() == "ok", f"rc={r.returncode} (-11 is a stack overflow) {r.stderr[-500:]}"


def test_long_graph_teardown_does_not_recurse():
    # Destroying a graph must not recurse per node either: with a 256 KiB
    # stack (2.6 bytes per node), a nested destructor per node cannot survive.
    run_teardown(100_000)


@pytest.mark.slow
def test_million_node_graph_teardown():
    run_teardown(1_000_000)


@pytest.mark.parametrize("activation", ["none", "relu"])
def test_gradient_of_another_dtype_is_cast_to_the_outputs(activation):
    # backward(gradient=float64) on a float32 output: every formula reads its
    # gradient as the output's dtype (the fused Linear once read float32 data as
    # float64 here). The gradients must equal those of a float32 gradient.
    import aakaar.nn.functional as F

    rng = np.random.default_rng(0)
    x_np, w_np = rng.standard_normal((5, 7)).astype(np.float32), rng.standard_normal((3, 7)).astype(np.float32)
    g_np = rng.standard_normal((5, 3))
    grads = {}
    for g_dtype in (aakaar.float32, aakaar.float64):
        x, w = aakaar.from_numpy(x_np.copy()).requires_grad_(), aakaar.from_numpy(w_np.copy()).requires_grad_()
        y = F.linear(x, w, activation=activation)
        y.backward(aakaar.from_numpy(g_np).to(g_dtype))
        assert x.grad.dtype == aakaar.float32 and w.grad.dtype == aakaar.float32
        grads[g_dtype] = (x.grad.numpy().copy(), w.grad.numpy().copy())
    for a, b in zip(grads[aakaar.float32], grads[aakaar.float64]):
        np.testing.assert_array_equal(a, b)
