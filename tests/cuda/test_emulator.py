"""The CUDA emulator itself: its model of the programming model, and its error reports."""
import pytest

from emu_build import run


def _check(result):
    assert result.returncode == 0, f"exit status {result.returncode}\n{result.stdout}\n{result.stderr}"
    return result.stdout


@pytest.mark.parametrize("order", ["forward", "reverse"])
def test_semantics(emu_bin, order):
    out = _check(run(emu_bin / "check_emulator", env={"AAKAAR_EMU_ORDER": order}))
    assert "0 failed" in out
    assert out.count("ok  ") >= 12 and "FAIL" not in out


def test_semantics_with_ucontext_fallback(emu_bin):
    """The portable swapcontext path (non-x86-64 machines) runs the same checks."""
    out = _check(run(emu_bin / "check_emulator_ucontext"))
    assert "0 failed" in out


# Each planted bug must produce its specific, readable report: (bug, phrases it must contain).
PLANTED = [
    ("divergent_barrier", ["block (0,0,0) can never finish", "__syncthreads() at tests/cuda/drivers/planted_bugs.cu:17",
                           "reached by 16 of 64 threads", "threads 0..15: waiting", "threads 16..63: exited"]),
    ("return_before_barrier", ["block (1,0,0)", "reached by 36 of 64 threads", "return early"]),
    ("different_barriers", ["different barriers", "threads 0..62 step 2: waiting in __syncthreads() at "
                            "tests/cuda/drivers/planted_bugs.cu:37", "threads 1..63 step 2"]),
    ("warp_missing_lanes", ["warp 0: __shfl_down_sync() with mask 0xffffffff at tests/cuda/drivers/planted_bugs.cu:44",
                            "reached by lanes 0..15, but lanes 16..31", "waiting in __syncthreads()"]),
    ("lane_not_in_mask", ["thread (16,0,0)", "mask 0x0000ffff does not include the calling lane 16"]),
    ("shared_overflow", ["write past the end of dynamic shared memory", "byte 1024 of a 1024-byte allocation",
                         "detected at __syncthreads() at tests/cuda/drivers/planted_bugs.cu:58"]),
    ("block_too_large", ["blockDim (32,33,1) = 1056 threads", "at most 1024 threads"]),
    ("missing_barrier", ["validation found", "of 128 elements wrong"]),
]


@pytest.mark.parametrize("bug,phrases", PLANTED, ids=[p[0] for p in PLANTED])
def test_planted_bug_is_reported(emu_bin, bug, phrases):
    out = _check(run(emu_bin / "planted_bugs", bug, timeout=30))
    assert out.startswith("caught: "), out
    for phrase in phrases:
        assert phrase in out, f"{phrase!r} missing from:\n{out}"
