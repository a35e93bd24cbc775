"""Chapters 6 and 6b's Python check cells name the likely mistake: every loop order gives the same
product, so 6.1's check follows the loops through the order of their reads, and a nest that ignores
`order` (or reads it innermost first) is caught; 6.3's check names an assigned block product and a
missed edge; 6b.1 a strip packed row by row or left unpadded, 6b.2 strips read row by row. No kernel:
the cells run in-process, as the notebooks have them."""
from __future__ import annotations

import warnings

import pytest

from hint_helpers import REPO, cells, hint_for

NOTEBOOK = REPO / "solutions" / "06-matmul-on-the-cpu.ipynb"
NOTEBOOK_6B = REPO / "solutions" / "06b-simd-packing-and-threads.ipynb"

NEST = """\
def matmul_in_order(A, B, order):
    order = {order}
    M, K = A.shape
    N = B.shape[1]
    C = np.zeros((M, N))
    extent = {{"i": M, "j": N, "k": K}}
    for a in range(extent[order[0]]):
        for b in range(extent[order[1]]):
            for c in range(extent[order[2]]):
                idx = dict(zip(order, (a, b, c)))
                C[idx["i"], idx["j"]] += A[idx["i"], idx["k"]] * B[idx["k"], idx["j"]]
    return C
"""

BLOCKED = """\
def blocked_matmul(A, B, bm, bk, bn):
    M, K = A.shape
    N = B.shape[1]
    C = np.zeros((M, N))
    for j0 in range({n_range}):
        for k0 in range(0, K, bk):
            for i0 in range({m_range}):
                C[i0:i0 + bm, j0:j0 + bn] {op} A[i0:i0 + bm, k0:k0 + bk] @ B[k0:k0 + bk, j0:j0 + bn]
    return C
"""

WRONG = [
    ("6.1", "order ignored", NEST.format(order='"ijk"'), "for 'ikj' the outer loop runs over i and the innermost over j"),
    ("6.1", "order read innermost first", NEST.format(order="order[::-1]"), "outermost first"),
    ("6.3", "block product assigned", BLOCKED.format(n_range="0, N, bn", m_range="0, M, bm", op="="),
     "add the block product into C rather than assign it"),
    ("6.3", "only whole blocks", BLOCKED.format(n_range="0, N - bn + 1, bn", m_range="0, M - bm + 1, bm", op="+="),
     "each loop runs once, from 0"),
]


WRONG_6B = [
    ("6b.1", "packed row by row", """\
def pack_a(A, mr):
    M, K = A.shape
    strips = []
    for i0 in range(0, M, mr):
        strip = np.zeros((mr, K))
        strip[:min(mr, M - i0)] = A[i0:i0 + mr]
        strips.append(strip.ravel())
    return np.concatenate(strips)
""", "not row by row"),
    ("6b.1", "not padded", """\
def pack_a(A, mr):
    return np.concatenate([A[i0:i0 + mr].T.ravel() for i0 in range(0, A.shape[0], mr)])
""", "pad it with zero rows"),
    ("6b.2", "strips read row by row", """\
def microkernel(kc, a_strip, b_strip, mr, nr):
    return a_strip.reshape(mr, kc) @ b_strip.reshape(kc, nr)
""", "the strips are stored k by k"),
]


@pytest.mark.parametrize("exercise, label, wrong, hint", WRONG, ids=[f"{e}-{l}" for e, l, _, _ in WRONG])
def test_a_typical_mistake_gets_its_hint(exercise, label, wrong, hint):
    line = hint_for(NOTEBOOK, exercise, wrong)
    assert hint in line, line


@pytest.mark.parametrize("exercise, label, wrong, hint", WRONG_6B, ids=[f"{e}-{l}" for e, l, _, _ in WRONG_6B])
def test_a_typical_packing_mistake_gets_its_hint(exercise, label, wrong, hint):
    line = hint_for(NOTEBOOK_6B, exercise, wrong)
    assert hint in line, line


def test_the_solution_passes_the_order_check():
    # the check cell's own second half: a correct nest is read back as the order it was given
    setup, checks = cells(NOTEBOOK)
    ns: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(setup, ns)
        exec(NEST.format(order="order"), ns)
        exec(checks["6.1"], ns)
