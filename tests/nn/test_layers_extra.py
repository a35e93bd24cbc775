"""The nn modules added for issue 22 (layers_extra.py, ParameterList/Dict): each built in torch and
in aakaar with the same arguments, torch's state_dict loaded into aakaar's, outputs and every
parameter's gradient compared; printing, buffers and argument checks as torch's."""

from __future__ import annotations

import numpy as np
import pytest

import aakaar as ak
import aakaar.nn as nn

from tests.nn.nn_helpers import assert_close, copy_weights, to_ak

torch = pytest.importorskip("torch")
tnn = torch.nn

# (id, constructor args, kwargs, input shapes; a second shape means a two-input forward)
CASES = [
    ("Softplus", (), {"beta": 2.0, "threshold": 5.0}, [(3, 4)]),
    ("GroupNorm", (2, 6), {}, [(3, 6, 5)]),
    ("GroupNorm", (3, 6), {"affine": False, "eps": 1e-3}, [(2, 6, 2, 2)]),
    ("GroupNorm", (3, 6), {"bias": False}, [(2, 6, 3)]),
    ("InstanceNorm1d", (4,), {}, [(2, 4, 6)]),
    ("InstanceNorm1d", (4,), {"affine": True}, [(4, 6)]),
    ("InstanceNorm2d", (3,), {"affine": True, "track_running_stats": True}, [(2, 3, 4, 5)]),
    ("InstanceNorm3d", (2,), {"affine": True}, [(2, 2, 3, 3, 3)]),
    ("RMSNorm", ((4, 5),), {"eps": 1e-6}, [(3, 4, 5)]),
    ("RMSNorm", (5,), {}, [(3, 5)]),
    ("LocalResponseNorm", (3,), {"alpha": 0.1}, [(2, 5, 4)]),
    ("Unflatten", (1, (2, 3)), {}, [(4, 6, 2)]),
    ("Unfold", (2,), {"padding": 1, "stride": 2}, [(2, 3, 5, 5)]),
    ("Fold", ((4, 5), 2), {}, [(2, 12, 12)]),
    ("PixelShuffle", (2,), {}, [(2, 8, 3, 3)]),
    ("PixelUnshuffle", (2,), {}, [(2, 2, 4, 6)]),
    ("ChannelShuffle", (2,), {}, [(2, 6, 3, 3)]),
    ("CosineSimilarity", (), {"dim": -1}, [(3, 5), (3, 5)]),
    ("PairwiseDistance", (), {"p": 1.5}, [(3, 5), (3, 5)]),
    ("Bilinear", (3, 4, 5), {}, [(6, 3), (6, 4)]),
    ("Bilinear", (3, 4, 2), {"bias": False}, [(2, 6, 3), (2, 6, 4)]),
    ("Softmax2d", (), {}, [(2, 3, 4, 4)]),
    ("LPPool1d", (2, 3), {"stride": 2}, [(2, 3, 9)]),
    ("LPPool2d", (1.5, (2, 3)), {}, [(2, 3, 6, 6)]),
    ("AlphaDropout", (0.4,), {}, [(3, 4)]),
    ("FeatureAlphaDropout", (0.4,), {}, [(3, 4, 2)]),
    ("RReLU", (), {}, [(3, 4)]),
]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_module_matches_torch(case, dtype):
    name, args, kwargs, shapes = case
    rtol, atol = (1e-5, 1e-5) if dtype == torch.float32 else (1e-10, 1e-12)
    tm = getattr(tnn, name)(*args, **kwargs).to(dtype)
    am = getattr(nn, name)(*args, **kwargs)
    am.to(ak.float64 if dtype == torch.float64 else ak.float32)
    assert sorted(am.state_dict()) == sorted(tm.state_dict())
    copy_weights(am, tm)
    if name in ("AlphaDropout", "FeatureAlphaDropout", "RReLU"):  # random in training: compare in eval
        tm.eval()
        am.eval()
    rng = np.random.default_rng(0)
    xs = [rng.standard_normal(s) for s in shapes]
    if name.startswith("LPPool"):
        xs = [np.abs(x) + 0.1 for x in xs]
    ts = [torch.tensor(x, dtype=dtype, requires_grad=True) for x in xs]
    As = [to_ak(t).requires_grad_() for t in ts]
    ref, out = tm(*ts), am(*As)
    assert_close(out, ref, rtol, atol, "output")
    g = rng.standard_normal(tuple(ref.shape))
    ref.backward(torch.tensor(g, dtype=dtype))
    out.backward(ak.tensor(g).to(out.dtype))
    for k, (a, t) in enumerate(zip(As, ts)):
        assert_close(a.grad, t.grad, rtol, atol, f"grad of input {k}")
    tp = dict(tm.named_parameters())
    for pname, p in am.named_parameters():
        assert_close(p.grad, tp[pname].grad, rtol, atol, f"grad of {pname}")
    for bname, b in tm.named_buffers():
        assert_close(dict(am.named_buffers())[bname], b, rtol, atol, f"buffer {bname}")
    assert repr(am) == repr(tm)


