"""A process killed by SIGKILL while ``aakaar.save`` writes never leaves a torn file (issue 15).

tests/nn/test_serialization*.py stop a save at a chosen point from inside (a
writer that calls ``os._exit`` half-way). This one kills from outside, at
moments nobody chose: a child saves two different payloads in turn to the
same path, as fast as it can, and the test sends it SIGKILL after a random
delay, several times. Whatever the moment, the file must load and hold one of
the two payloads entirely (save writes a temporary beside the target and
renames it over the target, see aakaar/serialization.py), and the next save
from a live process must clean the temporaries the killed ones left.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import textwrap
import time

import pytest

import aakaar as ak

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL (POSIX)")

N = 1 << 18  # 1 MiB of float32 per payload: a save takes long enough to be caught in the middle
ROUNDS = 6

CHILD = textwrap.dedent(
    """
    import sys, aakaar as ak
    path = sys.argv[1]
    payloads = [{"w": ak.zeros(%d), "tag": 0}, {"w": ak.ones(%d), "tag": 1}]
    i = 0
    while True:
        ak.save(payloads[i %% 2], path)
        i += 1
        if i == 2:
            print("saving", flush=True)  # both payloads written once: the parent may kill from now on
    """
    % (N, N)
)


def _check_whole(path) -> int:
    obj = ak.load(path)  # a torn file would raise SerializationError here
    tag = obj["tag"]
    assert tag in (0, 1)
    w = obj["w"]
    assert tuple(w.shape) == (N,)
    assert w.min().item() == w.max().item() == float(tag), "a payload mixed with the other"
    return tag


def test_sigkill_at_random_moments_during_save_leaves_a_whole_file(tmp_path):
    path = tmp_path / "ckpt.ak"
    rng = random.Random(15)
    seen = set()
    for _ in range(ROUNDS):
        child = subprocess.Popen([sys.executable, "-c", CHILD, str(path)], stdout=subprocess.PIPE, text=True)
        try:
            assert child.stdout.readline().strip() == "saving"
            time.sleep(rng.uniform(0.0, 0.05))
            child.send_signal(signal.SIGKILL)
            assert child.wait(timeout=60) == -signal.SIGKILL
        finally:
            if child.poll() is None:
                child.kill()
                child.wait()
            child.stdout.close()
        seen.add(_check_whole(path))
    # The killed saves' temporaries (at most one per killed process) are cleaned by the next save.
    leftovers = [n for n in os.listdir(tmp_path) if n != "ckpt.ak"]
    assert len(leftovers) <= ROUNDS and all(n.endswith(".tmp") for n in leftovers)
    ak.save({"w": ak.full((N,), 2.0), "tag": 2}, path)
    assert os.listdir(tmp_path) == ["ckpt.ak"]
    assert ak.load(path)["tag"] == 2
