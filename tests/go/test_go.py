"""Runs the Go tests (go/: the runtime, batcher and HTTP server of chapter 18) from pytest, so
that the project's one test command (bash scripts/test.sh) runs them too.

`go test ./...` builds go/ with the cgo flags of go/env.sh for this interpreter (sys.executable:
the virtual environment's python, whose libpython the Go binaries embed) and runs every package's
tests. In CI (CI=true) a missing `go` fails; elsewhere the test is skipped and says why
(scripts/setup.sh installs Go when it runs as root).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
IN_CI = os.environ.get("CI", "").lower() == "true"


def go_or_skip() -> str:
    go = shutil.which("go")
    if go is None:
        msg = ("`go` is not installed: bash scripts/setup.sh installs Debian's golang-go when run as root "
               "(or: apt-get install golang-go)")
        if IN_CI:
            pytest.fail(f"CI must run the Go tests: {msg}")
        pytest.skip(msg)
    return go


@pytest.mark.xdist_group("go")
def test_go_test_passes():
    go_or_skip()
    env = dict(os.environ, AAKAAR_PYTHON=sys.executable, GOPROXY="off", GOFLAGS="-mod=mod", GOMAXPROCS="2")
    # The Go build cache lives in the user's cache folder; a read-only or absent HOME gets one in /tmp.
    if not os.access(os.path.expanduser("~"), os.W_OK):
        env["GOCACHE"] = "/tmp/aakaar-go-cache"
    cmd = "source go/env.sh && cd go && go vet ./... && go test -count=1 -timeout 300s ./..."
    proc = subprocess.run(["bash", "-c", cmd], cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"go test ./... failed:\n{out[-6000:]}"
    assert "ok  \taakaar\t" in out and "ok  \taakaar/server\t" in out, f"a Go package did not run:\n{out}"
