"""Finding chapter notebooks and turning solutions into exercises.

A solution region in a code cell of ``solutions/NN-topic.ipynb`` looks like::

    def row_major_strides(shape):
        # BEGIN SOLUTION 2.1: return the row-major strides of `shape`
        ...
        # END SOLUTION

``build`` replaces everything from BEGIN to END (markers included) by
``raise NotImplementedError("Exercise 2.1: return the row-major strides of `shape`")`` at the
marker's indentation. In a C++ or CUDA cell (``%%cpp``, ``%%cuda``: :mod:`aakaar.jit`) the markers
are ``//`` comments and the stub is ``throw aakaar::jit::NotImplementedError("Exercise N.M: ...");``,
in a CUDA cell ``aakaar::jit::not_implemented("Exercise N.M: ...");`` (GPU code cannot throw):
it compiles, and calling the function raises the same NotImplementedError in Python -- in a CUDA
cell also when the region is inside a kernel (the emulator reports the thread's exception, and the
jit's translator recognises the stub's text in that report: aakaar/jit/prelude.h; on a GPU the
kernel records it for the host: aakaar/jit/cuda_prelude.h). Check cells start with ``# Check exercise 2.1``; their recorded
output is kept (nbval compares it), every other output is cleared.
"""
from __future__ import annotations

import copy
import json
import pathlib
import re

BEGIN = re.compile(r"^(?P<indent>[ \t]*)(?P<comment>#|//) BEGIN SOLUTION (?P<id>\d+[a-z]?\.\d+): (?P<task>.+?)\s*$")
END = re.compile(r"^[ \t]*(?:#|//) END SOLUTION\s*$")
CPP_CELL = re.compile(r"^%%(cpp|cuda)\b")
CHECK = re.compile(r"^# Check exercise (?P<id>\d+[a-z]?\.\d+)\b", re.M)
# A chapter is a number, or a number and a letter for a chapter placed between two ("13b" after 13).
NOTEBOOK_NAME = re.compile(r"^(?P<num>\d\d)(?P<letter>[a-z]?)-[\w-]+\.ipynb$")
CHAPTER = re.compile(r"^(?P<num>\d+)(?P<letter>[a-z]?)$")


class ExerciseError(Exception):
    """A problem the learner or author can fix; the CLI prints it as one line."""


def find_root(start: pathlib.Path | None = None) -> pathlib.Path:
    """The repository folder holding ``solutions/`` (searched upwards from the working directory)."""
    here = (start or pathlib.Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "solutions").is_dir() or (folder / "exercises").is_dir():
            return folder
    raise ExerciseError(f"no solutions/ or exercises/ folder found in {here} or above it; "
                        "run this from the aakaar repository or pass --root")


def chapter_key(chapter: str) -> str | None:
    """A chapter as the exercise ids write it ("02" -> "2", "13b" -> "13b"), or None when it is not one."""
    m = CHAPTER.match(chapter)
    return f"{int(m['num'])}{m['letter']}" if m else None


def chapter_order(key: str) -> tuple[int, str]:
    """Sorts chapters as the book orders them: 13 < 13b < 14."""
    m = CHAPTER.match(key)
    return (int(m["num"]), m["letter"]) if m else (10**9, key)


def chapter_notebooks(folder: pathlib.Path) -> dict[str, pathlib.Path]:
    """``{chapter ("2", "13b"): path}`` for every ``NN-topic.ipynb`` or ``NNx-topic.ipynb`` in ``folder``."""
    found = {}
    for p in sorted(folder.glob("*.ipynb")) if folder.is_dir() else []:
        m = NOTEBOOK_NAME.match(p.name)
        if m:
            found[f"{int(m['num'])}{m['letter']}"] = p
    return dict(sorted(found.items(), key=lambda kv: chapter_order(kv[0])))