def test_instance_norm_running_stats_in_eval():
    tm = tnn.InstanceNorm1d(3, affine=True, track_running_stats=True).double()
    am = nn.InstanceNorm1d(3, affine=True, track_running_stats=True, dtype=ak.float64)
    x = np.random.default_rng(1).standard_normal((4, 3, 5)) * 3 + 1
    for _ in range(2):
        tm(torch.tensor(x))
        am(ak.tensor(x))
    tm.eval()
    am.eval()
    assert_close(am(ak.tensor(x)), tm(torch.tensor(x)), 1e-10, 1e-12)
    # F.instance_norm updates the running stats but (as in torch) not the batch count
    assert int(am.num_batches_tracked.item()) == int(tm.num_batches_tracked.item())


def test_init_matches_torch_distribution_and_shapes():
    b = nn.Bilinear(20, 30, 40)
    assert tuple(b.weight.shape) == (40, 20, 30) and np.abs(b.weight.numpy()).max() <= 1 / np.sqrt(20)
    assert np.abs(b.weight.numpy()).max() > 0.9 / np.sqrt(20)
    assert np.all(nn.GroupNorm(2, 4).weight.numpy() == 1) and np.all(nn.RMSNorm(3).weight.numpy() == 1)
    assert nn.InstanceNorm2d(3).weight is None and nn.InstanceNorm2d(3).running_mean is None


def test_argument_errors():
    with pytest.raises(ValueError, match="divisible"):
        nn.GroupNorm(4, 6)
    with pytest.raises(ValueError):
        nn.InstanceNorm2d(3)(ak.randn(2, 3))
    with pytest.raises(ValueError):
        nn.InstanceNorm1d(3, affine=True)(ak.randn(2, 4, 5))
    with pytest.raises(ValueError):
        nn.Softmax2d()(ak.randn(2, 3))
    with pytest.raises(TypeError):
        nn.Unflatten(1, 6)


def test_embedding_bag_module_loads_torch_weights():
    tm = tnn.EmbeddingBag(10, 3, mode="sum", padding_idx=2).double()
    am = nn.EmbeddingBag(10, 3, mode="sum", padding_idx=2, dtype=ak.float64)
    assert np.all(am.weight.numpy()[2] == 0)
    copy_weights(am, tm)
    idx = np.array([[1, 2, 3], [4, 2, 9]])
    ref, out = tm(torch.tensor(idx)), am(ak.tensor(idx))
    assert_close(out, ref, 1e-12, 1e-12)
    ref.sum().backward()
    out.sum().backward()
    assert_close(am.weight.grad, tm.weight.grad, 1e-12, 1e-12)
    assert repr(am) == repr(tm)


