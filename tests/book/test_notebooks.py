"""Notebooks run for real: solutions pass under nbval, every exercise fails unsolved and passes with
(only) its own solution substituted, and `check N` reports per exercise."""
from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import pytest

from aakaar.book.exercises.notebooks import check_cells, exercise_ids, make_exercise_notebook, read_notebook

REPO = pathlib.Path(__file__).resolve().parents[2]
SOLUTIONS = sorted((REPO / "solutions").glob("[0-9][0-9]*-*.ipynb"))


def execute(nb: dict, need_module) -> dict[str, tuple[str, str]]:
    """Run a notebook in a fresh kernel; return {exercise id: (error name or "", stdout)} per check cell."""
    nbformat = need_module("nbformat")
    nbclient = need_module("nbclient")
    node = nbformat.reads(json.dumps(nb), as_version=4)  # joins list-of-lines sources
    nbclient.NotebookClient(node, timeout=300, kernel_name="python3", allow_errors=True,
                            resources={"metadata": {"path": str(REPO / "exercises")}}).execute()
    checks = check_cells(nb)
    result, code_index = {}, 0
    for cell in node.cells:
        if cell.cell_type != "code":
            continue
        if code_index in checks:
            errors = [o for o in cell.outputs if o.output_type == "error"]
            text = "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")
            result[checks[code_index]] = (errors[0].ename + ": " + errors[0].evalue if errors else "", text)
        else:
            errors = [o for o in cell.outputs if o.output_type == "error"]
            assert not errors, f"a non-check cell failed: {errors[0].ename}: {errors[0].evalue}"
        code_index += 1
    return result


@pytest.mark.parametrize("path", SOLUTIONS, ids=lambda p: p.stem)
def test_solutions_pass_under_nbval(path, need_module):
    need_module("nbval")
    r = subprocess.run([sys.executable, "-m", "pytest", "--nbval-lax", "-q", "-p", "no:cacheprovider",
                        "-o", "addopts=", str(path)], cwd=REPO, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]


@pytest.mark.parametrize("path", SOLUTIONS, ids=lambda p: p.stem)
def test_each_exercise_fails_unsolved_and_passes_with_its_solution(path, need_module):
    solution = read_notebook(path)
    ids = exercise_ids(solution)
    unsolved = execute(make_exercise_notebook(solution, path.name), need_module)
    for ex in ids:
        error, _ = unsolved[ex]
        assert error.startswith(f"NotImplementedError: Exercise {ex}:"), f"{ex} unsolved gave {error!r}"
    for ex in ids:
        got = execute(make_exercise_notebook(solution, path.name, keep=frozenset({ex})), need_module)
        error, text = got[ex]
        assert error == "" and text.startswith(f"Exercise {ex} passed:"), f"{ex} solved gave {error!r} {text!r}"
        for other in set(ids) - {ex}:
            assert got[other][0].startswith("NotImplementedError"), f"{other} passed without its solution"


def test_check_command_summarises_per_exercise(need_module):
    need_module("nbval")
    r = subprocess.run([sys.executable, "-m", "aakaar.book.exercises", "check", "3"], cwd=REPO,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 1, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    assert "03-views.ipynb:" in lines
    for ex in exercise_ids(read_notebook(REPO / "solutions" / "03-views.ipynb")):
        assert any(l.startswith(f"  Exercise {ex}: FAILED - not done yet (Exercise {ex}: ") for l in lines), r.stdout
    assert lines[-1] == "0 of 5 exercises pass."


def test_wrong_answer_gets_a_hint_in_the_summary(tmp_path, need_module):
    """A learner's stub returning the wrong type: the summary shows the hint, not a deep traceback."""
    need_module("nbval")
    nb = make_exercise_notebook(read_notebook(REPO / "solutions" / "02-storage-shape-strides.ipynb"), "t")
    for cell in nb["cells"]:
        src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if "def row_major_strides" in src:
            cell["source"] = "def row_major_strides(shape):\n    return 0\n"
    path = tmp_path / "02-storage-shape-strides.ipynb"
    path.write_text(json.dumps(nb))
    r = subprocess.run([sys.executable, "-m", "aakaar.book.exercises", "check", str(path)], cwd=REPO,
                       capture_output=True, text=True, timeout=600)
    assert ("  Exercise 2.1: FAILED - Exercise 2.1: row_major_strides((5,)): expected a tuple like (1,), got int 0 "
            "(6 of 6 cases fail; this is the smallest)" in r.stdout.splitlines()), r.stdout
    assert "  Exercise 2.2: FAILED - not done yet" in r.stdout
