"""The EMNIST benchmark program: its data is said plainly, aakaar and PyTorch train alike, its files
are written whole and readable. Tiny sizes; no timing is asserted."""
from __future__ import annotations

import json
import stat

import numpy as np
import pytest

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
    sgd = results["optimizers"]["sgd"]
    assert set(sgd["contestants"]) == {"aakaar sgd", "torch sgd default", "torch sgd foreach", "torch sgd fused"}
    assert sgd["first_steps"]["max_relative_loss_difference"] < 1e-4
    accuracies = [r["epoch_accuracy"][-1] for r in sgd["contestants"].values()]
    assert max(accuracies) - min(accuracies) < 0.02  # same weights, same batches: the same model, nearly
    assert sgd["ratio_total"] > 0 and sgd["best_torch"].startswith("torch sgd")
    written = eb.write_outputs(results, str(tmp_path / "out" / "emnist.json"))
    assert [p.rsplit(".", 1)[1] for p in written] == ["json", "md", "png"]
    for path in written:
        assert stat.S_IMODE((tmp_path / "out" / path.rsplit("/", 1)[1]).stat().st_mode) == 0o644
    assert json.loads((tmp_path / "out" / "emnist.json").read_text())["data"]["source"] == "synthetic"
    assert "(SYNTHETIC data)" in (tmp_path / "out" / "emnist.md").read_text()
