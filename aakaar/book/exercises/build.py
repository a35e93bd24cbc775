"""``build``: write exercises/NN-topic.ipynb for every solutions/NN-topic.ipynb."""
from __future__ import annotations

import pathlib

from .notebooks import ExerciseError, chapter_notebooks, dumps, make_exercise_notebook, read_notebook


def expected_exercises(root: pathlib.Path) -> dict[pathlib.Path, str]:
    """What exercises/ should contain: ``{path: file text}``."""
    solutions = chapter_notebooks(root / "solutions")
    if not solutions:
        raise ExerciseError(f"no solution notebooks (NN-topic.ipynb) in {root / 'solutions'}")
    out = {}
    for path in solutions.values():
        nb = make_exercise_notebook(read_notebook(path), str(path.relative_to(root)))
        out[root / "exercises" / path.name] = dumps(nb)
    return out


def build(root: pathlib.Path) -> list[str]:
    lines = []
    for path, text in expected_exercises(root).items():
        path.parent.mkdir(exist_ok=True)
        changed = not path.exists() or path.read_text(encoding="utf-8") != text
        if changed:
            path.write_text(text, encoding="utf-8")
        lines.append(f"{'wrote' if changed else 'unchanged'} {path.relative_to(root)}")
    return lines


def out_of_sync(root: pathlib.Path) -> list[str]:
    """One line per exercise notebook that differs from what ``build`` would write (or is extra)."""
    want = expected_exercises(root)
    stale = [f"{p.relative_to(root)} is out of date" for p, text in want.items()
             if not p.exists() or p.read_text(encoding="utf-8") != text]
    extra = set(chapter_notebooks(root / "exercises").values()) - set(want)
    stale += [f"{p.relative_to(root)} has no solution notebook" for p in sorted(extra)]
    return stale
