"""torch's top-level functional forms (torch.conv2d, torch.dropout(input, p, train), torch.batch_norm with
weight before running stats, int reductions, ...) on aakaar against torch: values and float64
gradients through the same call, and bad input with torch's exception classes.
"""

from __future__ import annotations

import numpy as np
import pytest

import aakaar as ak

torch = pytest.importorskip("torch")


def _to_ak(x, grad: bool):
    if isinstance(x, torch.Tensor):
        a = ak.from_numpy(x.detach().numpy().copy())
        return a.requires_grad_() if grad and x.dtype.is_floating_point and x.requires_grad else a
    if isinstance(x, (list, tuple)) and any(isinstance(v, torch.Tensor) for v in x):
        return type(x)(_to_ak(v, grad) for v in x)
    return x


def _leaves(args):
    for x in args:
        if isinstance(x, torch.Tensor):
            yield x
        elif isinstance(x, (list, tuple)):
            yield from _leaves(x)


def _outs(r):
    return list(r) if isinstance(r, tuple) else [r]


def check(name: str, args, kwargs=None, grad: bool = True, rtol: float = 1e-10, atol: float = 1e-10,
          outputs=None):
    """aakaar.<name>(*args) against torch.<name>(*args): every output's values (or those listed in
    outputs) and, with grad, the gradient of a random weighting of the float outputs to every input."""
    kwargs = kwargs or {}
    ak_args = [_to_ak(x, grad) for x in args]
    ref = getattr(torch, name)(*args, **kwargs)
    got = getattr(ak, name)(*ak_args, **kwargs)
    refs, gots = _outs(ref), _outs(got)
    assert len(refs) == len(gots)
    keep = range(len(refs)) if outputs is None else outputs
    for k in keep:
        r, g = refs[k], gots[k]
        assert tuple(g.shape) == tuple(r.shape), f"{name} output {k}: {tuple(g.shape)} != {tuple(r.shape)}"
        assert g.dtype.name == str(r.dtype).replace("torch.", ""), f"{name} output {k} dtype"
        np.testing.assert_allclose(g.detach().numpy(), r.detach().numpy(), rtol=rtol, atol=atol,
                                   err_msg=f"{name} output {k}")
    if not grad:
        return
    rng = np.random.default_rng(1)
    total_t, total_a = 0, 0
    for k in keep:
        r, g = refs[k], gots[k]
        if r.dtype.is_floating_point and r.requires_grad:
            w = rng.standard_normal(tuple(r.shape))
            total_t = total_t + (r * torch.from_numpy(w)).sum()
            total_a = total_a + (g * ak.from_numpy(w)).sum()
    total_t.backward()
    total_a.backward()
    for t, a in zip(_leaves(args), _leaves(ak_args)):
        if t.requires_grad:
            assert a.grad is not None
            np.testing.assert_allclose(a.grad.numpy(), t.grad.numpy(), rtol=1e-8, atol=1e-8,
                                       err_msg=f"{name} gradient")


def R(*shape, grad=True, seed=[0]):
    seed[0] += 1
    g = torch.Generator().manual_seed(seed[0])
    return torch.randn(*shape, dtype=torch.float64, generator=g).requires_grad_(grad)


def P(*shape, grad=True):
    """Positive values (variances, probabilities)."""
    return (torch.rand(*shape, dtype=torch.float64) + 0.5).requires_grad_(grad)


# ---- convolution and pooling ----------------------------------------------------------------------

