"""The performance exercises written in Python (11.5, 16.4, 17.4) name the likely mistake of a wrong
answer: each typical wrong attempt runs through the real check cell of its solutions/NN-*.ipynb,
in-process. (Their speed checks report a ratio and are never asserted; the C++ and CUDA ones, 7.5,
10.4 and 13.4, are tested in test_cpp_exercise_hints.py.)"""
from __future__ import annotations

import pytest

from hint_helpers import REPO, hint_for

from aakaar.book.exercises.notebooks import cell_source, read_notebook

NOTEBOOKS = {"11": "11-the-computational-graph", "16": "16-data", "17": "17-training-on-emnist"}

RECURSIVE_BACKWARD = '''
def leaf_grads(root):
    grads, leaves = {}, {}
    def visit(v, g):
        if not v.parents:
            leaves[v] = leaves.get(v, 0.0) + g
        for p, local in v.parents:
            visit(p, g * local)
    visit(root, 1.0)
    return leaves
'''

# A correct step but for what the label names; the imports are the solution cell's own.
STEP = '''
import aakaar.nn.functional as F
from aakaar.book.bench.train_step import LR, MOMENTUM

def sgd_train_step(params, bufs, x, y):
    W1, b1, W2, b2, W3, b3 = params
    h = F.linear(F.linear(x, W1, b1, activation="relu"), W2, b2, activation="relu")
    loss = F.cross_entropy(F.linear(h, W3, b3, activation=LAST), y)
    if CLEAR:
        for p in params:
            p.grad = None
    loss.backward()
    with ak.no_grad():
        for p, buf in zip(params, bufs):
            buf.mul_(M).add_(p.grad)
            p.add_(buf, alpha=-LR)
    return loss.item()
'''

WRONG = [
    ("11.5", "recursion", RECURSIVE_BACKWARD, "Python's recursion stops"),
    ("16.4", "positions, not the order's entries",
     "def epoch_batches(images, labels, order, batch_size, drop_last=False):\n"
     "    n = len(order) - len(order) % batch_size if drop_last else len(order)\n"
     "    return [(images[s:s + batch_size], labels[s:s + batch_size]) for s in range(0, n, batch_size)]",
     "index with the order's entries"),
    ("16.4", "drop_last ignored",
     "def epoch_batches(images, labels, order, batch_size, drop_last=False):\n"
     "    for s in range(0, len(order), batch_size):\n"
     "        yield images[order[s:s + batch_size]], labels[order[s:s + batch_size]]",
     "the short last batch is left out"),
    ("17.4", "ReLU after the last layer", STEP.replace("LAST", '"relu"').replace("CLEAR", "True").replace("(M)", "(MOMENTUM)"),
     "then W3 and b3 with no ReLU"),
    ("17.4", "no momentum", STEP.replace("LAST", '"none"').replace("CLEAR", "True").replace("(M)", "(0.0)"),
     "MOMENTUM times itself"),
    ("17.4", "gradients not cleared", STEP.replace("LAST", '"none"').replace("CLEAR", "False").replace("(M)", "(MOMENTUM)"),
     "must not add into this one's"),
]


def defined_in_notebook(notebook, name: str) -> str:
    """The notebook's cell that defines ``name`` (a class the check cell uses, such as 11.3's Var)."""
    return next(cell_source(c) for c in read_notebook(notebook)["cells"]
                if c["cell_type"] == "code" and f"class {name}" in cell_source(c))


@pytest.mark.parametrize("exercise, label, wrong, hint", WRONG, ids=[f"{e}-{l}" for e, l, _, _ in WRONG])
def test_a_typical_mistake_gets_its_hint(exercise, label, wrong, hint):
    notebook = REPO / "solutions" / f"{NOTEBOOKS[exercise.split('.')[0]]}.ipynb"
    if exercise == "11.5":  # the check builds its graphs from the Var class of exercise 11.3's cell
        wrong = defined_in_notebook(notebook, "Var") + "\n" + wrong
    line = hint_for(notebook, exercise, wrong)
    assert hint in line, line
