"""The EMNIST benchmark program: its data is said plainly, aakaar and PyTorch train alike, its files
are written whole and readable. Tiny sizes; no timing is asserted."""
from __future__ import annotations

import json
import stat

from pathlib import Path

import numpy as np
import pytest

import aakaar as ak

torch = pytest.importorskip("torch")
pytest.importorskip("matplotlib")

from aakaar.book.bench import emnist_benchmark as eb  # noqa: E402
from aakaar.data import emnist  # noqa: E402


@pytest.fixture
def no_emnist(tmp_path, monkeypatch):
    """No EMNIST anywhere, as on a user's machine without the files."""
    monkeypatch.setenv("AAKAAR_DATA", str(tmp_path / "empty"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(emnist, "SHARED_DIR", tmp_path / "no-shared")
    return tmp_path


def test_without_emnist_the_data_is_synthetic_and_says_so(no_emnist):
    d = eb.benchmark_data(synthetic_size=120)
    assert d.source == "synthetic" and d.x_train.shape == (120, 784) and d.x_test.shape == (20, 784)
    assert d.description.startswith("SYNTHETIC data") and "EMNIST was not found" in d.description
    assert "gzip.zip" in d.description and "say nothing about real handwriting" in d.description


def test_a_test_split_alone_is_carved_into_train_and_held_out(tmp_path):
    import gzip
    import struct

    rng = np.random.default_rng(0)
    for name, array in [("emnist-bymerge-test-images-idx3-ubyte.gz", rng.integers(0, 256, (50, 28, 28))),
                        ("emnist-bymerge-test-labels-idx1-ubyte.gz", rng.integers(0, 47, 50))]:
        head = bytes([0, 0, 8, array.ndim]) + b"".join(struct.pack(">I", n) for n in array.shape)
        (tmp_path / name).write_bytes(gzip.compress(head + array.astype(np.uint8).tobytes()))
    d = eb.benchmark_data(str(tmp_path), train_size=40)
    assert d.source == "emnist" and len(d.x_train) == 40 and len(d.x_test) == 10
    assert "its train files are not there" in d.description and "40 train and 10 held out" in d.description
    again = eb.benchmark_data(str(tmp_path), train_size=40)
    assert np.array_equal(d.y_train, again.y_train)  # the split is seeded


def test_a_short_run_trains_alike_and_writes_its_files(no_emnist, tmp_path):
    results = eb.run(epochs=2, batch=16, optimizers=("sgd",), train_size=100, check_steps=10, progress=False,
                     synthetic_size=160)
    (run,) = results["runs"]
    sgd = run["optimizers"]["sgd"]
    assert set(sgd["contestants"]) == {"aakaar sgd", "torch sgd default", "torch sgd foreach", "torch sgd fused"}
    assert results["first_steps"]["sgd"]["max_relative_loss_difference"] < 1e-4
    accuracies = [r["epoch_accuracy"][-1] for r in sgd["contestants"].values()]
    assert max(accuracies) - min(accuracies) < 0.02  # same weights, same batches: the same model, nearly
    assert sgd["ratio_total"] > 0 and sgd["best_torch"].startswith("torch sgd")
    written = eb.write_outputs(results, str(tmp_path / "out" / "emnist.json"))
    assert [p.rsplit(".", 1)[1] for p in written] == ["json", "md", "png"]
    for path in written:
        assert stat.S_IMODE((tmp_path / "out" / path.rsplit("/", 1)[1]).stat().st_mode) == 0o644
    assert json.loads((tmp_path / "out" / "emnist.json").read_text())["data"]["source"] == "synthetic"
    assert "(SYNTHETIC data)" in (tmp_path / "out" / "emnist.md").read_text()


def test_thread_counts_and_seeds_each_run_and_are_summarised(no_emnist):
    results = eb.run(epochs=1, batch=32, threads=[1, 2], optimizers=("sgd",), seed=[0, 1], train_size=96,
                     check_steps=3, progress=False, synthetic_size=96)
    assert [(r["threads"], r["seed"]) for r in results["runs"]] == [(1, 0), (1, 1), (2, 0), (2, 1)]
    assert list(results["summary"]) == ["1 thread/sgd", "2 threads/sgd"]
    one = results["summary"]["1 thread/sgd"]
    accs = one["contestants"]["aakaar sgd"]["accuracies"]
    assert len(accs) == 2 and one["contestants"]["aakaar sgd"]["accuracy_mean"] == pytest.approx(np.mean(accs))
    lo, hi = one["ratio_total_range"]
    assert 0 < lo <= one["ratio_total_median"] <= hi
    # different seeds start from different weights: the runs are not copies of one another
    w0, w1 = eb.initial_weights(0), eb.initial_weights(1)
    assert not np.array_equal(w0[0], w1[0])
    # the same seed at two thread counts trains the same model (same weights, same batch order)
    assert results["runs"][0]["optimizers"]["sgd"]["contestants"]["aakaar sgd"]["epoch_train_loss"] == \
        pytest.approx(results["runs"][2]["optimizers"]["sgd"]["contestants"]["aakaar sgd"]["epoch_train_loss"],
                      rel=1e-5)


def test_the_profile_credits_every_kernel_to_a_chapter(no_emnist):
    results = eb.run(epochs=1, batch=32, optimizers=("adam",), train_size=128, check_steps=2, progress=False,
                     synthetic_size=128, profile=True)
    p = results["profile"]["adam"]
    entries = {r["entry"].split("/")[0] for r in p["rows"]}
    assert {"linear", "linear_backward", "optimizer_step", "cross_entropy", "index_select"} <= entries
    assert {"06", "14", "15", "16", "11-13"} <= set(p["chapters"])
    # every second of the profiled epoch is somewhere: the chapters' shares add up to the whole
    assert sum(c["seconds"] for c in p["chapters"].values()) == pytest.approx(p["wall_seconds"], rel=1e-6)
    # the GEMM floor counts the epoch's products: 128 samples through 784-256-128-47, forward and backward
    assert p["gemm_floor"]["matmul_gflop"] == pytest.approx(
        128 * 2 * (784 * 256 + 256 * 128 + 128 * 47) * 2 / 1e9 + 128 * 2 * (256 * 128 + 128 * 47) / 1e9)
    assert "## Where aakaar's time goes: one epoch with adam" in eb.report(results)


def test_an_entry_no_chapter_claims_is_an_error():
    from aakaar.book.bench.emnist_profile import chapter_of

    assert chapter_of("bmm") == "06"
    with pytest.raises(KeyError, match="credited to no chapter"):
        chapter_of("a_new_kernel")


def test_cuda_without_a_gpu_says_so(no_emnist, capsys):
    if ak.cuda.is_available():
        pytest.skip("a CUDA device is present")
    with pytest.raises(SystemExit, match="--device cuda: .*run with --device cpu"):
        eb.run(epochs=1, optimizers=("sgd",), synthetic_size=64, progress=False, device="cuda")


def test_thread_and_seed_lists_parse():
    assert eb._int_list("1,2") == [1, 2] and eb._int_list("0-4") == [0, 1, 2, 3, 4] and eb._int_list("3") == [3]
    for bad in ("a", "1,,2", "-1"):
        with pytest.raises(Exception, match="expected"):
            eb._int_list(bad)


def test_a_folder_is_shown_relative_when_shorter(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "data" / "emnist").mkdir(parents=True)
    assert eb.shown_path(tmp_path / "data" / "emnist") == "data/emnist"
    assert eb.shown_path(Path("/")) == "/"


def test_each_chapter_gets_its_share_of_the_committed_profile(no_emnist, tmp_path):
    from aakaar.book.bench.emnist_profile import share_line

    results = eb.run(epochs=1, batch=32, optimizers=("sgd",), train_size=96, check_steps=2, progress=False,
                     synthetic_size=96, profile=True)
    path = tmp_path / "bench.json"
    eb.write_outputs(results, str(path))
    chapters = results["profile"]["sgd"]["chapters"]
    assert f"{chapters['06']['share']:.1%}" in share_line("06", path=str(path))
    assert "`bmm`, `linear`, `linear_backward`" in share_line("06", path=str(path))
    # chapters 6 and 6b climb one GEMM ladder: both name the same kernels and the same share
    assert share_line("06b", path=str(path)) == share_line("06", path=str(path))
    assert "chapters 6 and 6b" in share_line("06b", path=str(path))
    assert f"{chapters['11-13']['share']:.1%}" in share_line("12", path=str(path))
    assert "trained on the CPU" in share_line("08", path=str(path))
    assert "all of it" in share_line("17", path=str(path))
    with pytest.raises(KeyError, match="runs no kernel"):
        share_line("01", path=str(path))
    with pytest.raises(FileNotFoundError, match="committed EMNIST benchmark results are missing"):
        share_line("06", path=str(tmp_path / "none.json"))