def test_convolutions():
    check("conv1d", [R(2, 4, 9), R(6, 2, 3), R(6), 2, 1, 1, 2])
    check("conv1d", [R(2, 4, 9), R(6, 4, 3)], {"padding": "same"})
    check("conv2d", [R(2, 3, 7, 6), R(4, 3, 3, 2), None, (2, 1), (1, 0), 1, 1])
    check("conv3d", [R(1, 2, 5, 4, 4), R(3, 2, 2, 2, 2), R(3), 1, 1])
    check("conv_transpose1d", [R(2, 4, 5), R(4, 3, 3), R(3), 2, 1, 1])
    check("conv_transpose2d", [R(1, 4, 3, 4), R(4, 2, 3, 3), None, 2, 1, 1, 2])
    check("conv_transpose3d", [R(1, 2, 3, 3, 2), R(2, 3, 2, 2, 2), R(3)])


@pytest.mark.parametrize("transposed", [False, True])
@pytest.mark.parametrize("n", [1, 2, 3])
def test_convolution(n, transposed):
    x = R(2, 4, *([5] * n))
    w = R(4, 3, *([2] * n)) if transposed else R(3, 4, *([2] * n))
    stride, pad, dil = [2] * n, [1] * n, [1] * n
    out_pad = [1] * n if transposed else [0] * n
    check("convolution", [x, w, R(3), stride, pad, dil, transposed, out_pad, 1])


def test_pools():
    check("max_pool1d", [R(2, 3, 10), 3])
    check("max_pool1d", [R(2, 3, 10), [3], [2], [1], [1], True])
    check("max_pool2d", [R(2, 3, 8, 7), 2, (), 0, 1, False])
    check("max_pool2d", [R(1, 3, 8, 7), (3, 2), (2, 1), (1, 0), (1, 2), True])
    check("max_pool3d", [R(1, 2, 5, 6, 4), 2])
    check("max_pool3d", [R(1, 2, 5, 6, 4), 3, 2, 1])
    check("max_pool1d_with_indices", [R(2, 3, 10), 3, 2, 1])
    check("avg_pool1d", [R(2, 3, 10), 3, 2, 1, True, False])
    check("adaptive_avg_pool1d", [R(2, 3, 10), 4])
    check("adaptive_max_pool1d", [R(2, 3, 10), [4]])


def test_pool_bad_input():
    with pytest.raises(RuntimeError):
        torch.max_pool1d(torch.randn(2, 3, 10), 3, 1, 2)
    with pytest.raises(RuntimeError):
        ak.max_pool1d(ak.randn(2, 3, 10), 3, 1, 2)             # padding > kernel // 2


# ---- dropout -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["dropout", "alpha_dropout", "feature_dropout", "feature_alpha_dropout"])
def test_dropout_eval_is_identity(name):
    check(name, [R(3, 4, 5), 0.3, False])
    check(name, [R(3, 4, 5), 0.0, True])


def test_dropout_train_statistics():
    x = ak.ones([200, 300], dtype=ak.float64)
    y = ak.dropout(x, 0.25, True)
    vals = np.unique(y.numpy())
    np.testing.assert_allclose(vals, [0.0, 1 / 0.75])
    assert abs(float((y == 0).float().mean()) - 0.25) < 0.01
    z = ak.feature_dropout(ak.ones([400, 50, 3], dtype=ak.float64), 0.5, True).numpy()
    assert (z == z[:, :, :1]).all()                               # one value per channel
    assert abs((z[:, :, 0] == 0).mean() - 0.5) < 0.02
    a = ak.alpha_dropout(ak.randn(300, 300, dtype=ak.float64), 0.2, True).numpy()
    assert abs(a.mean()) < 0.02 and abs(a.std() - 1) < 0.02        # SELU's self-normalising property


def test_dropout_inplace_and_native():
    x = ak.ones([50, 40], dtype=ak.float64)
    y = ak.dropout_(x, 0.5, True)
    assert y is x and set(np.unique(x.numpy())) <= {0.0, 2.0}
    x = ak.ones([50, 40])
    assert ak.feature_dropout_(x, 0.5, False) is x
    out, mask = ak.native_dropout(ak.ones([30, 30], dtype=ak.float64), 0.4, True)
    assert mask.dtype == ak.bool
    np.testing.assert_array_equal(out.numpy(), mask.numpy() / 0.6)
    for train in (False,):
        t_out, t_mask = torch.native_dropout(torch.ones(3, 4), 0.4, train)
        a_out, a_mask = ak.native_dropout(ak.ones([3, 4]), 0.4, train)
        np.testing.assert_array_equal(a_out.numpy(), t_out.numpy())
        np.testing.assert_array_equal(a_mask.numpy(), t_mask.numpy())