def read_notebook(path: pathlib.Path) -> dict:
    """Load a notebook as plain JSON, with one-line errors for the usual mistakes."""
    if not path.exists():
        raise ExerciseError(f"notebook {path} does not exist")
    try:
        nb = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise ExerciseError(f"{path} is not valid JSON (line {e.lineno}, column {e.colno}: {e.msg}); "
                            "restore it from git or regenerate it with `python -m aakaar.book.exercises build`") from None
    except UnicodeDecodeError:
        raise ExerciseError(f"{path} is not a text (UTF-8) notebook file") from None
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        raise ExerciseError(f"{path} is JSON but not a Jupyter notebook (it has no list of cells)")
    return nb


def cell_source(cell: dict) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def stub_solutions(source: str, where: str) -> tuple[str, list[str]]:
    """Replace each solution region in ``source``; return the new source and the exercise ids."""
    out, ids, region = [], [], None
    cell = CPP_CELL.match(source)
    is_cpp = bool(cell)
    stub = "aakaar::jit::not_implemented(" if cell and cell[1] == "cuda" else "throw aakaar::jit::NotImplementedError("
    for n, line in enumerate(source.split("\n"), 1):
        if region is None:
            m = BEGIN.match(line)
            if m:
                region = m
                ids.append(m["id"])
                task = m["task"].replace("\\", "\\\\").replace('"', '\\"')
                if (m["comment"] == "//") != is_cpp:
                    raise ExerciseError(f"{where}, line {n}: a {'C++' if is_cpp else 'Python'} cell marks its "
                                        f"solution with {'//' if is_cpp else '#'} comments, not {m['comment']}")
                if is_cpp:  # compiles, and the call raises NotImplementedError (aakaar/jit/prelude.h)
                    out.append(f'{m["indent"]}{stub}"Exercise {m["id"]}: {task}");')
                else:
                    out.append(f'{m["indent"]}raise NotImplementedError("Exercise {m["id"]}: {task}")')
            elif "BEGIN SOLUTION" in line or END.match(line):
                raise ExerciseError(f"{where}, line {n}: malformed marker {line.strip()!r} "
                                    "(expected '# BEGIN SOLUTION N.M: task' ... '# END SOLUTION', "
                                    "with // for # in a %%cpp cell)")
            else:
                out.append(line)
        elif END.match(line):
            region = None
        elif BEGIN.match(line):
            raise ExerciseError(f"{where}, line {n}: BEGIN SOLUTION inside the region of exercise {region['id']}")
    if region is not None:
        raise ExerciseError(f"{where}: exercise {region['id']} has no '# END SOLUTION'")
    return "\n".join(out), ids


def make_exercise_notebook(solution: dict, where: str, keep: frozenset[str] = frozenset()) -> dict:
    """The exercise version of a solution notebook. Regions whose id is in ``keep`` stay solved
    (the tests use this to prove each exercise passes on its own solution)."""
    nb = copy.deepcopy(solution)
    for i, cell in enumerate(nb["cells"]):
        if cell.get("cell_type") != "code":
            continue
        src = cell_source(cell)
        if "BEGIN SOLUTION" in src:
            new, ids = stub_solutions(src, f"{where}, cell {i}")
            if not set(ids) <= keep:
                if set(ids) & keep:
                    raise ExerciseError(f"{where}, cell {i}: keep all or none of exercises {ids} in one cell")
                cell["source"] = new
        if CHECK.search(src):
            continue  # the recorded "passed" line is what nbval compares against
        cell["outputs"] = []
        cell["execution_count"] = None
    return nb


def exercise_ids(solution: dict) -> list[str]:
    ids = []
    for cell in solution["cells"]:
        if cell.get("cell_type") == "code":
            ids += [m["id"] for m in map(BEGIN.match, cell_source(cell).split("\n")) if m]
    return ids


def check_cells(nb: dict) -> dict[int, str]:
    """``{code-cell index (nbval's "Cell N"): exercise id}`` for every check cell."""
    found, code_index = {}, 0
    for cell in nb["cells"]:
        if cell.get("cell_type") != "code":
            continue
        m = CHECK.search(cell_source(cell))
        if m:
            found[code_index] = m["id"]
        code_index += 1
    return found


def dumps(nb: dict) -> str:
    """Serialise like Jupyter does (1-space indent, trailing newline) so git diffs stay small."""
    return json.dumps(nb, indent=1, ensure_ascii=False, sort_keys=True) + "\n"
