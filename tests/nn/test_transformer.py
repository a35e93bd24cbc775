"""Transformer layers against torch: torch's state_dict loaded into aakaar's (strict, the same
keys), outputs and the gradients of inputs and parameters, post-norm and pre-norm, relu and gelu,
batch_first, attention and key-padding masks, causal masks; dropout in training."""

from __future__ import annotations

import numpy as np
import pytest

import aakaar as ak
import aakaar.nn as nn

from tests.nn.nn_helpers import assert_close, copy_weights, to_ak

torch = pytest.importorskip("torch")
# torch's own warnings about its reference implementation, expected here
pytestmark = [pytest.mark.filterwarnings("ignore:The PyTorch API of nested tensors:UserWarning"), pytest.mark.filterwarnings("ignore:Support for mismatched src_key_padding_mask:UserWarning")]

D_MODEL, NHEAD, FF = 8, 2, 16


def _compare(am, tm, t_inputs, a_inputs, kwargs_t, kwargs_a, rtol, atol):
    ref = tm(*t_inputs, **kwargs_t)
    out = am(*a_inputs, **kwargs_a)
    assert_close(out, ref, rtol, atol, "output")
    g = np.random.default_rng(9).standard_normal(tuple(ref.shape))
    ref.backward(torch.tensor(g, dtype=ref.dtype))
    out.backward(ak.tensor(g).to(out.dtype))
    for k, (a, t) in enumerate(zip(a_inputs, t_inputs)):
        assert_close(a.grad, t.grad, rtol, atol, f"grad input {k}")
    tp = dict(tm.named_parameters())
    names = [n for n, _ in am.named_parameters()]
    assert sorted(names) == sorted(tp)
    for pname, p in am.named_parameters():
        assert_close(p.grad, tp[pname].grad, rtol, atol, f"grad {pname}")


def _masks(L, S, N, dtype):
    """A float attention mask (L, S) and a bool key-padding mask (N, S) with one padded key per row."""
    rng = np.random.default_rng(4)
    attn = rng.standard_normal((L, S)) * 0.5
    pad = np.zeros((N, S), dtype=bool)
    pad[:, -1] = True
    return (torch.tensor(attn, dtype=dtype), torch.tensor(pad)), (to_ak(torch.tensor(attn, dtype=dtype)),
                                                                  ak.tensor(pad))


def _inputs(shapes, dtype):
    rng = np.random.default_rng(0)
    ts = [torch.tensor(rng.standard_normal(s), dtype=dtype, requires_grad=True) for s in shapes]
    return ts, [to_ak(t).requires_grad_() for t in ts]


VARIANTS = [
    {},
    {"norm_first": True},
    {"activation": "gelu", "batch_first": True},
    {"norm_first": True, "bias": False},
]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("masks", [False, True])
@pytest.mark.parametrize("kw", VARIANTS, ids=[str(v) for v in VARIANTS])
def test_encoder_layer_and_stack(kw, masks, dtype):
    rtol, atol = (1e-4, 1e-5) if dtype == torch.float32 else (1e-10, 1e-11)
    torch.manual_seed(0)
    tl = torch.nn.TransformerEncoderLayer(D_MODEL, NHEAD, FF, dropout=0.0, **kw).to(dtype)
    al = nn.TransformerEncoderLayer(D_MODEL, NHEAD, FF, dropout=0.0, **kw)
    te = torch.nn.TransformerEncoder(tl, 2, norm=torch.nn.LayerNorm(D_MODEL).to(dtype), enable_nested_tensor=False)
    ae = nn.TransformerEncoder(al, 2, norm=nn.LayerNorm(D_MODEL))
    for am, tm in ((al, tl), (ae, te)):
        am.to(ak.float64 if dtype == torch.float64 else ak.float32)
        copy_weights(am, tm)
        L, N = 5, 3
        shape = (N, L, D_MODEL) if kw.get("batch_first") else (L, N, D_MODEL)
        ts, As = _inputs([shape], dtype)
        kt, ka = {}, {}
        if masks:
            (m_t, p_t), (m_a, p_a) = _masks(L, L, N, dtype)
            mask_kw = "src_mask" if am is al else "mask"
            kt, ka = {mask_kw: m_t, "src_key_padding_mask": p_t}, {mask_kw: m_a, "src_key_padding_mask": p_a}
        _compare(am, tm, ts, As, kt, ka, rtol, atol)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("kw", VARIANTS, ids=[str(v) for v in VARIANTS])
def test_decoder_layer_with_causal_mask(kw, dtype):
    rtol, atol = (1e-4, 1e-5) if dtype == torch.float32 else (1e-10, 1e-11)
    torch.manual_seed(1)
    tm = torch.nn.TransformerDecoderLayer(D_MODEL, NHEAD, FF, dropout=0.0, **kw).to(dtype)
    am = nn.TransformerDecoderLayer(D_MODEL, NHEAD, FF, dropout=0.0, **kw)
    am.to(ak.float64 if dtype == torch.float64 else ak.float32)
    copy_weights(am, tm)
    L, S, N = 4, 6, 2
    bf = kw.get("batch_first")
    ts, As = _inputs([(N, L, D_MODEL) if bf else (L, N, D_MODEL), (N, S, D_MODEL) if bf else (S, N, D_MODEL)], dtype)
    causal_t = torch.nn.Transformer.generate_square_subsequent_mask(L, dtype=dtype)
    causal_a = nn.Transformer.generate_square_subsequent_mask(L, dtype=ak.float64 if dtype == torch.float64
                                                              else ak.float32)
    assert_close(causal_a, causal_t, 0, 0)
    (_, p_t), (_, p_a) = _masks(L, S, N, dtype)
    _compare(am, tm, ts, As, {"tgt_mask": causal_t, "memory_key_padding_mask": p_t, "tgt_is_causal": True},
             {"tgt_mask": causal_a, "memory_key_padding_mask": p_a, "tgt_is_causal": True}, rtol, atol)