@pytest.mark.parametrize("name", ["dropout", "alpha_dropout", "feature_dropout", "feature_alpha_dropout",
                                  "native_dropout"])
def test_dropout_bad_p(name):
    with pytest.raises(RuntimeError) as want:
        getattr(torch, name)(torch.ones(2, 3), 1.5, True)
    with pytest.raises(want.type):
        getattr(ak, name)(ak.ones([2, 3]), 1.5, True)


def test_feature_dropout_rank():
    with pytest.raises(RuntimeError) as want:
        torch.feature_dropout(torch.ones(3), 0.5, True)
    with pytest.raises(want.type):
        ak.feature_dropout(ak.ones([3]), 0.5, True)


# ---- normalisation -------------------------------------------------------------------------------------

def test_batch_norm_training_updates_running_stats():
    x = R(6, 3, 4)
    rm_t, rv_t = torch.zeros(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64)
    rm_a, rv_a = ak.zeros([3], dtype=ak.float64), ak.ones([3], dtype=ak.float64)
    w, b = R(3), R(3)
    ref = torch.batch_norm(x, w, b, rm_t, rv_t, True, 0.2, 1e-5, False)
    got = ak.batch_norm(_to_ak(x, True), _to_ak(w, True), _to_ak(b, True), rm_a, rv_a, True, 0.2, 1e-5, False)
    np.testing.assert_allclose(got.detach().numpy(), ref.detach().numpy(), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(rm_a.numpy(), rm_t.numpy(), rtol=1e-12)
    np.testing.assert_allclose(rv_a.numpy(), rv_t.numpy(), rtol=1e-12)


def test_batch_norm_and_native():
    rm, rv = torch.randn(3, dtype=torch.float64), P(3, grad=False)
    check("batch_norm", [R(4, 3, 5), R(3), R(3), rm, rv, False, 0.1, 1e-5, True])
    check("batch_norm", [R(4, 3), None, None, None, None, True, 0.1, 1e-3, True])
    check("native_batch_norm", [R(5, 3, 2), R(3), R(3), None, None, True, 0.1, 1e-5])
    check("native_batch_norm", [R(5, 3, 2), R(3), None, rm, rv, False, 0.1, 1e-5])


def test_layer_group_instance_rms_norm():
    check("layer_norm", [R(2, 3, 4), [3, 4], R(3, 4), R(3, 4), 1e-4, True])
    check("layer_norm", [R(2, 3, 4), (4,)])
    check("native_layer_norm", [R(2, 3, 4), [4], R(4), R(4), 1e-5])
    check("group_norm", [R(2, 6, 5), 3, R(6), R(6), 1e-5, False])
    check("native_group_norm", [R(2, 6, 5), R(6), R(6), 2, 6, 5, 3, 1e-5])
    check("instance_norm", [R(2, 3, 6), R(3), R(3), None, None, True, 0.1, 1e-5, False])
    check("rms_norm", [R(2, 3, 4), [4], R(4), 1e-6])
    check("rms_norm", [R(2, 3, 4), [3, 4]])


def test_norm_bad_input():
    with pytest.raises(RuntimeError) as want:
        torch.group_norm(torch.randn(2, 5, 3), 2)
    with pytest.raises(want.type):
        ak.group_norm(ak.randn(2, 5, 3), 2)
    with pytest.raises(RuntimeError) as want:
        torch.rms_norm(torch.randn(2, 5, 3), [4])
    with pytest.raises(want.type):
        ak.rms_norm(ak.randn(2, 5, 3), [4])


# ---- embeddings ----------------------------------------------------------------------------------------

def test_embedding():
    w = R(10, 3)
    idx = torch.tensor([[1, 2, 2], [9, 0, 2]])
    check("embedding", [w, idx])
    check("embedding", [R(10, 3), idx, 2])                  # padding row 2 gets no gradient
    check("embedding", [R(10, 3), idx.int(), -1])


def test_embedding_bad_input():
    for bad in (torch.tensor([11]), torch.tensor([1.0])):
        with pytest.raises(Exception) as want:
            torch.embedding(torch.randn(10, 3), bad)
        with pytest.raises(want.type):
            ak.embedding(ak.randn(10, 3), _to_ak(bad, False))


def test_embedding_renorm_():
    w_t = torch.randn(6, 3, dtype=torch.float64) * 3
    w_a = _to_ak(w_t, False)
    idx = torch.tensor([0, 2, 2, 5])
    torch.embedding_renorm_(w_t, idx, 1.5, 2.0)
    assert ak.embedding_renorm_(w_a, _to_ak(idx, False), 1.5, 2.0) is w_a
    np.testing.assert_allclose(w_a.numpy(), w_t.numpy(), rtol=1e-12)


@pytest.mark.parametrize("mode", [0, 1, 2])
def test_embedding_bag(mode):
    idx, off = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9]), torch.tensor([0, 3, 3])
    check("embedding_bag", [R(10, 3), idx, off, False, mode])
    check("embedding_bag", [R(10, 3), idx, off, False, mode, False, None, False, 2])
    check("embedding_bag", [R(10, 3), idx, torch.tensor([0, 4, 8]), False, mode, False, None, True])
    if mode == 0:
        check("embedding_bag", [R(10, 3), idx, off, False, 0, False, R(8)], outputs=[0, 1])


