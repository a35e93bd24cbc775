"""EMNIST(download=True) against a small archive served on 127.0.0.1: never the network.

The server speaks enough HTTP for the downloader: Range requests (206 and 416), and, when asked,
dropping the connection half-way through a response.
"""
from __future__ import annotations

import hashlib
import http.server
import io
import threading
import zipfile
from pathlib import Path

import numpy as np
import pytest

from aakaar.data import EMNIST, DownloadError
from aakaar.data import emnist as emnist_module
from aakaar.data.download import download_file, extract_members

from test_emnist_files import make_split  # noqa: E402  (the generator of official-format files)


class Server:
    """Serves one payload at /gzip.zip; `drop_after` bytes into the next response it hangs up."""

    def __init__(self, payload: bytes) -> None:
        self.payload = payload
        self.drop_after: int | None = None
        self.ranges: list[str | None] = []
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet test output
                pass

            def do_GET(self):
                data = server.payload
                rng = self.headers.get("Range")
                server.ranges.append(rng)
                start = int(rng.split("=")[1].split("-")[0]) if rng else 0
                if start >= len(data) and rng:
                    self.send_response(416)
                    self.end_headers()
                    return
                body = data[start:]
                self.send_response(206 if rng else 200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if server.drop_after is not None:
                    cut, server.drop_after = server.drop_after, None
                    self.wfile.write(body[:cut])
                    self.wfile.flush()
                    self.connection.shutdown(2)  # hang up mid-response
                    return
                self.wfile.write(body)

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/gzip.zip"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def make_archive(tmp: Path) -> tuple[bytes, np.ndarray]:
    """A zip laid out as NIST's (files under gzip/) holding the digits test split."""
    src = tmp / "src"
    src.mkdir()
    upright, _ = make_split(src, "digits", False, n=7)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for f in sorted(src.iterdir()):
            z.write(f, f"gzip/{f.name}")
        z.writestr("gzip/emnist-balanced-train-images-idx3-ubyte.gz", b"\0" * 50_000)  # not extracted
    return buf.getvalue(), upright


@pytest.fixture
def served(tmp_path, monkeypatch):
    payload, upright = make_archive(tmp_path)
    server = Server(payload)
    monkeypatch.setattr(emnist_module, "OFFICIAL_URL", server.url)
    monkeypatch.setattr(emnist_module, "ARCHIVE_CHECKSUM", ("sha256", hashlib.sha256(payload).hexdigest()))
    monkeypatch.delenv("AAKAAR_DATA", raising=False)
    yield server, upright
    server.close()


def test_download_extracts_only_the_split_and_loads_it(tmp_path, served):
    server, upright = served
    root = tmp_path / "data"
    ds = EMNIST(root, split="digits", train=False, download=True)
    np.testing.assert_array_equal(ds.data.numpy(), upright)
    names = sorted(p.name for p in root.iterdir())
    assert names == ["emnist-digits-mapping.txt", "emnist-digits-test-images-idx3-ubyte.gz",
                     "emnist-digits-test-labels-idx1-ubyte.gz", "gzip.zip"]  # no balanced file, no .part
    assert (root / "emnist-digits-mapping.txt").stat().st_mode & 0o777 == 0o644
    EMNIST(root, split="digits", train=False, download=True)  # a second time: found, nothing fetched
    assert len(server.ranges) == 1


def test_a_checksum_mismatch_deletes_the_download(tmp_path, served, monkeypatch):
    monkeypatch.setattr(emnist_module, "ARCHIVE_CHECKSUM", ("sha256", "0" * 64))
    root = tmp_path / "data"
    with pytest.raises(DownloadError, match="sha256 checksum mismatch .* the download was deleted"):
        EMNIST(root, split="digits", train=False, download=True)
    assert not any(root.glob("gzip.zip*"))


def test_a_partial_download_is_resumed_with_a_range_request(tmp_path, served):
    server, upright = served
    root = tmp_path / "data"
    root.mkdir()
    (root / "gzip.zip.part").write_bytes(server.payload[:1000])
    ds = EMNIST(root, split="digits", train=False, download=True)
    np.testing.assert_array_equal(ds.data.numpy(), upright)
    assert server.ranges == ["bytes=1000-"]


def test_a_dropped_connection_is_resumed(tmp_path, served):
    server, upright = served
    server.drop_after = 777
    ds = EMNIST(tmp_path / "data", split="digits", train=False, download=True)
    np.testing.assert_array_equal(ds.data.numpy(), upright)
    assert server.ranges == [None, "bytes=777-"]


def test_a_server_that_keeps_failing_is_a_clear_error_and_keeps_what_arrived(tmp_path, served):
    server, _ = served
    server.close()  # nobody listens any more
    root = tmp_path / "data"
    with pytest.raises(DownloadError, match="could not download .* the next attempt resumes") as e:
        EMNIST(root, split="digits", train=False, download=True)
    assert "EMNIST not found" in str(e.value) and "gzip.zip" in str(e.value)
    assert not (root / "gzip.zip").exists()


def test_download_file_and_extract_members_directly(tmp_path, served):
    server, _ = served
    target = download_file(server.url, tmp_path / "a.zip", algorithm="sha256",
                           digest=hashlib.sha256(server.payload).hexdigest(), progress=False)
    assert target.read_bytes() == server.payload
    with pytest.raises(DownloadError, match="has no member 'gzip/missing'"):
        extract_members(target, ["gzip/missing"], tmp_path / "out")
    (tmp_path / "bad.zip").write_bytes(b"not a zip")
    with pytest.raises(DownloadError, match="not a valid zip archive"):
        extract_members(tmp_path / "bad.zip", ["x"], tmp_path / "out")
