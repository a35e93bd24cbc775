"""The benchmarks' data and results: EMNIST is looked for where docs/DESIGN.md says
(an explicit folder, AAKAAR_DATA, the download cache, ../shared/data/emnist) and its absence is said
plainly, never a silent fallback; result files are readable by everyone."""

from __future__ import annotations

import gzip
import json
import os
import stat

import numpy as np
import pytest

from aakaar.book.bench import train_step as ts
from aakaar.book.bench.io import write_json_atomic
from aakaar.data import emnist


@pytest.fixture
def no_emnist(tmp_path, monkeypatch):
    """AAKAAR_DATA names an empty folder and there is no ../shared: as in a user's fresh clone."""
    empty = tmp_path / "data"
    empty.mkdir()
    monkeypatch.setenv(emnist.ENV_VAR, str(empty))
    monkeypatch.setattr(emnist, "SHARED_DIR", tmp_path / "no-shared" / "data" / "emnist")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "no-cache"))
    return empty


def find():
    return emnist.find_emnist((ts.EMNIST_IMAGES, ts.EMNIST_LABELS))


def _write_idx(folder, n):
    """n fake 28x28 images, image i holding value i at row 0, column 1 (as stored: transposed), labels i."""
    images = np.zeros((n, 28, 28), np.uint8)
    images[np.arange(n), 0, 1] = np.arange(n)
    with gzip.open(folder / ts.EMNIST_IMAGES, "wb") as f:
        f.write(bytes(16) + images.tobytes())
    with gzip.open(folder / ts.EMNIST_LABELS, "wb") as f:
        f.write(bytes(8) + np.arange(n, dtype=np.uint8).tobytes())


def test_missing_emnist_is_said_plainly_with_what_was_used_and_how_to_get_it(no_emnist, capsys):
    assert find() is None
    batches, where = ts.load_batches(4, None)
    assert len(batches) == ts.N_BATCHES and batches[0][0].shape == (4, 784) and batches[0][1].shape == (4,)
    err = capsys.readouterr().err
    assert "EMNIST not found" in err
    assert str(no_emnist) in err and str(emnist.SHARED_DIR) in err  # where it looked
    assert "random 28x28 images" in err  # what it used instead
    assert emnist.OFFICIAL_URL in err and emnist.ENV_VAR in err and ts.EMNIST_IMAGES in err  # how to get them
    assert where.startswith("EMNIST not found")  # and the benchmark's record says so too


def test_random_data_asked_for_needs_no_message(no_emnist, capsys):
    _, where = ts.load_batches(4, "random")
    assert capsys.readouterr().err == ""
    assert where.startswith("64 random images")


def test_aakaar_data_is_looked_in_first(no_emnist, capsys):
    _write_idx(no_emnist, ts.N_BATCHES * 4)
    assert find() == no_emnist
    batches, where = ts.load_batches(4, None)
    assert capsys.readouterr().err == ""
    assert ts.EMNIST_IMAGES in where
    x, y = batches[1]
    np.testing.assert_array_equal(y, [4, 5, 6, 7])
    # transposed back: the stored (row 0, column 1) is pixel (row 1, column 0) = index 28
    np.testing.assert_allclose(x[:, 28], np.arange(4, 8) / 255.0, rtol=1e-6)


def test_an_emnist_subfolder_of_aakaar_data_is_found(no_emnist):
    (no_emnist / "emnist").mkdir()
    _write_idx(no_emnist / "emnist", 1)
    assert find() == no_emnist / "emnist"


def test_an_explicit_folder_without_the_files_says_so(no_emnist, tmp_path, capsys):
    _write_idx(no_emnist, ts.N_BATCHES * 4)  # present in AAKAAR_DATA, but the caller named another folder
    ts.load_batches(4, str(tmp_path / "elsewhere"))
    err = capsys.readouterr().err
    assert "EMNIST not found" in err and str(tmp_path / "elsewhere") in err


def test_results_are_readable_by_everyone(tmp_path):
    old = os.umask(0o022)
    try:
        path = tmp_path / "artifacts" / "bench.json"
        write_json_atomic(str(path), {"ratio": 0.5})
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    assert json.loads(path.read_text()) == {"ratio": 0.5}
    assert [p.name for p in path.parent.iterdir()] == ["bench.json"]  # no temporary file left behind