def test_bilinear_and_shuffles():
    check("bilinear", [R(4, 3), R(4, 2), R(5, 3, 2), R(5)])
    check("pixel_shuffle", [R(2, 8, 3, 3), 2])
    check("pixel_unshuffle", [R(2, 2, 4, 6), 2])
    check("channel_shuffle", [R(2, 6, 3), 3])
    check("native_channel_shuffle", [R(2, 6, 3, 2), 2], grad=False)  # torch has no derivative


# ---- losses with int reductions --------------------------------------------------------------------------

@pytest.mark.parametrize("reduction", [0, 1, 2])
def test_losses(reduction):
    check("kl_div", [R(3, 4), P(3, 4), reduction])
    check("kl_div", [R(3, 4), R(3, 4), reduction], {"log_target": True})
    t = torch.rand(3, 4, dtype=torch.float64)
    check("binary_cross_entropy_with_logits", [R(3, 4), t, P(3, 4, grad=False), P(4, grad=False), reduction])
    y = torch.tensor([1.0, -1.0, 1.0], dtype=torch.float64)
    check("cosine_embedding_loss", [R(3, 5), R(3, 5), y, 0.1, reduction])
    check("hinge_embedding_loss", [R(3, 4), torch.tensor([[1.0, -1, 1, -1]] * 3, dtype=torch.float64), 0.7,
                                   reduction])
    check("margin_ranking_loss", [R(3), R(3), y, 0.2, reduction])
    check("triplet_margin_loss", [R(4, 5), R(4, 5), R(4, 5), 1.0, 2.0, 1e-6, True, reduction])
    check("poisson_nll_loss", [R(3, 4), P(3, 4), True, True, 1e-8, reduction])
    check("poisson_nll_loss", [P(3, 4), P(3, 4) * 3, False, False, 1e-8, reduction])


