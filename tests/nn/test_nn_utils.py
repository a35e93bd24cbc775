"""nn.utils against torch: gradient clipping (the returned norm and the clipped gradients),
parameters_to_vector and back, and nn.utils.rnn (padding, packing, unpacking) with the recurrent
layers on packed batches: outputs, final states and gradients as torch's."""

from __future__ import annotations

import math

import numpy as np
import pytest

import aakaar as ak
import aakaar.nn as nn
from aakaar.nn.utils import rnn as ak_rnn

from tests.nn.nn_helpers import assert_close, copy_weights, to_ak

torch = pytest.importorskip("torch")
t_rnn = torch.nn.utils.rnn


def _grads(seed, shapes):
    rng = np.random.default_rng(seed)
    gs = [rng.standard_normal(s) * 3 for s in shapes]
    tp = [torch.zeros(s, dtype=torch.float64, requires_grad=True) for s in shapes]
    ap = [ak.zeros(*s, dtype=ak.float64).requires_grad_() for s in shapes]
    for t, a, g in zip(tp, ap, gs):
        t.grad = torch.tensor(g)
        a.grad = ak.tensor(g)
    return tp, ap


@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.0, math.inf])
@pytest.mark.parametrize("max_norm", [0.5, 1e6])
def test_clip_grad_norm_matches_torch(norm_type, max_norm):
    tp, ap = _grads(0, [(3, 4), (5,), (2, 2, 2)])
    ref = torch.nn.utils.clip_grad_norm_(tp, max_norm, norm_type)
    got = nn.utils.clip_grad_norm_(ap, max_norm, norm_type)
    assert_close(got, ref, 1e-12)
    for a, t in zip(ap, tp):
        assert_close(a.grad, t.grad, 1e-12, 1e-14)


def test_clip_grad_value_and_single_tensor_and_errors():
    tp, ap = _grads(1, [(4, 3)])
    torch.nn.utils.clip_grad_value_(tp[0], 0.7)
    nn.utils.clip_grad_value_(ap[0], 0.7)
    assert_close(ap[0].grad, tp[0].grad, 0, 0)
    p = ak.zeros(3).requires_grad_()
    p.grad = ak.tensor([1.0, float("inf"), 0.0])
    with pytest.raises(RuntimeError, match="non-finite"):
        nn.utils.clip_grad_norm_([p], 1.0, error_if_nonfinite=True)
    assert float(nn.utils.clip_grad_norm_([ak.zeros(2).requires_grad_()], 1.0).item()) == 0.0


def test_parameters_to_vector_and_back():
    m = nn.Linear(3, 2)
    v = nn.utils.parameters_to_vector(m.parameters())
    assert tuple(v.shape) == (8,)
    nn.utils.vector_to_parameters(v * 0 + 2.0, m.parameters())
    assert np.all(m.weight.numpy() == 2.0) and np.all(m.bias.numpy() == 2.0)


def test_pad_pack_unpack_like_torch():
    rng = np.random.default_rng(2)
    seqs = [rng.standard_normal((n, 3)) for n in (2, 5, 3)]
    tseq, aseq = [torch.tensor(s) for s in seqs], [ak.tensor(s) for s in seqs]
    for bf in (False, True):
        assert_close(ak_rnn.pad_sequence(aseq, bf, -1.0), t_rnn.pad_sequence(tseq, bf, -1.0), 0, 0)
    assert_close(ak_rnn.pad_sequence(aseq, True, padding_side="left"),
                 t_rnn.pad_sequence(tseq, True, padding_side="left"), 0, 0)
    tp = t_rnn.pack_sequence(tseq, enforce_sorted=False)
    ap = ak_rnn.pack_sequence(aseq, enforce_sorted=False)
    assert_close(ap.data, tp.data, 0, 0)
    assert ap.batch_sizes.tolist() == tp.batch_sizes.tolist()
    assert ap.sorted_indices.tolist() == tp.sorted_indices.tolist()
    assert ap.unsorted_indices.tolist() == tp.unsorted_indices.tolist()
    for bf in (False, True):
        pa, la = ak_rnn.pad_packed_sequence(ap, bf, 9.0, total_length=6)
        pt, lt = t_rnn.pad_packed_sequence(tp, bf, 9.0, total_length=6)
        assert_close(pa, pt, 0, 0)
        assert la.tolist() == lt.tolist()
    for a, t in zip(ak_rnn.unpack_sequence(ap), t_rnn.unpack_sequence(tp)):
        assert_close(a, t, 0, 0)
    with pytest.raises(RuntimeError, match="decreasing"):
        ak_rnn.pack_sequence(aseq)
    with pytest.raises(ValueError):
        ak_rnn.pad_packed_sequence(ap, total_length=2)


@pytest.mark.parametrize("name,kwargs", [("LSTM", {"num_layers": 2, "bidirectional": True}),
                                         ("GRU", {"bidirectional": True, "batch_first": True}),
                                         ("RNN", {"num_layers": 2}), ("LSTM", {"proj_size": 2})])
@pytest.mark.parametrize("with_hx", [False, True])
def test_recurrent_layers_on_packed_batches(name, kwargs, with_hx):
    torch.manual_seed(0)
    tm = getattr(torch.nn, name)(3, 4, **kwargs).double()
    am = getattr(nn, name)(3, 4, dtype=ak.float64, **kwargs)
    copy_weights(am, tm)
    rng = np.random.default_rng(3)
    lengths = [3, 5, 1, 4]
    bf = kwargs.get("batch_first", False)
    x = rng.standard_normal((4, 5, 3) if bf else (5, 4, 3))
    tx = torch.tensor(x, requires_grad=True)
    ax = ak.tensor(x, requires_grad=True)
    tp = t_rnn.pack_padded_sequence(tx, lengths, batch_first=bf, enforce_sorted=False)
    ap = ak_rnn.pack_padded_sequence(ax, lengths, batch_first=bf, enforce_sorted=False)
    D = (2 if kwargs.get("bidirectional") else 1) * kwargs.get("num_layers", 1)
    thx = ahx = None
    if with_hx:
        h = rng.standard_normal((D, 4, kwargs.get("proj_size", 0) or 4))
        c = rng.standard_normal((D, 4, 4))
        thx = (torch.tensor(h), torch.tensor(c)) if name == "LSTM" else torch.tensor(h)
        ahx = (ak.tensor(h), ak.tensor(c)) if name == "LSTM" else ak.tensor(h)
    t_out, t_h = tm(tp, thx)
    a_out, a_h = am(ap, ahx)
    assert isinstance(a_out, ak_rnn.PackedSequence)
    assert_close(a_out.data, t_out.data, 1e-10, 1e-12, "packed output")
    t_states = list(t_h) if name == "LSTM" else [t_h]
    a_states = list(a_h) if name == "LSTM" else [a_h]
    for k, (a, t) in enumerate(zip(a_states, t_states)):
        assert_close(a, t, 1e-10, 1e-12, f"state {k}")
    padded_t, _ = t_rnn.pad_packed_sequence(t_out, batch_first=bf)
    padded_a, _ = ak_rnn.pad_packed_sequence(a_out, batch_first=bf)
    g = rng.standard_normal(tuple(padded_t.shape))
    ((padded_t * torch.tensor(g)).sum() + t_states[0].sum()).backward()
    ((padded_a * ak.tensor(g)).sum() + a_states[0].sum()).backward()
    assert_close(ax.grad, tx.grad, 1e-10, 1e-12, "grad input")
    tpar = dict(tm.named_parameters())
    for pname, p in am.named_parameters():
        assert_close(p.grad, tpar[pname].grad, 1e-10, 1e-12, pname)