def test_parameter_list_and_dict_like_torch():
    tl = tnn.ParameterList([tnn.Parameter(torch.randn(2, 3)), torch.randn(4)])
    al = nn.ParameterList([nn.Parameter(ak.randn(2, 3)), ak.randn(4)])
    assert sorted(al.state_dict()) == sorted(tl.state_dict()) == ["0", "1"]
    assert all(isinstance(p, nn.Parameter) for p in al) and len(al) == 2
    al.append(ak.randn(1))
    al += [ak.randn(2)]
    assert len(list(al.parameters())) == 4 and tuple(al[-1].shape) == (2,)
    copy_weights(al[:2], tl)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.ws = nn.ParameterList([nn.Parameter(ak.ones(2)) for _ in range(2)])
            self.d = nn.ParameterDict({"b": nn.Parameter(ak.zeros(2)), "a": ak.ones(3)})

    net = Net()
    assert sorted(n for n, _ in net.named_parameters()) == ["d.a", "d.b", "ws.0", "ws.1"]
    d = net.d
    assert list(d.keys()) == ["a", "b"]  # a plain dict is sorted, as PyTorch does
    assert "a" in d and len(d) == 2 and isinstance(d["a"], nn.Parameter)
    d["c"] = ak.zeros(1)
    assert list(d) == ["a", "b", "c"]
    assert tuple(d.pop("a").shape) == (3,) and "a" not in d and len(list(net.parameters())) == 4
    with pytest.raises(KeyError):
        d["zz"]
    with pytest.raises(IndexError):
        net.ws[5]
    td = tnn.ParameterDict({"x": tnn.Parameter(torch.ones(2))})
    ad = nn.ParameterDict({"x": nn.Parameter(ak.zeros(2))})
    copy_weights(ad, td)
    assert np.all(ad["x"].numpy() == 1)


def test_deepcopy_of_a_module_is_independent():
    import copy

    m = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.LSTM(4, 2))
    m[0].weight.grad = ak.ones(4, 3)
    c = copy.deepcopy(m)
    assert list(c.state_dict()) == list(m.state_dict())
    for (n, a), (_, b) in zip(m.state_dict().items(), c.state_dict().items()):
        assert np.array_equal(a.numpy(), b.numpy()), n
    assert isinstance(c[0].weight, nn.Parameter) and c[0].weight.requires_grad
    with ak.no_grad():
        c[0].weight.fill_(7.0)
        c[1].running_mean.fill_(3.0)
    assert not np.any(m[0].weight.numpy() == 7.0) and not np.any(m[1].running_mean.numpy() == 3.0)


POOL3D = [
    ("max_pool3d", [(2, 2, 5, 6, 7)], lambda x: ak.nn.functional.max_pool3d(x, 2),
     lambda x: torch.nn.functional.max_pool3d(x, 2)),
    ("max_pool3d_args", [(1, 2, 7, 6, 5)],
     lambda x: ak.nn.functional.max_pool3d(x, (3, 2, 2), (2, 1, 2), (1, 1, 0), (1, 2, 1), ceil_mode=True,
                                           return_indices=True),
     lambda x: torch.nn.functional.max_pool3d(x, (3, 2, 2), (2, 1, 2), (1, 1, 0), (1, 2, 1), ceil_mode=True,
                                              return_indices=True)),
    ("max_pool3d_unbatched", [(2, 4, 4, 4)], lambda x: ak.nn.functional.max_pool3d(x, 3, 1, 1, return_indices=True),
     lambda x: torch.nn.functional.max_pool3d(x, 3, 1, 1, return_indices=True)),
    ("avg_pool3d", [(2, 2, 5, 6, 7)], lambda x: ak.nn.functional.avg_pool3d(x, 2),
     lambda x: torch.nn.functional.avg_pool3d(x, 2)),
    ("avg_pool3d_pad_ceil", [(1, 2, 5, 6, 7)],
     lambda x: ak.nn.functional.avg_pool3d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False),
     lambda x: torch.nn.functional.avg_pool3d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False)),
    ("avg_pool3d_divisor", [(1, 2, 4, 4, 4)], lambda x: ak.nn.functional.avg_pool3d(x, 2, 1, 1, divisor_override=5),
     lambda x: torch.nn.functional.avg_pool3d(x, 2, 1, 1, divisor_override=5)),
    ("adaptive_avg_pool3d", [(2, 2, 5, 7, 6)], lambda x: ak.nn.functional.adaptive_avg_pool3d(x, (2, 3, None)),
     lambda x: torch.nn.functional.adaptive_avg_pool3d(x, (2, 3, None))),
    ("adaptive_max_pool3d", [(2, 5, 7, 6)],
     lambda x: ak.nn.functional.adaptive_max_pool3d(x, (3, 4, 4), return_indices=True),
     lambda x: torch.nn.functional.adaptive_max_pool3d(x, (3, 4, 4), return_indices=True)),
]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("case", POOL3D, ids=[c[0] for c in POOL3D])
def test_pool3d_matches_torch(case, dtype):
    from tests.nn.nn_helpers import run_against_torch

    _, shapes, ours, theirs = case
    rtol, atol = (1e-5, 1e-6) if dtype == torch.float32 else (1e-12, 1e-13)
    run_against_torch(ours, theirs, shapes, dtype, rtol, atol)