def test_ctc_loss():
    T, N, C, S = 8, 2, 5, 3
    log_probs = torch.randn(T, N, C, dtype=torch.float64).log_softmax(2).detach().requires_grad_()
    targets = torch.tensor([[1, 2, 2], [3, 1, 4]])
    for reduction in (0, 1, 2):
        check("ctc_loss", [log_probs, targets, [8, 7], [3, 2], 0, reduction, False], rtol=1e-8, atol=1e-8)
    check("ctc_loss", [log_probs, targets, torch.tensor([8, 6]), torch.tensor([3, 3])], rtol=1e-8, atol=1e-8)


def test_loss_default_reduction_is_torchs():
    """torch's binding reads the schemas' ``reduction=Mean`` default as 0: no reduction."""
    x, t = R(3, 4, grad=False), P(3, 4, grad=False)
    check("kl_div", [x, t], grad=False)
    check("hinge_embedding_loss", [x, t], grad=False)
    check("triplet_margin_loss", [x, t, x * 2], grad=False)


def test_loss_bad_reduction():
    with pytest.raises(ValueError):
        ak.kl_div(ak.randn(3), ak.rand(3), 7)


# ---- activations, padding, sampling, cells --------------------------------------------------------------

def test_rrelu():
    check("rrelu", [R(3, 4)])
    check("rrelu", [R(3, 4), 0.1, 0.3, False])
    x = ak.randn(2000, dtype=ak.float64) - 5
    y = ak.rrelu(x, 0.1, 0.3, True)
    slopes = (y / x).numpy()
    assert slopes.min() >= 0.1 and slopes.max() <= 0.3 and slopes.std() > 0.03
    z = ak.randn(3, 4)
    want = torch.rrelu(torch.from_numpy(z.numpy().copy()))
    assert ak.rrelu_(z) is z
    np.testing.assert_allclose(z.numpy(), want.numpy(), rtol=1e-6)


def test_constant_pad_nd():
    check("constant_pad_nd", [R(2, 3, 4), [1, 2]])
    check("constant_pad_nd", [R(2, 3, 4), [1, 2, 0, 1], 3.5])
    check("constant_pad_nd", [R(2, 3, 4), [-1, 2, 1, -1]])


@pytest.mark.parametrize("interp", [0, 1, 2])
@pytest.mark.parametrize("pad", [0, 1, 2])
def test_grid_sampler(interp, pad):
    x, grid = R(2, 3, 5, 4), (torch.rand(2, 3, 6, 2, dtype=torch.float64) * 2.4 - 1.2).requires_grad_()
    check("grid_sampler", [x, grid, interp, pad, True], grad=interp != 1)
    check("grid_sampler_2d", [x, grid, interp, pad, False], grad=interp != 1)


@pytest.mark.parametrize("interp", [0, 1])
def test_grid_sampler_3d(interp):
    x, grid = R(1, 2, 3, 4, 5), (torch.rand(1, 2, 3, 2, 3, dtype=torch.float64) * 2.2 - 1.1).requires_grad_()
    check("grid_sampler_3d", [x, grid, interp, 0, False], grad=interp == 0)
    check("grid_sampler", [x, grid, interp, 1, True], grad=interp == 0)


def test_affine_grid_generator():
    check("affine_grid_generator", [R(2, 2, 3), [2, 3, 4, 5], False])
    check("affine_grid_generator", [R(2, 3, 4), [2, 3, 2, 4, 5], True])


def test_grid_sampler_bad_mode():
    x, g = torch.randn(1, 1, 3, 3), torch.rand(1, 2, 2, 2)
    with pytest.raises(RuntimeError):
        ak.grid_sampler(_to_ak(x, False), _to_ak(g, False), 5, 0, False)
    with pytest.raises(RuntimeError):
        ak.grid_sampler_3d(_to_ak(x, False), _to_ak(g, False), 0, 0, False)


