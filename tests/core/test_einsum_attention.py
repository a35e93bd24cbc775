"""einsum and its relatives, scaled_dot_product_attention and nn.MultiheadAttention against torch."""

from __future__ import annotations

import numpy as np
import pytest

import aakaar
from shape_ops_harness import compare, raises_like

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(1)


def rand(*shape):
    return RNG.standard_normal(shape)


EINSUM = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("ij,jk", [(3, 4), (4, 5)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("ii->", [(4, 4)]),
    ("ii", [(4, 4)]),
    ("ii->i", [(4, 4)]),
    ("iij->j", [(3, 3, 2)]),
    ("ij->ji", [(3, 4)]),
    ("ij->", [(3, 4)]),
    ("i,i->", [(5,), (5,)]),
    ("i,j->ij", [(3,), (4,)]),
    ("...ij,...jk->...ik", [(2, 3, 4), (4, 5)]),
    ("...ij->...ji", [(2, 1, 3, 4)]),
    ("b...,b...->b", [(3, 2, 2), (3, 2, 2)]),
    ("bhqd,bhkd->bhqk", [(2, 3, 4, 5), (2, 3, 6, 5)]),
    ("ijk,jil->kl", [(2, 3, 4), (3, 2, 5)]),
    ("ab,bc,cd->ad", [(2, 3), (3, 4), (4, 5)]),
    ("i,i,i->i", [(4,), (4,), (4,)]),
    ("ij,ij->ij", [(3, 4), (1, 4)]),
    ("Ab,bA->", [(3, 4), (4, 3)]),
    ("ba", [(2, 3)]),
    ("ij,kl->ijkl", [(2, 3), (2, 2)]),
    ("...", [(2, 3)]),
]


@pytest.mark.parametrize("eq,shapes", EINSUM)
def test_einsum_matches_torch(eq, shapes):
    compare(lambda lib, *xs: lib.einsum(eq, *xs), [rand(*s) for s in shapes])


def test_einsum_list_operands_and_gradcheck():
    a, b = rand(3, 4), rand(4, 2)
    compare(lambda lib, x, y: lib.einsum("ij,jk->ik", [x, y]), [a, b])
    x = aakaar.from_numpy(rand(2, 3, 3)).requires_grad_()
    y = aakaar.from_numpy(rand(3, 2)).requires_grad_()
    assert aakaar.autograd.gradcheck(lambda x, y: aakaar.einsum("bii,ij->bj", x, y), [x, y])


@pytest.mark.parametrize("eq,shapes", [
    ("ij,jk->ik", [(3, 4)]),
    ("ij->ik", [(3, 4)]),
    ("ij->ii", [(3, 4)]),
    ("ijk->ij", [(3, 4)]),
    ("ij,jk->ik", [(3, 4), (5, 6)]),
    ("i1->i", [(3, 4)]),
    ("ii->i", [(3, 4)]),
])
def test_einsum_errors_are_torch_classes(eq, shapes):
    raises_like(lambda lib, *xs: lib.einsum(eq, *xs), *[rand(*s) for s in shapes])


def test_tensordot_outer_kron_cross_cdist():
    compare(lambda lib, a, b: lib.tensordot(a, b, 2), [rand(2, 3, 4), rand(3, 4, 5)])
    compare(lambda lib, a, b: lib.tensordot(a, b, ([0, 2], [1, 0])), [rand(2, 3, 4), rand(4, 2, 5)])
    compare(lambda lib, a, b: lib.tensordot(a, b, 0), [rand(2), rand(3)])
    compare(lambda lib, a, b: lib.outer(a, b), [rand(3), rand(4)])
    compare(lambda lib, a, b: lib.kron(a, b), [rand(2, 3), rand(3, 2)])
    compare(lambda lib, a, b: lib.kron(a, b), [rand(2), rand(2, 3)])
    compare(lambda lib, a, b: lib.cross(a, b, dim=1), [rand(4, 3), rand(4, 3)])
    compare(lambda lib, a, b: lib.cross(a, b, dim=0), [rand(3, 2), rand(3, 1)])
    for p in [0.0, 1.0, 2.0, 3.0, float("inf")]:
        compare(lambda lib, a, b: lib.cdist(a, b, p=p), [rand(4, 3), rand(5, 3)], grad=p != 0.0)
    compare(lambda lib, a, b: lib.cdist(a, b), [rand(2, 4, 3), rand(2, 5, 3)])
    same = rand(3, 2)
    compare(lambda lib, a, b: lib.cdist(a, b), [same, same.copy()])  # zero distances: gradient 0
    raises_like(lambda lib, a, b: lib.cdist(a, b), rand(4, 3), rand(5, 2))


# ---- attention -------------------------------------------------------------------------------------

def F(lib):
    return lib.nn.functional


@pytest.mark.parametrize("causal", [False, True])
def test_sdpa_matches_torch(causal):
    q, k, v = rand(2, 3, 4, 8), rand(2, 3, 6, 8), rand(2, 3, 6, 5)
    compare(lambda lib, q, k, v: F(lib).scaled_dot_product_attention(q, k, v, is_causal=causal), [q, k, v])
    compare(lambda lib, q, k, v: F(lib).scaled_dot_product_attention(q, k, v, scale=0.3), [q, k, v])


def test_sdpa_masks_and_gqa():
    q, k, v = rand(2, 4, 5, 8), rand(2, 2, 6, 8), rand(2, 2, 6, 8)
    bool_mask = RNG.random((5, 6)) < 0.7
    bool_mask[:, 0] = True
    float_mask = rand(2, 1, 5, 6)
    compare(lambda lib, q, k, v, m: F(lib).scaled_dot_product_attention(q, k, v, attn_mask=m, enable_gqa=True),
            [q, k, v, bool_mask])
    compare(lambda lib, q, k, v, m: F(lib).scaled_dot_product_attention(q, k, v, attn_mask=m, enable_gqa=True),
            [q, k, v, float_mask])
    # dropout_p=0 is exact; with p > 0, weights are dropped (the output changes) and it still runs.
    out = aakaar.nn.functional.scaled_dot_product_attention(*(aakaar.from_numpy(a) for a in (q, q, q)),
                                                            dropout_p=0.5)
    assert out.shape == (2, 4, 5, 8)


@pytest.mark.parametrize("batch_first", [False, True])
def test_multihead_attention_matches_torch(batch_first):
    E, H = 8, 2
    ak_m = aakaar.nn.MultiheadAttention(E, H, batch_first=batch_first, dtype=aakaar.float64)
    t_m = torch.nn.MultiheadAttention(E, H, batch_first=batch_first, dtype=torch.float64)
    assert [n for n, _ in ak_m.named_parameters()] == [n for n, _ in t_m.named_parameters()]
    with torch.no_grad():
        for (_, a), (_, t) in zip(ak_m.named_parameters(), t_m.named_parameters()):
            t.copy_(torch.from_numpy(a.detach().numpy().copy()))
    L, S, N = 4, 5, 3
    shape = (lambda s: (N, s, E)) if batch_first else (lambda s: (s, N, E))
    q, k, v = rand(*shape(L)), rand(*shape(S)), rand(*shape(S))
    pad = np.zeros((N, S), dtype=bool)
    pad[0, -2:] = True
    for kwargs in [{}, {"average_attn_weights": False}, {"key_padding_mask": pad}, {"need_weights": False}]:
        outs = []
        for lib, m in [(aakaar, ak_m), (torch, t_m)]:
            conv = aakaar.from_numpy if lib is aakaar else torch.from_numpy
            kw = {key: conv(val.copy()) if isinstance(val, np.ndarray) else val for key, val in kwargs.items()}
            o, w = m(conv(q.copy()), conv(k.copy()), conv(v.copy()), **kw)
            outs.append((o.detach().numpy(), None if w is None else w.detach().numpy()))
        np.testing.assert_allclose(outs[0][0], outs[1][0], rtol=1e-6, atol=1e-8)
        assert (outs[0][1] is None) == (outs[1][1] is None)
        if outs[1][1] is not None:
            np.testing.assert_allclose(outs[0][1], outs[1][1], rtol=1e-6, atol=1e-8)


def test_multihead_attention_kdim_vdim_and_backward():
    m = aakaar.nn.MultiheadAttention(6, 3, kdim=4, vdim=5, dtype=aakaar.float64)
    names = [n for n, _ in m.named_parameters()]
    assert "q_proj_weight" in names and "in_proj_weight" not in names
    q = aakaar.from_numpy(rand(3, 2, 6)).requires_grad_()
    out, w = m(q, aakaar.from_numpy(rand(4, 2, 4)), aakaar.from_numpy(rand(4, 2, 5)))
    assert out.shape == (3, 2, 6) and w.shape == (2, 3, 4)
    out.sum().backward()
    assert q.grad is not None and m.k_proj_weight.grad is not None
