"""The graph is freed as soon as nothing refers to it: no reference cycles
between tensors and nodes (C++ reference counts cannot collect cycles, and
Python's gc cannot see them), and a long training loop has flat memory."""

from __future__ import annotations

import gc
import os
import weakref

import numpy as np
import pytest

import aakaar


class Marker:
    """A Python object owned only by a gradient hook, i.e. by a graph node:
    it dies exactly when the node is destroyed."""


def hooked_graph():
    x = aakaar.randn(3, 4, dtype=aakaar.float64).requires_grad_()
    w = aakaar.randn(4, 2, dtype=aakaar.float64).requires_grad_()
    h = (x @ w).tanh()
    marker = Marker()
    h.register_hook(lambda g, m=marker: None)
    loss = (h.softmax(1) * h).sum()
    return x, w, h, loss, weakref.ref(marker)


def test_graph_is_freed_after_backward():
    x, w, h, loss, alive = hooked_graph()
    loss.backward()
    assert alive() is not None  # h still holds its grad_fn
    del h, loss
    gc.collect()
    assert alive() is None, "the graph outlived every tensor that refers to it (a reference cycle?)"
    assert x.grad is not None and w.grad is not None


def test_graph_is_freed_without_backward():
    x, w, h, loss, alive = hooked_graph()
    del h, loss
    gc.collect()
    assert alive() is None


def test_leaf_grad_does_not_keep_the_graph():
    x, w, h, loss, alive = hooked_graph()
    loss.backward(create_graph=True)  # .grad now has history of its own
    del h, loss
    x.grad = None
    w.grad = None
    gc.collect()
    assert alive() is None


def test_saved_tensors_are_released_by_backward():
    # A tensor made by from_numpy keeps its numpy array alive, so a weakref to
    # the array tells when the last tensor sharing that memory is gone.
    arr = np.random.default_rng(0).standard_normal(1000)
    alive = weakref.ref(arr)
    saved = aakaar.from_numpy(arr)
    del arr
    x = aakaar.ones(1000, dtype=aakaar.float64).requires_grad_()
    y = (x * saved).tanh()  # MulBackward saves `saved`
    del saved
    gc.collect()
    assert alive() is not None
    y.sum().backward()  # without retain_graph: the nodes drop what they saved
    gc.collect()
    assert alive() is None, "a saved tensor outlived backward"
    assert y.grad_fn is not None  # the graph itself still exists (y refers to it)


def test_retain_graph_keeps_saved_tensors():
    arr = np.random.default_rng(0).standard_normal(10)
    alive = weakref.ref(arr)
    saved = aakaar.from_numpy(arr)
    del arr
    x = aakaar.ones(10, dtype=aakaar.float64).requires_grad_()
    y = (x * saved).sum()
    del saved
    y.backward(retain_graph=True)
    gc.collect()
    assert alive() is not None
    del y
    gc.collect()
    assert alive() is None


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.parametrize("steps", [10_000])
def test_training_loop_memory_is_flat(steps):
    rng = np.random.default_rng(0)
    w1 = aakaar.from_numpy(rng.standard_normal((8, 16)) * 0.3).requires_grad_()
    b1 = aakaar.zeros(16, dtype=aakaar.float64).requires_grad_()
    w2 = aakaar.from_numpy(rng.standard_normal((16, 3)) * 0.3).requires_grad_()
    params = [w1, b1, w2]
    x = aakaar.from_numpy(rng.standard_normal((4, 8)))
    target = aakaar.tensor([0, 2, 1, 0])

    def step():
        h = (x @ w1 + b1).relu()
        logits = h @ w2
        loss = -logits.log_softmax(1).gather(1, target.unsqueeze(1)).mean()
        loss.backward()
        with aakaar.no_grad():
            for p in params:
                p.sub_(p.grad * 0.05)
                p.grad = None
        return loss

    first = step().item()
    for _ in range(1000):  # warm up allocator pools and caches
        step()
    gc.collect()
    objects0, rss0 = len(gc.get_objects()), rss_bytes()
    for _ in range(steps - 1000):
        last = step()
    gc.collect()
    objects1, rss1 = len(gc.get_objects()), rss_bytes()
    assert last.item() < first  # it did train
    assert objects1 - objects0 <= 50, f"Python objects grew from {objects0} to {objects1}"
    assert rss1 - rss0 <= 4 * 2**20, f"RSS grew by {(rss1 - rss0) / 2**20:.1f} MiB over {steps - 1000} steps"
