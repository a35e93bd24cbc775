"""EMNIST and the IDX reader: small generated files in the official format, every split, every bad file."""
from __future__ import annotations

import gzip
import os
import struct
from pathlib import Path

import numpy as np
import pytest

import aakaar as ak
from aakaar.data import EMNIST, DataLoader, IdxError, read_idx
from aakaar.data.emnist import SHARED_DIR, SPLITS, emnist_files

MAPPINGS = {"digits": range(48, 58), "mnist": range(48, 58), "letters": range(65, 91)}


def write_idx(path: Path, array: np.ndarray, compress: bool = True) -> None:
    head = bytes([0, 0, 0x08, array.ndim]) + b"".join(struct.pack(">I", d) for d in array.shape)
    data = head + array.astype(np.uint8).tobytes()
    path.write_bytes(gzip.compress(data) if compress else data)


def make_split(folder: Path, split: str, train: bool, n: int = 5, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Writes one split as NIST does: images stored transposed. Returns the upright images and the labels."""
    rng = np.random.default_rng(seed)
    upright = rng.integers(0, 256, (n, 28, 28), dtype=np.uint8)
    codes = list(MAPPINGS.get(split, range(48, 48 + 47)))
    labels = rng.integers(0, len(codes), n).astype(np.uint8)
    images_file, labels_file, mapping_file = emnist_files(split, train)
    write_idx(folder / images_file, upright.transpose(0, 2, 1))
    write_idx(folder / labels_file, labels)
    (folder / mapping_file).write_text("".join(f"{k} {c}\n" for k, c in enumerate(codes)))
    return upright, labels


@pytest.mark.parametrize("split", SPLITS)
@pytest.mark.parametrize("train", [True, False])
def test_every_split_reads_upright_images_labels_and_mapping(tmp_path, split, train):
    upright, labels = make_split(tmp_path, split, train, n=6)
    ds = EMNIST(tmp_path, split=split, train=train)
    assert len(ds) == 6
    np.testing.assert_array_equal(ds.data.numpy(), upright)  # the transposition is undone
    image, label = ds[3]
    assert image.shape == (28, 28) and image.dtype == ak.uint8 and label == int(labels[3])
    assert ds.classes[0] == chr(next(iter(MAPPINGS.get(split, range(48, 95))))) and len(ds.classes) > 1
    x, y = next(iter(DataLoader(ds, batch_size=4)))
    assert x.shape == (4, 28, 28) and y.tolist() == labels[:4].tolist()


def test_transforms_apply_per_sample_and_turn_the_native_gather_off(tmp_path):
    upright, labels = make_split(tmp_path, "digits", True)
    ds = EMNIST(tmp_path, split="digits", transform=lambda im: im.float() / 255, target_transform=lambda t: t + 100)
    assert not hasattr(ds, "gather") and hasattr(EMNIST(tmp_path, split="digits"), "gather")
    image, label = ds[0]
    assert image.dtype == ak.float32 and label == int(labels[0]) + 100
    x, y = next(iter(DataLoader(ds, batch_size=2)))
    np.testing.assert_allclose(x.numpy(), upright[:2] / 255, rtol=1e-6)


def test_uncompressed_idx_reads_too(tmp_path):
    write_idx(tmp_path / "a.idx", np.arange(6).reshape(2, 3), compress=False)
    assert read_idx(tmp_path / "a.idx").tolist() == [[0, 1, 2], [3, 4, 5]]


@pytest.mark.parametrize("damage, message", [
    (lambda b: b"\x08\x03" + b[2:], "not an IDX file"),
    (lambda b: b[:3], "not an IDX file"),
    (lambda b: b[:10], "truncated header"),
    (lambda b: b[:-5], "truncated or corrupt"),
    (lambda b: b + b"\x00", "truncated or corrupt"),
])
def test_bad_idx_files_are_clear_errors(tmp_path, damage, message):
    good = tmp_path / "good.idx"
    write_idx(good, np.zeros((2, 28, 28)), compress=False)
    bad = tmp_path / "bad.idx"
    bad.write_bytes(damage(good.read_bytes()))
    with pytest.raises(IdxError, match=message):
        read_idx(bad)


def test_a_truncated_gzip_file_is_a_clear_error(tmp_path):
    make_split(tmp_path, "mnist", False)
    images = tmp_path / emnist_files("mnist", False)[0]
    images.write_bytes(images.read_bytes()[:-40])
    with pytest.raises(IdxError, match="cannot be read as"):
        EMNIST(tmp_path, split="mnist", train=False)


def test_mismatched_counts_mapping_and_labels_are_clear_errors(tmp_path):
    make_split(tmp_path, "digits", True, n=5)
    write_idx(tmp_path / emnist_files("digits", True)[1], np.zeros(4))
    with pytest.raises(IdxError, match="holds 5 images but .* 4 labels"):
        EMNIST(tmp_path, split="digits")
    make_split(tmp_path, "digits", True, n=5)
    (tmp_path / "emnist-digits-mapping.txt").write_text("0 48\nnot a line\n")
    with pytest.raises(IdxError, match="line 2: expected 'label ascii_code'"):
        EMNIST(tmp_path, split="digits")
    (tmp_path / "emnist-digits-mapping.txt").write_text("0 48\n")
    with pytest.raises(IdxError, match="has no entry in emnist-digits-mapping.txt"):
        EMNIST(tmp_path, split="digits")


def test_unknown_split_and_missing_files_say_what_and_where(tmp_path, monkeypatch):
    with pytest.raises(ValueError, match="unknown split 'balance'; the splits are balanced, byclass"):
        EMNIST(tmp_path, split="balance")
    with pytest.raises(FileNotFoundError) as e:
        EMNIST(tmp_path, split="letters")
    assert "EMNIST not found: no emnist-letters-train-images-idx3-ubyte.gz" in str(e.value)
    assert str(tmp_path) in str(e.value) and "gzip.zip" in str(e.value) and "AAKAAR_DATA" in str(e.value)


def test_the_lookup_order_is_root_then_aakaar_data_then_cache(tmp_path, monkeypatch):
    env, cache = tmp_path / "env", tmp_path / "cache"
    (env / "emnist").mkdir(parents=True)
    (cache / "aakaar" / "emnist").mkdir(parents=True)
    make_split(cache / "aakaar" / "emnist", "digits", False, n=3)
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    monkeypatch.setenv("AAKAAR_DATA", str(env))
    assert len(EMNIST(split="digits", train=False)) == 3  # from the cache
    make_split(env / "emnist", "digits", False, n=4)
    assert len(EMNIST(split="digits", train=False)) == 4  # AAKAAR_DATA/emnist comes first
    make_split(tmp_path, "digits", False, n=2)
    assert len(EMNIST(tmp_path, split="digits", train=False)) == 2  # an explicit root wins


@pytest.mark.skipif(not (SHARED_DIR / "emnist-mnist-test-images-idx3-ubyte.gz").is_file(),
                    reason="the shared EMNIST files are not beside this checkout")
def test_the_real_files_are_upright(monkeypatch):
    """On the real MNIST test split the mean "1" is a vertical stroke: its column means vary far more
    than its row means, which is true only of upright images."""
    monkeypatch.delenv("AAKAAR_DATA", raising=False)
    ds = EMNIST(SHARED_DIR, split="mnist", train=False)
    assert len(ds) == 10_000 and ds.classes == list("0123456789")
    ones = ds.data.numpy()[ds.targets.numpy() == 1].astype(np.float64).mean(0)
    assert ones.mean(0).std() > 2 * ones.mean(1).std()  # 2.7x here; transposed it would be 0.4x
