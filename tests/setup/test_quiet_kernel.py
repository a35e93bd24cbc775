"""A notebook kernel starts without noise: no debugpy "frozen modules" warning, no
"running over TCP without encryption" notice (scripts/setup.sh installs the kernel spec
and scripts/jupyter/ipython_kernel_config.py into .venv), and it still runs code."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

CHILD = r'''
from jupyter_client.manager import start_new_kernel
km, kc = start_new_kernel(kernel_name="python3")
reply = kc.execute_interactive("import aakaar; print(aakaar.ones(2).sum().item())", timeout=60)
assert reply["content"]["status"] == "ok", reply
kc.stop_channels()
km.shutdown_kernel(now=False)
'''


def test_a_kernel_starts_quietly():
    pytest.importorskip("jupyter_client")
    pytest.importorskip("ipykernel")
    if not (Path(sys.prefix) / "etc" / "ipython" / "ipython_kernel_config.py").exists():
        pytest.skip("the kernel configuration is not installed here (run bash scripts/setup.sh)")
    # The kernel inherits this child's stderr, so everything it logs lands in r.stderr.
    r = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "2.0" in r.stdout  # the kernel ran the cell (execute_interactive echoes its output)
    for noise in ("frozen modules", "without encryption", "Connection refused", "Traceback"):
        assert noise not in r.stderr, r.stderr
