"""The exercise tool without a kernel: stubbing, sync, one-line errors, and the check helper's hints."""
from __future__ import annotations

import pathlib
import json
import subprocess
import sys

import numpy as np
import pytest

from aakaar.book.exercises import Raises, check, speed_check
from aakaar.book.exercises.build import expected_exercises, out_of_sync
from aakaar.book.exercises.notebooks import (ExerciseError, chapter_key, chapter_notebooks, check_cells, exercise_ids,
                                            read_notebook, stub_solutions)

REPO = pathlib.Path(__file__).resolve().parents[3]



def run_cli(*args, cwd=REPO):
    return subprocess.run([sys.executable, "-m", "aakaar.book.exercises", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120)


def test_stub_replaces_region_at_its_indentation():
    src = ("def f(x):\n    '''doc'''\n    # BEGIN SOLUTION 9.1: double \"x\"\n    y = 2 * x\n"
           "    return y\n    # END SOLUTION\n\nprint(1)")
    out, ids = stub_solutions(src, "t")
    assert ids == ["9.1"]
    assert out == ("def f(x):\n    '''doc'''\n    raise NotImplementedError(\"Exercise 9.1: double \\\"x\\\"\")\n\nprint(1)")
    ns = {}
    exec(out, ns)  # the stub is valid Python and raises the named error
    with pytest.raises(NotImplementedError, match=r"Exercise 9.1: double \"x\""):
        ns["f"](1)


@pytest.mark.parametrize("src, message", [
    ("# BEGIN SOLUTION 1.1: a\nx = 1\n", "no '# END SOLUTION'"),
    ("# END SOLUTION\n", "malformed marker"),
    ("# BEGIN SOLUTION: no id\n# END SOLUTION\n", "malformed marker"),
    ("# BEGIN SOLUTION 1.1: a\n# BEGIN SOLUTION 1.2: b\n# END SOLUTION\n", "inside the region"),
])
def test_malformed_markers_are_reported(src, message):
    with pytest.raises(ExerciseError, match=message):
        stub_solutions(src, "nb")


def test_every_solution_notebook_has_matching_exercises_and_checks():
    for path, text in expected_exercises(REPO).items():
        solution = read_notebook(REPO / "solutions" / path.name)
        ids = exercise_ids(solution)
        assert 3 <= len(ids) <= 7, f"{path.name}: {len(ids)} exercises"
        chapter = chapter_key(path.name.split("-")[0])
        assert ids == [f"{chapter}.{k}" for k in range(1, len(ids) + 1)], ids
        assert sorted(check_cells(solution).values()) == ids, f"{path.name}: one check cell per exercise"
        exercise = json.loads(text)
        assert "BEGIN SOLUTION" not in text and "END SOLUTION" not in text
        for ex in ids:
            # a Python or C++ stub raises/throws NotImplementedError; a CUDA one calls not_implemented
            assert f'NotImplementedError(\\"Exercise {ex}: ' in text or f'not_implemented(\\"Exercise {ex}: ' in text
        # nbval compares the recorded "passed" line of every check cell
        for cell in exercise["cells"]:
            src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            if src.startswith("# Check exercise"):
                assert "NBVAL_CHECK_OUTPUT" in src
                assert cell["execution_count"] is not None
                assert "passed:" in "".join(o.get("text", "") if isinstance(o.get("text", ""), str) else "".join(o["text"])
                                            for o in cell["outputs"])


def test_exercises_are_in_sync_with_solutions():
    assert out_of_sync(REPO) == [], "run `python -m aakaar.book.exercises build` and commit exercises/"


def test_sync_check_detects_a_stale_exercise(tmp_path):
    (tmp_path / "solutions").mkdir()
    (tmp_path / "exercises").mkdir()
    src = REPO / "solutions" / "02-storage-shape-strides.ipynb"
    (tmp_path / "solutions" / src.name).write_text(src.read_text())
    assert run_cli("--root", str(tmp_path), "sync-check").returncode == 1
    assert run_cli("--root", str(tmp_path), "build").returncode == 0
    assert run_cli("--root", str(tmp_path), "sync-check").returncode == 0
    (tmp_path / "exercises" / src.name).write_text(src.read_text())  # a solved copy is not in sync
    r = run_cli("--root", str(tmp_path), "sync-check")
    assert r.returncode == 1 and "out of date" in r.stdout


@pytest.mark.parametrize("args, message", [
    (["check", "99"], "unknown chapter 99: chapters with exercises are 2, 3, 4, 5"),
    (["check", "two"], "chapter must be a number"),
    (["check", "exercises/99-nothing.ipynb"], "notebook exercises/99-nothing.ipynb does not exist"),
])
def test_check_bad_input_is_one_clear_line(args, message):
    r = run_cli(*args)
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [f"error: {r.stderr.strip().removeprefix('error: ')}"]
    assert message in r.stderr


def test_check_invalid_json_and_non_notebook(tmp_path):
    bad = tmp_path / "02-broken.ipynb"
    bad.write_text('{"cells": [')
    r = run_cli("check", str(bad))
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
    assert "is not valid JSON (line 1" in r.stderr
    bad.write_text('{"hello": 1}')
    r = run_cli("check", str(bad))
    assert r.returncode == 2 and "not a Jupyter notebook" in r.stderr


def test_check_missing_exercise_notebook_points_to_build(tmp_path):
    (tmp_path / "solutions").mkdir()
    src = REPO / "solutions" / "03-views.ipynb"
    (tmp_path / "solutions" / src.name).write_text(src.read_text())
    r = run_cli("--root", str(tmp_path), "check", "3")
    assert r.returncode == 2
    assert "exercises/ has no 03-views.ipynb; run `python -m aakaar.book.exercises build`" in r.stderr


# --- the check helper: hints name what was expected --------------------------------------------

def test_check_prints_one_deterministic_line(capsys):
    check("0.1", lambda a, b: a + b, [((1, 2), 3), ((2, 2), 4)], against="arithmetic")
    assert capsys.readouterr().out == "Exercise 0.1 passed: 2 cases agree with arithmetic.\n"


@pytest.mark.parametrize("fn, want, hint", [
    (lambda: [4, 1], (4, 1), None),                                   # a list is fine for a tuple
    (lambda: 4.0, 4, "expected an int (4), got float 4.0"),
    (lambda: (4,), (4, 1), "expected 2 entries (4, 1), got 1: (4,)"),
    (lambda: np.zeros((3, 1)), np.zeros(3), "expected an array of shape (3,), got shape (3, 1)"),
    (lambda: np.array([np.inf, 1.0]), np.array([1.0, 1.0]), "numerically stable"),
    (lambda: "strides", (4, 1), "expected a tuple like (4, 1), got str 'strides'"),
    (lambda: (4, 1), Raises(ValueError), "should raise ValueError"),
    (lambda: None, (1,), "expected a tuple like (1,), got NoneType None"),
    (lambda: 1 / 0, 1, "f() raised ZeroDivisionError"),
])
def test_wrong_answers_get_a_hint(fn, want, hint):
    fn.__name__ = "f"
    if hint is None:
        check("0.2", fn, [((), want)], against="x")
        return
    with pytest.raises(AssertionError) as info:
        check("0.2", fn, [((), want)], against="x")
    assert info.value.args[0].startswith("Exercise 0.2: f()")
    assert hint in info.value.args[0]
    assert info.value.__traceback__ is not None and info.value.__cause__ is None


def test_unsolved_exercise_raises_not_implemented():
    def stub():
        raise NotImplementedError("Exercise 0.3: do it")
    with pytest.raises(NotImplementedError, match="Exercise 0.3"):
        check("0.3", stub, [((), 1)], against="x")


def test_a_failing_check_shows_the_smallest_failing_case_in_full():
    """The learner sees the case that is easiest to work through by hand, with every value of it."""
    def off_by_one(x):
        out = x.copy()
        out[..., -1] += 1  # wrong in the last column only
        return out
    cases = [((np.arange(40.0).reshape(5, 8),), np.arange(40.0).reshape(5, 8)),
             ((np.array([[1.0, 2.0], [3.0, 4.0]]),), np.array([[1.0, 2.0], [3.0, 4.0]]))]
    with pytest.raises(AssertionError) as info:
        check("0.4", off_by_one, cases, against="x")
    msg = info.value.args[0]
    assert "\n" not in msg
    assert msg.startswith("Exercise 0.4: off_by_one(array([[1., 2.], [3., 4.]])): values differ in 2 of 4 places; "
                          "first at index (0, 1): expected 2, got 3"), msg
    assert "(whole answer: expected [[1., 2.], [3., 4.]], got [[1., 3.], [3., 5.]])" in msg, msg
    assert msg.endswith("(2 of 2 cases fail; this is the smallest)")


def test_tuple_answers_of_arrays_stay_on_one_line():
    big = np.zeros((10, 10))
    with pytest.raises(AssertionError) as info:
        check("0.5", lambda a: (a, a + 1), [((big,), (big, big))], against="x")
    msg = info.value.args[0]
    assert "\n" not in msg and "entry 1: values differ in 100 of 100 places; first at index (0, 0)" in msg
    assert "whole answer" not in msg and "array(shape=(10, 10), dtype=float64)" in msg


def test_a_hint_names_the_likely_mistake_of_the_case_shown():
    cases = [(("small", 1), 2), (("large", 10), 20)]
    hints = {"small": "double it", "large": "works for small ones only"}
    with pytest.raises(AssertionError) as info:
        check("0.6", lambda label, x: x * 2 if x < 5 else x, cases, against="x", hints=hints)
    assert info.value.args[0].endswith("Hint (large): works for small ones only"), info.value.args[0]
    with pytest.raises(AssertionError) as info:
        check("0.6", lambda label, x: x, cases, against="x", hints=hints)
    assert "(2 of 2 cases fail; this is the smallest) Hint (small): double it" in info.value.args[0]


# --- the speed check: interleaved, a ratio reported, never asserted -------------------------------

def test_speed_check_reports_the_ratio_and_restores_the_threads(capsys):
    import aakaar as ak
    before = ak.get_num_threads()
    calls = {"yours": 0, "library": 0}

    def yours(n):
        calls["yours"] += 1
        return sum(range(n))

    def library():
        calls["library"] += 1
        return sum(range(100))

    ratio = speed_check("0.7", yours, (100,), library, against="the same loop", threads=1, rounds=3,
                        target_s=0.001, target=1e-9)
    out = capsys.readouterr().out
    assert ak.get_num_threads() == before
    assert calls["yours"] > 3 and calls["library"] > 3 and ratio > 0
    assert out.startswith("Exercise 0.7 speed: yours ") and "the same loop" in out
    assert f"runs at {ratio:.2f}x its speed (median of 3 interleaved rounds, 1 thread); target 1e-09x: met" in out


def test_speed_check_of_an_unstarted_exercise_says_so(capsys):
    def stub():
        raise NotImplementedError("Exercise 0.8: do it")
    assert speed_check("0.8", stub, (), lambda: None, against="x") is None
    assert capsys.readouterr().out == "Exercise 0.8: speed not measured yet (Exercise 0.8: do it)\n"


def test_a_lettered_chapter_sits_between_its_neighbours(tmp_path):
    """A chapter inserted after 13 is "13b": its notebooks are found, sorted after 13, and its ids are 13b.N."""
    for name in ("14-b.ipynb", "13b-a.ipynb", "13-c.ipynb", "13-x.txt", "x13-d.ipynb"):
        (tmp_path / name).write_text("{}")
    assert list(chapter_notebooks(tmp_path)) == ["13", "13b", "14"]
    assert chapter_key("13b") == "13b" and chapter_key("02") == "2" and chapter_key("b13") is None
    out, ids = stub_solutions("# BEGIN SOLUTION 13b.2: a task\nx = 1\n# END SOLUTION", "t")
    assert ids == ["13b.2"] and "Exercise 13b.2: a task" in out