def test_recurrent_cells():
    x, h, c = R(4, 3), R(4, 5), R(4, 5)
    check("lstm_cell", [x, [h, c], R(20, 3), R(20, 5), R(20), R(20)])
    check("lstm_cell", [R(3, 3), (R(3, 5), R(3, 5)), R(20, 3), R(20, 5)])
    check("gru_cell", [x, h, R(15, 3), R(15, 5), R(15), R(15)])
    check("rnn_tanh_cell", [x, h, R(5, 3), R(5, 5), R(5), R(5)])
    check("rnn_relu_cell", [R(4, 3), R(4, 5), R(5, 3), R(5, 5)])


@pytest.mark.parametrize("shape", [(3,), (2, 4, 3)])
def test_recurrent_cell_rank(shape):
    x_t = torch.randn(*shape)
    h_t = torch.randn(*(shape[:-1] + (5,)))
    with pytest.raises(Exception) as want:
        torch.rnn_tanh_cell(x_t, h_t, torch.randn(5, 3), torch.randn(5, 5))
    with pytest.raises(want.type):
        ak.rnn_tanh_cell(_to_ak(x_t, False), _to_ak(h_t, False), ak.randn(5, 3), ak.randn(5, 5))


def test_recurrent_cell_bad_input():
    with pytest.raises(RuntimeError) as want:
        torch.rnn_tanh_cell(torch.randn(4, 3), torch.randn(4, 5), torch.randn(5, 2), torch.randn(5, 5))
    with pytest.raises(want.type):
        ak.rnn_tanh_cell(ak.randn(4, 3), ak.randn(4, 5), ak.randn(5, 2), ak.randn(5, 5))
    with pytest.raises(RuntimeError) as want:
        torch.gru_cell(torch.randn(4, 3), torch.randn(2, 5), torch.randn(15, 3), torch.randn(15, 5))
    with pytest.raises(want.type):
        ak.gru_cell(ak.randn(4, 3), ak.randn(2, 5), ak.randn(15, 3), ak.randn(15, 5))


@pytest.mark.parametrize("name,gates", [("lstm", 4), ("gru", 3), ("rnn_tanh", 1), ("rnn_relu", 1)])
@pytest.mark.parametrize("bidirectional", [False, True])
@pytest.mark.parametrize("has_biases,batch_first", [(True, False), (False, True)])
def test_sequence_rnn_functions(name, gates, bidirectional, has_biases, batch_first):
    L, N, H_in, H, layers = 4, 3, 5, 6, 2
    dirs = 2 if bidirectional else 1
    params = []
    for layer in range(layers):
        for _ in range(dirs):
            params += [R(gates * H, H_in if layer == 0 else H * dirs), R(gates * H, H)]
            if has_biases:
                params += [R(gates * H), R(gates * H)]
    x = R(N, L, H_in) if batch_first else R(L, N, H_in)
    h0 = R(layers * dirs, N, H)
    hx = [h0, R(layers * dirs, N, H)] if name == "lstm" else h0
    check(name, [x, hx, params, has_biases, layers, 0.0, False, bidirectional, batch_first], rtol=1e-9, atol=1e-9)


def test_lstm_with_projection():
    L, N, H_in, H, P = 3, 2, 4, 5, 3
    params = [R(4 * H, H_in), R(4 * H, P), R(4 * H), R(4 * H), R(P, H)]
    check("lstm", [R(L, N, H_in), [R(1, N, P), R(1, N, H)], params, True, 1, 0.0, False, False, False],
          rtol=1e-9, atol=1e-9)


def test_sequence_rnn_bad_params():
    x, h = torch.randn(3, 2, 4), torch.randn(1, 2, 5)
    with pytest.raises(RuntimeError) as want:
        torch.gru(x, h, [torch.randn(15, 4)], True, 1, 0.0, False, False, False)
    with pytest.raises(want.type):
        ak.gru(_to_ak(x, False), _to_ak(h, False), [ak.randn(15, 4)], True, 1, 0.0, False, False, False)