def test_full_transformer_matches_torch():
    torch.manual_seed(2)
    tm = torch.nn.Transformer(D_MODEL, NHEAD, 2, 2, FF, dropout=0.0, batch_first=True).double()
    am = nn.Transformer(D_MODEL, NHEAD, 2, 2, FF, dropout=0.0, batch_first=True, dtype=ak.float64)
    assert list(am.state_dict()) == list(tm.state_dict())
    copy_weights(am, tm)
    ts, As = _inputs([(2, 5, D_MODEL), (2, 4, D_MODEL)], torch.float64)
    mask_t = tm.generate_square_subsequent_mask(4, dtype=torch.float64)
    mask_a = am.generate_square_subsequent_mask(4, dtype=ak.float64)
    _compare(am, tm, ts, As, {"tgt_mask": mask_t}, {"tgt_mask": mask_a}, 1e-10, 1e-11)
    with pytest.raises(RuntimeError, match="batch number"):
        am(ak.randn(2, 5, D_MODEL, dtype=ak.float64), ak.randn(3, 4, D_MODEL, dtype=ak.float64))
    with pytest.raises(RuntimeError, match="feature number"):
        am(ak.randn(2, 5, 3, dtype=ak.float64), ak.randn(2, 4, 3, dtype=ak.float64))


def test_init_and_independent_layer_copies():
    m = nn.Transformer(16, 4, 2, 1, 32)
    w0 = m.encoder.layers[0].linear1.weight.numpy()
    w1 = m.encoder.layers[1].linear1.weight.numpy()
    assert not np.array_equal(w0, w1)  # xavier re-init of every copy
    bound = np.sqrt(6 / (16 + 32))
    assert np.abs(w0).max() <= bound and np.abs(w0).max() > 0.9 * bound
    enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 2)
    a, b = enc.layers[0].linear1.weight, enc.layers[1].linear1.weight
    assert a is not b and np.array_equal(a.numpy(), b.numpy())  # deep copies of one layer, as torch's
    with pytest.raises(RuntimeError):
        nn.TransformerEncoderLayer(8, 2, activation="tanh")


def test_dropout_active_in_training_only():
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.5, dtype=ak.float64)
    x = ak.randn(5, 2, 8, dtype=ak.float64)
    layer.eval()
    a, b = layer(x), layer(x)
    assert np.array_equal(a.numpy(), b.numpy())
    layer.train()
    assert not np.allclose(layer(x).numpy(), a.numpy())


@pytest.mark.parametrize("grad", [False, True])
def test_encoder_inference_with_padding_matches_torch_fast_path(grad):
    """In eval mode without gradients torch runs a right-padded batch as nested tensors: zeros at
    the padded positions before the final norm. With gradients it computes them normally."""
    torch.manual_seed(3)
    tl = torch.nn.TransformerEncoderLayer(D_MODEL, NHEAD, FF, batch_first=True).double()
    te = torch.nn.TransformerEncoder(tl, 2, norm=torch.nn.LayerNorm(D_MODEL).double())
    ae = nn.TransformerEncoder(nn.TransformerEncoderLayer(D_MODEL, NHEAD, FF, batch_first=True, dtype=ak.float64), 2,
                               norm=nn.LayerNorm(D_MODEL, dtype=ak.float64))
    copy_weights(ae, te)
    te.eval()
    ae.eval()
    x = np.random.default_rng(0).standard_normal((3, 5, D_MODEL))
    pad = np.zeros((3, 5), dtype=bool)
    pad[0, 3:] = True
    pad[2, 1:] = True
    if grad:
        ref = te(torch.tensor(x), src_key_padding_mask=torch.tensor(pad))
        out = ae(ak.tensor(x), src_key_padding_mask=ak.tensor(pad))
    else:
        with torch.no_grad():
            ref = te(torch.tensor(x), src_key_padding_mask=torch.tensor(pad))
        with ak.no_grad():
            out = ae(ak.tensor(x), src_key_padding_mask=ak.tensor(pad))
    assert_close(out, ref, 1e-9, 1e-10)


def test_functional_multi_head_attention_forward_matches_torch():
    torch.manual_seed(5)
    tm = torch.nn.MultiheadAttention(8, 2, add_bias_kv=True).double()
    rng = np.random.default_rng(6)
    q, k = rng.standard_normal((4, 3, 8)), rng.standard_normal((6, 3, 8))
    pad = np.zeros((3, 6), dtype=bool)
    pad[1, -2:] = True

    def call(F, mod, conv, pad_t):
        return F.multi_head_attention_forward(conv(q), conv(k), conv(k), 8, 2, mod["in_proj_weight"],
                                              mod["in_proj_bias"], mod["bias_k"], mod["bias_v"], False, 0.0,
                                              mod["out_proj.weight"], mod["out_proj.bias"], training=False,
                                              key_padding_mask=pad_t)

    sd = dict(tm.state_dict())
    ref_out, ref_w = call(torch.nn.functional, sd, torch.tensor, torch.tensor(pad))
    ours = {n: to_ak(v) for n, v in sd.items()}
    out, w = call(ak.nn.functional, ours, ak.tensor, ak.tensor(pad))
    assert_close(out, ref_out, 1e-10, 1e-12)
    assert_close(w, ref_w, 1e-10, 1e-12)
