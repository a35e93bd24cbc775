"""``check N``: run nbval on exercise notebook N and say, exercise by exercise, what happened."""
from __future__ import annotations

import contextlib
import io
import pathlib
import re

from .notebooks import ExerciseError, chapter_key, chapter_notebooks, chapter_order, check_cells, read_notebook

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def resolve_notebook(target: str, root: pathlib.Path) -> pathlib.Path:
    """A chapter ("2", "02", "13b") or a notebook path -> an existing notebook path."""
    if target.endswith(".ipynb") or "/" in target:
        path = pathlib.Path(target)
        if not path.exists():
            raise ExerciseError(f"notebook {target} does not exist")
        return path
    chapter = chapter_key(target)
    if chapter is None:
        raise ExerciseError(f"chapter must be a number such as 2 (or 13b), or a path to a notebook; got {target!r}")
    exercises = chapter_notebooks(root / "exercises")
    if chapter in exercises:
        return exercises[chapter]
    solutions = chapter_notebooks(root / "solutions")
    if chapter in solutions:
        raise ExerciseError(f"chapter {chapter} has a solution notebook but exercises/ has no "
                            f"{solutions[chapter].name}; run `python -m aakaar.book.exercises build`")
    known = ", ".join(sorted(set(exercises) | set(solutions), key=chapter_order)) or "none"
    raise ExerciseError(f"unknown chapter {chapter}: chapters with exercises are {known}")


class _Collector:
    """pytest plugin: remember each notebook cell's outcome and error text."""

    def __init__(self) -> None:
        self.outcomes: dict[int, tuple[str, str]] = {}

    def pytest_runtest_logreport(self, report):  # noqa: D401 (pytest hook)
        if report.when != "call" and report.outcome != "failed":
            return
        m = re.search(r"Cell (\d+)$", report.nodeid)
        if m:
            self.outcomes[int(m.group(1))] = (report.outcome, ANSI.sub("", str(report.longrepr or "")))


def _explain(text: str) -> str:
    """The one line a learner needs from a failed check cell."""
    for kind in ("NotImplementedError", "AssertionError"):
        m = re.search(rf"^{kind}: (.+)$", text, re.M)
        if m:
            msg = m.group(1).strip()
            return f"not done yet ({msg})" if kind == "NotImplementedError" else msg
    if "Cell outputs differ" in text:
        return "the check printed something other than the expected 'passed' line"
    m = re.findall(r"^(\w+(?:Error|Exception)): (.+)$", text, re.M)
    return f"{m[-1][0]}: {m[-1][1]}" if m else "the check cell failed (run it in Jupyter to see why)"


def check(target: str, root: pathlib.Path) -> int:
    """Run the notebook under nbval; print a per-exercise summary; return a process exit code."""
    import pytest  # imported late: `build` must not need pytest

    path = resolve_notebook(target, root)
    nb = read_notebook(path)  # one-line error for missing / invalid notebooks, before pytest sees it
    checks = check_cells(nb)
    if not checks:
        raise ExerciseError(f"{path} has no check cells ('# Check exercise N.M'): is it an exercise notebook?")
    collector = _Collector()
    # pytest's own lines name notebook cells ("Cell 4") where the learner thinks in exercise numbers:
    # they are kept out of sight, and shown only when pytest itself could not run the notebook.
    lines = io.StringIO()
    with contextlib.redirect_stdout(lines):
        code = pytest.main([str(path), "--nbval-lax", "-q", "--tb=no", "--no-header", "-p", "no:cacheprovider",
                            "-p", "no:randomly", "-o", "addopts=", "--rootdir", str(path.parent)], plugins=[collector])
    if code not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
        print(lines.getvalue())
    print(f"\n{path.name}:")
    passed = 0
    for cell, ex in checks.items():
        outcome, text = collector.outcomes.get(cell, ("not run", ""))
        if outcome == "passed":
            passed += 1
            print(f"  Exercise {ex}: passed")
        elif outcome == "failed":
            print(f"  Exercise {ex}: FAILED - {_explain(text)}")
        else:
            print(f"  Exercise {ex}: {outcome}")
    other = [c for c, (o, _) in collector.outcomes.items() if o == "failed" and c not in checks]
    for c in other:
        print(f"  (cell {c}, not a check cell, failed: {_explain(collector.outcomes[c][1])})")
    print(f"{passed} of {len(checks)} exercises pass.")
    return 0 if passed == len(checks) and not other else 1
