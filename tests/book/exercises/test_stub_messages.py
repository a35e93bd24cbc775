"""A stub names its task, never its answer: no stub message contains code of its solution.

A learner's first `python -m aakaar.book.exercises check N` prints every stub's message, so a
message that spells out the formula or the loop hands the exercise over before it is attempted.
"""
from __future__ import annotations

import pathlib
import re

import pytest

from aakaar.book.exercises.notebooks import BEGIN, END, cell_source, read_notebook

REPO = pathlib.Path(__file__).resolve().parents[3]
SOLUTIONS = sorted((REPO / "solutions").glob("[0-9][0-9]*-*.ipynb"))
TOKEN = re.compile(r"\w+|[^\w\s`]")
# Operators that make a message a piece of code rather than the name of a task.
CODE_CHARS = re.compile(r"[=+*/%@{}\[\]]|\bnp\.|\.sum\b|\bfor\b.*\bin\b")


def regions(path: pathlib.Path) -> list[tuple[str, str, str]]:
    """``(id, task, solution code)`` of every solution region of a notebook."""
    found = []
    for cell in read_notebook(path)["cells"]:
        if cell.get("cell_type") != "code":
            continue
        current = None
        for line in cell_source(cell).split("\n"):
            m = BEGIN.match(line)
            if m:
                current = [m["id"], m["task"], []]
            elif current is not None and END.match(line):
                found.append((current[0], current[1], "\n".join(current[2])))
                current = None
            elif current is not None:
                current[2].append(line)
    return found


def shared_run(task: str, code: str, n: int = 4) -> str | None:
    """The first run of ``n`` consecutive tokens of ``task`` that also occurs in ``code``."""
    t, c = TOKEN.findall(task), TOKEN.findall(code)
    grams = {tuple(c[i:i + n]) for i in range(len(c) - n + 1)}
    for i in range(len(t) - n + 1):
        if tuple(t[i:i + n]) in grams:
            return " ".join(t[i:i + n])
    return None


def test_the_check_finds_code_in_a_message():
    code = "    return g @ B.T, A.T @ g\n"
    assert shared_run("grad_A = g @ B.T", code) == "g @ B ."
    assert CODE_CHARS.search("grad_A = g @ B.T")
    assert shared_run("return the gradients of A and B", code) is None
    assert not CODE_CHARS.search("return the gradients of A and B")


@pytest.mark.parametrize("path", SOLUTIONS, ids=lambda p: p.stem)
def test_no_stub_message_contains_its_solution(path):
    found = regions(path)
    assert found, f"{path.name} has no solution regions"
    for ex, task, code in found:
        assert not CODE_CHARS.search(task), f"Exercise {ex}'s stub message reads as code: {task!r}"
        run = shared_run(task, code)
        assert run is None, f"Exercise {ex}'s stub message repeats its solution ({run!r}): {task!r}"