@pytest.mark.parametrize("name,args", [("MaxPool3d", (2,)), ("AvgPool3d", (3, 2, 1)), ("AdaptiveAvgPool3d", ((2, 3, 2),)),
                                       ("AdaptiveMaxPool3d", (2,))])
def test_pool3d_modules(name, args):
    x = torch.randn(2, 3, 6, 5, 6, dtype=torch.float64)
    tm, am = getattr(tnn, name)(*args), getattr(nn, name)(*args)
    assert_close(am(to_ak(x)), tm(x), 1e-12, 1e-13)
    assert repr(am) == repr(tm)


GRID = [("bilinear", "zeros", False), ("bilinear", "border", True), ("bilinear", "reflection", False),
        ("bilinear", "reflection", True), ("nearest", "zeros", False), ("nearest", "border", True)]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("mode,padding,align", GRID)
def test_grid_sample_matches_torch(mode, padding, align, dtype):
    rng = np.random.default_rng(5)
    x = torch.tensor(rng.standard_normal((2, 3, 5, 6)), dtype=dtype, requires_grad=True)
    # points inside and outside [-1, 1], away from pixel centres (the bilinear kinks)
    g = torch.tensor(rng.uniform(-1.4, 1.4, (2, 4, 7, 2)), dtype=dtype, requires_grad=True)
    ref = torch.nn.functional.grid_sample(x, g, mode, padding, align)
    ax, ag = to_ak(x).requires_grad_(), to_ak(g).requires_grad_()
    out = ak.nn.functional.grid_sample(ax, ag, mode, padding, align)
    rtol, atol = (1e-5, 1e-5) if dtype == torch.float32 else (1e-10, 1e-12)
    assert_close(out, ref, rtol, atol)
    w = rng.standard_normal(tuple(ref.shape))
    ref.backward(torch.tensor(w, dtype=dtype))
    out.backward(ak.tensor(w).to(out.dtype))
    assert_close(ax.grad, x.grad, rtol, atol, "grad input")
    if mode == "bilinear":
        assert_close(ag.grad, g.grad, rtol, atol, "grad grid")


def test_spatial_transformer_roundtrip_identity():
    theta = torch.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]], dtype=torch.float64)
    x = torch.randn(1, 2, 4, 5, dtype=torch.float64)
    grid = ak.nn.functional.affine_grid(to_ak(theta), [1, 2, 4, 5], align_corners=False)
    out = ak.nn.functional.grid_sample(to_ak(x), grid, align_corners=False)
    assert_close(out, x, 1e-12, 1e-12)
    with pytest.raises(ValueError):
        ak.nn.functional.grid_sample(to_ak(x), grid, mode="cubic", align_corners=False)


def test_lp_pool3d_and_max_unpool3d_match_torch():
    x = torch.rand(2, 2, 4, 6, 5, dtype=torch.float64) + 0.1
    assert_close(nn.LPPool3d(2, (2, 3, 2))(to_ak(x)), tnn.LPPool3d(2, (2, 3, 2))(x), 1e-12, 1e-13)
    v, i = torch.nn.functional.max_pool3d(x, 2, return_indices=True)
    ref = tnn.MaxUnpool3d(2)(v, i, output_size=x.shape)
    got = nn.MaxUnpool3d(2)(to_ak(v), to_ak(i), output_size=list(x.shape))
    assert_close(got, ref, 0, 0)


