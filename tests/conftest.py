"""What a test run tells a newcomer at its end: the skipped tests grouped by reason, in one short
block, instead of one line per skip (pytest's -ra printed hundreds).

Tests that cannot run here are not collected hundreds of times to be skipped hundreds of times:
the CUDA backend suite (tests/cuda_backend/suite, every op on "cuda") is collected only where
a CUDA device is available. Without one, the summary says so once, and
tests/cuda_backend/test_on_emulator.py runs the suite on the CUDA emulator instead.
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import pytest

CUDA_SUITE = Path(__file__).parent / "cuda_backend" / "suite"
MAX_REASONS = 12  # the block stays short; the rest are counted on one line


@pytest.fixture(autouse=True)
def _default_dtype_is_restored():
    """A test that changes the default dtype must restore it: left at float64, it silently changes
    every later test in the same worker. Restore it here and fail the test that leaked it."""
    import aakaar

    yield
    leaked = aakaar.get_default_dtype()
    if leaked != aakaar.float32:
        aakaar.set_default_dtype(aakaar.float32)
        pytest.fail(f"the test left the default dtype at {leaked}; restore it (try/finally)")


def _cuda_available() -> bool:
    import aakaar

    return aakaar.cuda.is_available()


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    if collection_path == CUDA_SUITE and not _cuda_available() and not os.environ.get("AAKAAR_EXPECT_CUDA"):
        return True  # AAKAAR_EXPECT_CUDA: collect, so that the suite's own check fails loudly
    return None


def _suite_in_scope(config: pytest.Config) -> bool:
    """Whether the run's paths include a folder above the CUDA suite. (Named itself, or a file
    in it, the suite is collected anyway -- pytest does not ignore what it is asked for -- and
    its tests are skipped, with the reason, by its own conftest.)"""
    root = Path(str(config.rootpath))
    for arg in config.args or [str(root)]:
        p = Path(arg.split("::")[0])
        p = (p if p.is_absolute() else Path(str(config.invocation_params.dir)) / p).resolve()
        if p in CUDA_SUITE.parents:
            return True
    return False


def _reason(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    # A skip's longrepr is (file, line, "Skipped: reason"); xdist forwards the same tuple.
    text = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
    text = text.removeprefix("Skipped: ").strip().splitlines()[0] if text.strip() else "no reason given"
    return text if len(text) <= 110 else text[:107] + "..."


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    if hasattr(config, "workerinput"):  # an xdist worker: the controller prints the summary
        return
    skipped = [r for r in terminalreporter.stats.get("skipped", []) if getattr(r, "longrepr", None)]
    notes = []
    if CUDA_SUITE.is_dir() and _suite_in_scope(config) and not _cuda_available():
        notes.append("not collected: the CUDA backend suite (tests/cuda_backend/suite), as there is no CUDA "
                     "device; tests/cuda_backend/test_on_emulator.py runs it on the CUDA emulator")
    if not skipped and not notes:
        return
    n = len(skipped)
    terminalreporter.write_sep("-", f"skipped: {n} test{'s' if n != 1 else ''}, by reason" if n else "not run here")
    counts = Counter(_reason(r) for r in skipped)
    width = len(str(max(counts.values(), default=1)))
    for reason, n in counts.most_common(MAX_REASONS):
        terminalreporter.write_line(f"  {n:>{width}}  {reason}")
    rest = counts.most_common()[MAX_REASONS:]
    if rest:
        terminalreporter.write_line(f"  {sum(n for _, n in rest):>{width}}  for {len(rest)} other reasons "
                                    f"(pytest -rs lists every skip)")
    for note in notes:
        terminalreporter.write_line(f"  {note}")
