"""Running a wrong answer through a solution notebook's real check cell, in-process (no kernel)."""
from __future__ import annotations

import pathlib
import warnings

import pytest

from aakaar.book.exercises.notebooks import cell_source, chapter_notebooks, read_notebook

REPO = pathlib.Path(__file__).resolve().parents[3]


def cells(notebook: pathlib.Path) -> tuple[str, dict[str, str]]:
    """The setup cell and each exercise's check cell."""
    code = [cell_source(c) for c in read_notebook(notebook)["cells"] if c["cell_type"] == "code"]
    checks = {}
    for src in code:
        if src.startswith("# Check exercise "):
            checks[src.split()[3]] = src
    return code[0], checks


def hint_for(notebook: pathlib.Path, exercise: str, wrong: str) -> str:
    """The last line of the AssertionError the check cell of ``exercise`` raises on the ``wrong`` answer."""
    setup, checks = cells(notebook)
    ns: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(setup, ns)
        exec(wrong, ns)
        with pytest.raises(AssertionError) as e:
            exec(checks[exercise], ns)
    assert f"Exercise {exercise}" in str(e.value)
    return str(e.value).splitlines()[-1]


def notebook_cells(exercise: str) -> tuple[str, str, str]:
    """The notebook's setup cell, the C++ cell of ``exercise`` and its check cell."""
    path = chapter_notebooks(REPO / "solutions")[exercise.split(".")[0]]  # "6b.3" -> 06b-*.ipynb
    code = [cell_source(c) for c in read_notebook(path)["cells"] if c["cell_type"] == "code"]
    solution = next(src for src in code if f"BEGIN SOLUTION {exercise}:" in src)
    check = next(src for src in code if src.startswith(f"# Check exercise {exercise}\n"))
    return code[0], solution, check
