"""The confusion explorer (chapter 17): its matrix counts what the model predicted, its kept samples
are the ones behind each cell, and its JavaScript normalises and ranks the cells as numpy does."""
from __future__ import annotations

import base64
import json

import numpy as np
import pytest

from aakaar.book.widgets import ConfusionExplorer, confusion_matrix
from widget_helpers import run_js


def _case(seed=0, n=400, classes=6):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, classes, n)
    predictions = np.where(rng.random(n) < 0.7, labels, rng.integers(0, classes, n))
    images = rng.integers(0, 256, (n, 28, 28), dtype=np.uint8)
    return images, labels, predictions, [chr(ord("A") + k) for k in range(classes)]


def test_the_matrix_counts_every_pair():
    _, labels, predictions, classes = _case()
    counts = confusion_matrix(labels, predictions, len(classes))
    for t in range(len(classes)):
        for p in range(len(classes)):
            assert counts[t, p] == np.sum((labels == t) & (predictions == p))
    assert counts.sum() == len(labels)


def test_the_kept_samples_are_those_of_their_cell():
    images, labels, predictions, classes = _case()
    w = ConfusionExplorer(images, labels, predictions, classes, top=5, per_cell=3)
    assert len(w.examples) == 5
    off = np.array(w.counts)
    np.fill_diagonal(off, 0)
    kept_counts = sorted((off[tuple(map(int, k.split(",")))] for k in w.examples), reverse=True)
    assert kept_counts == sorted(off.ravel(), reverse=True)[:5]  # the most frequent confusions
    for key, kept in w.examples.items():
        t, p = map(int, key.split(","))
        want = images[(labels == t) & (predictions == p)][:3]
        got = np.stack([np.frombuffer(base64.b64decode(k), np.uint8) for k in kept]).reshape(-1, 28, 28)
        assert np.array_equal(got, want)
    t, p = w.selected
    assert off[t, p] == off.max()


def test_bad_arguments_are_clear_errors():
    images, labels, predictions, classes = _case()
    with pytest.raises(ValueError, match="uint8 of shape"):
        ConfusionExplorer(images.astype(np.float32), labels, predictions, classes)
    with pytest.raises(ValueError, match="400 images but 399 labels"):
        ConfusionExplorer(images, labels[:-1], predictions[:-1], classes)
    with pytest.raises(ValueError, match=r"must lie in \[0, 6\)"):
        confusion_matrix(labels, predictions + 1, 6)


def test_js_normalises_and_ranks_like_numpy(need_program, tmp_path):
    _, labels, predictions, classes = _case(seed=3, classes=5)
    counts = confusion_matrix(labels, predictions, 5)
    counts[4] = 0  # a class with no samples
    got = run_js(need_program, tmp_path, "confusion_explorer.js",
                 f"const c = {json.dumps(counts.tolist())};\n"
                 f"const img = {json.dumps(base64.b64encode(bytes(range(256)) * 3 + bytes(16)).decode())};\n"
                 "console.log(JSON.stringify([m.rowNormalise(c), m.topConfusions(c, 4), Array.from(m.decodeImage(img))]));")
    rows = counts.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(got[0], np.divide(counts, rows, out=np.zeros(counts.shape), where=rows > 0))
    off = [(int(counts[t, p]), t, p) for t in range(5) for p in range(5) if t != p and counts[t, p]]
    want = [[t, p, v] for v, t, p in sorted(off, key=lambda x: (-x[0], x[1], x[2]))[:4]]
    assert got[1] == want
    assert got[2] == list(range(256)) * 3 + [0] * 16  # an image's bytes survive the trip through base64