@pytest.mark.parametrize("lazy,eager,in_shape,args", [
    ("LazyLinear", "Linear", (4, 7), (5,)),
    ("LazyConv1d", "Conv1d", (2, 3, 9), (4, 3)),
    ("LazyConv2d", "Conv2d", (3, 8, 8), (4, 3)),
    ("LazyConvTranspose2d", "ConvTranspose2d", (2, 3, 5, 5), (4, 2)),
    ("LazyBatchNorm1d", "BatchNorm1d", (6, 3), ()),
    ("LazyBatchNorm2d", "BatchNorm2d", (2, 3, 4, 4), ()),
    ("LazyInstanceNorm1d", "InstanceNorm1d", (2, 3, 5), ()),
])
def test_lazy_modules_become_their_layer(lazy, eager, in_shape, args):
    ak.manual_seed(7)
    m = getattr(nn, lazy)(*args)
    assert isinstance(m.weight, nn.UninitializedParameter)
    x = ak.randn(*in_shape)
    y = m(x)
    assert type(m) is getattr(nn, eager)
    ref_in = in_shape[-1] if lazy == "LazyLinear" else (in_shape[0] if len(in_shape) == 3 and "Conv2d" in lazy
                                                         else in_shape[1])
    ak.manual_seed(7)
    e = getattr(nn, eager)(ref_in, *args, **({"affine": True} if "Instance" in lazy else {}))
    assert [tuple(p.shape) for p in m.parameters()] == [tuple(p.shape) for p in e.parameters()]
    tm = getattr(tnn, lazy)(*args)
    tm(torch.randn(*in_shape))
    assert sorted(m.state_dict()) == sorted(tm.state_dict())
    assert tuple(y.shape) == tuple(tm(torch.randn(*in_shape)).shape)
    assert repr(m) == repr(tm)


def test_embedding_max_norm_and_from_pretrained_like_torch():
    w = np.random.default_rng(3).standard_normal((6, 4)) * 2
    tm = tnn.Embedding.from_pretrained(torch.tensor(w), freeze=False, max_norm=1.5)
    am = nn.Embedding.from_pretrained(ak.tensor(w), freeze=False, max_norm=1.5)
    idx = np.array([[0, 2, 2], [5, 1, 0]])
    ref, out = tm(torch.tensor(idx)), am(ak.tensor(idx))
    assert_close(out, ref, 1e-12, 1e-14)
    assert_close(am.weight, tm.weight, 1e-12, 1e-14)  # the rows used were renormalised in place
    ref.sum().backward()
    out.sum().backward()
    assert_close(am.weight.grad, tm.weight.grad, 1e-12, 1e-14)
    assert repr(am) == repr(tm)
    frozen = nn.Embedding.from_pretrained(ak.tensor(w))
    assert not frozen.weight.requires_grad


def test_functional_signatures_follow_torch():
    import aakaar.nn.functional as F

    x = ak.randn(3, 4)
    assert_close(F.softmax(x, dim=1, dtype=ak.float64), torch.softmax(torch.tensor(x.numpy()), 1, dtype=torch.float64),
                 1e-6, 1e-7)
    with pytest.warns(UserWarning):
        F.log_softmax(x)
    y = ak.ones(1000)
    F.dropout(y, 0.5, True, True)  # torch's fourth argument is inplace
    vals = set(np.unique(y.numpy()).tolist())
    assert vals <= {0.0, 2.0} and len(vals) == 2


def test_buffer_assignment_registers_like_torch():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.kept = nn.Buffer(ak.ones(2))
            self.scratch = nn.Buffer(ak.zeros(3), persistent=False)

    class TNet(tnn.Module):
        def __init__(self):
            super().__init__()
            self.kept = tnn.Buffer(torch.ones(2))
            self.scratch = tnn.Buffer(torch.zeros(3), persistent=False)

    m, t = Net(), TNet()
    assert list(m.state_dict()) == list(t.state_dict()) == ["kept"]
    assert [n for n, _ in m.named_buffers()] == [n for n, _ in t.named_buffers()]
    assert not isinstance(m.kept, nn.Buffer) and list(m.parameters()) == []