def test_sequence_rnn_2d_input():
    args = ([torch.randn(15, 4), torch.randn(15, 5)], False, 1, 0.0, False, False, False)
    with pytest.raises(Exception) as want:
        torch.gru(torch.randn(3, 4), torch.randn(1, 5), *args)
    with pytest.raises(want.type):
        ak.gru(ak.randn(3, 4), ak.randn(1, 5), [ak.randn(15, 4), ak.randn(15, 5)], *args[1:])


def test_conv_tbc():
    check("conv_tbc", [R(7, 2, 3), R(3, 3, 4), R(4)])
    check("conv_tbc", [R(7, 2, 3), R(2, 3, 5), R(5), 1])
    with pytest.raises(RuntimeError):
        torch.conv_tbc(torch.randn(7, 2, 3), torch.randn(3, 4, 4), torch.randn(4))
    with pytest.raises(RuntimeError):
        ak.conv_tbc(ak.randn(7, 2, 3), ak.randn(3, 4, 4), ak.randn(4))


def test_batch_norm_update_stats():
    x = R(4, 3, 5, grad=False)
    rm_t, rv_t = torch.zeros(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64)
    rm_a, rv_a = ak.zeros([3], dtype=ak.float64), ak.ones([3], dtype=ak.float64)
    want = torch.batch_norm_update_stats(x, rm_t, rv_t, 0.1)
    got = ak.batch_norm_update_stats(_to_ak(x, False), rm_a, rv_a, 0.1)
    for g, w in zip(got + (rm_a, rv_a), want + (rm_t, rv_t)):
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-12)
    check("batch_norm_update_stats", [x, None, None, 0.3], grad=False)


def test_norms_where_aten_differs_from_nn_functional():
    """ATen's forms allow what F refuses (one value per channel in training, a padding_idx past the
    table) and raise RuntimeError where F raises ValueError."""
    rm_t, rv_t = torch.zeros(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64)
    rm_a, rv_a = ak.zeros([3], dtype=ak.float64), ak.ones([3], dtype=ak.float64)
    x, w, b = R(1, 3), R(3), R(3)
    check("batch_norm", [x, w, b, None, None, True, 0.1, 1e-5, False])
    torch.batch_norm(x, w, b, rm_t, rv_t, True, 0.1, 1e-5, False)
    ak.batch_norm(_to_ak(x, False), _to_ak(w, False), _to_ak(b, False), rm_a, rv_a, True, 0.1, 1e-5, False)
    np.testing.assert_allclose(rm_a.numpy(), rm_t.numpy(), rtol=1e-12)
    np.testing.assert_array_equal(np.isnan(rv_a.numpy()), np.isnan(rv_t.numpy()))
    check("instance_norm", [R(2, 3, 1), R(3), R(3), None, None, True, 0.1, 1e-5, False])
    check("embedding", [R(5, 3), torch.tensor([1, 2]), 7])
    for fn_t, fn_a in (
        (lambda: torch.batch_norm(torch.randn(4, 3), None, None, None, None, False, 0.1, 1e-5, False),
         lambda: ak.batch_norm(ak.randn(4, 3), None, None, None, None, False, 0.1, 1e-5, False)),
        (lambda: torch.layer_norm(torch.randn(4, 3), [4]), lambda: ak.layer_norm(ak.randn(4, 3), [4])),
        (lambda: torch.native_layer_norm(torch.randn(4, 3), [4], None, None, 1e-5),
         lambda: ak.native_layer_norm(ak.randn(4, 3), [4], None, None, 1e-5)),
    ):
        with pytest.raises(RuntimeError) as want:
            fn_t()
        with pytest.raises(want.type):
            fn_a()


def test_empty_batches():
    check("native_group_norm", [R(0, 4, 3), R(4), R(4), 0, 4, 3, 2, 1e-5], grad=False)
    check("bilinear", [R(0, 3), R(0, 4), R(5, 3, 4), R(5)])
