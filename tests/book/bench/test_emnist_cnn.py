"""The EMNIST benchmark's CNN (--model cnn): built alike in aakaar and PyTorch from the same weights, it
trains alike on the same batches, and the run says which model it trained. Tiny sizes; no timing asserted."""
from __future__ import annotations

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("matplotlib")

from aakaar.book.bench import emnist_benchmark as eb  # noqa: E402
from aakaar.book.bench.emnist_profile import layer_matmul_flops, matmul_flops, share_line  # noqa: E402
from test_emnist_benchmark import no_emnist  # noqa: E402,F401  (the fixture: no EMNIST anywhere)


def test_the_mlp_weights_are_drawn_as_before_and_the_cnn_like_torch_defaults():
    mlp = eb.initial_weights(0)
    assert [w.shape for w in mlp] == [(256, 784), (256,), (128, 256), (128,), (47, 128), (47,)]
    assert all(np.array_equal(a, b) for a, b in zip(mlp, eb.initial_weights(0, "mlp")))
    cnn = eb.initial_weights(0, "cnn")
    assert [w.shape for w in cnn] == [(32, 1, 3, 3), (32,), (64, 32, 3, 3), (64,), (128, 3136), (128,), (47, 128), (47,)]
    # torch's Conv2d and Linear defaults draw weight and bias from U(+-1/sqrt(fan_in)), as the copies are drawn
    torch.manual_seed(0)
    layers = [torch.nn.Conv2d(1, 32, 3), torch.nn.Conv2d(32, 64, 3), torch.nn.Linear(3136, 128), torch.nn.Linear(128, 47)]
    for layer, w, b in zip(layers, cnn[0::2], cnn[1::2]):
        bound = 1 / np.sqrt(np.prod(w.shape[1:]))
        assert layer.weight.abs().max().item() <= bound and layer.bias.abs().max().item() <= bound
        assert np.abs(w).max() <= bound and np.abs(b).max() <= bound and np.abs(w).max() > 0.9 * bound
    with pytest.raises(ValueError, match="model must be one of"):
        eb.initial_weights(0, "rnn")


def test_the_cnn_is_the_same_network_in_both_libraries(no_emnist):
    d = eb.benchmark_data(synthetic_size=64)
    weights = eb.initial_weights(1, "cnn")
    a = eb.aakaar_contestant(d, weights, "sgd", model_name="cnn")
    t = eb.torch_contestant(d, weights, "sgd", "default", model_name="cnn")
    for pa, pt in zip(a.parameters(), t.parameters()):
        assert np.array_equal(pa, pt)
    acc_a, loss_a = a.accuracy()
    acc_t, loss_t = t.accuracy()
    assert acc_a == acc_t and loss_a == pytest.approx(loss_t, rel=1e-5)


@pytest.mark.parametrize("optimizer", ["sgd", "adam"])
def test_the_first_steps_losses_agree_with_torch(no_emnist, optimizer):
    d = eb.benchmark_data(synthetic_size=96)
    weights = eb.initial_weights(0, "cnn")
    batches = eb.epoch_orders(len(d.x_train), 16, 1, 0)[0]
    agreement = eb.first_steps_agreement(d, weights, optimizer, batches, 5, model_name="cnn")
    assert agreement["steps"] == 5
    assert agreement["max_relative_loss_difference"] < 1e-4
    assert agreement["max_parameter_difference"] < 1e-4


def test_a_short_cnn_run_trains_alike_and_says_it_was_the_cnn(no_emnist, tmp_path):
    results = eb.run(epochs=1, batch=16, optimizers=("sgd",), train_size=64, check_steps=3, progress=False,
                     synthetic_size=64, model="cnn", note="a test run")
    sgd = results["runs"][0]["optimizers"]["sgd"]
    assert set(sgd["contestants"]) == {"aakaar sgd", "torch sgd default", "torch sgd foreach", "torch sgd fused"}
    losses = [r["epoch_train_loss"][0] for r in sgd["contestants"].values()]
    assert max(losses) - min(losses) < 1e-3 * max(losses)  # same weights, same batches: the same training
    assert results["config"]["model"] == "cnn" and "conv 1-32 3x3" in results["config"]["layers"]
    path = tmp_path / "cnn.json"
    eb.write_outputs(results, str(path))
    md = (tmp_path / "cnn.md").read_text()
    assert "CNN (conv 1-32 3x3" in md and "Note: a test run" in md
    assert json.loads(path.read_text())["note"] == "a test run"


def test_the_cnn_profile_counts_its_convolutions_as_matrix_products(no_emnist, tmp_path):
    per_sample = eb.forward_flops_per_sample("cnn")
    assert per_sample[0] == 2 * 32 * 9 * 28 * 28 and per_sample[1] == 2 * 64 * 32 * 9 * 14 * 14
    assert eb.forward_flops_per_sample("mlp") == [2 * 784 * 256, 2 * 256 * 128, 2 * 128 * 47]
    assert layer_matmul_flops(eb.forward_flops_per_sample("mlp"), 10) == matmul_flops(eb.SIZES, 10)
    results = eb.run(epochs=1, batch=32, optimizers=("sgd",), train_size=64, check_steps=1, progress=False,
                     synthetic_size=64, model="cnn", profile=True)
    p = results["profile"]["sgd"]
    assert {"conv2d", "conv2d_backward", "max_pool2d"} <= {r["entry"].split("/")[0] for r in p["rows"]}
    assert p["chapters"]["13b"]["share"] > 0
    assert p["gemm_floor"]["matmul_gflop"] == pytest.approx(layer_matmul_flops(per_sample, 64) / 1e9)
    # chapter 13b's line in its "In the library" box reads the CNN's committed profile, not the MLP's
    path = tmp_path / "cnn.json"
    eb.write_outputs(results, str(path))
    line = share_line("13b", path=str(path))
    assert f"{p['chapters']['13b']['share']:.1%}" in line and "the EMNIST benchmark's CNN" in line
    assert "`conv2d`, `conv2d_backward`, `max_pool2d`" in line
    with pytest.raises(FileNotFoundError, match="--model cnn --profile"):
        share_line("13b", path=str(tmp_path / "none.json"))


def test_an_unknown_model_is_refused_on_the_command_line(capsys):
    with pytest.raises(SystemExit):
        eb.main(["--model", "rnn"])
    assert "invalid choice: 'rnn'" in capsys.readouterr().err


def test_the_held_out_part_can_be_capped(no_emnist):
    d = eb.benchmark_data(synthetic_size=120, held_out_size=7)
    assert d.x_test.shape == (7, 784) and "120 train and 7 held-out glyphs" in d.description
    with pytest.raises(SystemExit):
        eb.main(["--held-out", "0"])
