"""Chapters 16 and 17's check cells name the likely mistake: each typical wrong answer (little-endian
sizes, a short last batch dropped or kept wrongly, np.concatenate for np.stack, a step without
zero_grad, a confusion matrix built with fancy-index +=, a chapter's rows overwriting each other, ...)
run through the real check cell of solutions/16-data.ipynb or 17-training-on-emnist.ipynb gets its
own hint. No kernel: the cells run in-process, in the order the notebook has them. (16.4 and 17.4,
the performance exercises, are tested in test_perf_exercise_hints.py.)"""
from __future__ import annotations

import pytest

from hint_helpers import REPO, cells, hint_for

NOTEBOOKS = {"16": REPO / "solutions" / "16-data.ipynb", "17": REPO / "solutions" / "17-training-on-emnist.ipynb"}

# parse_idx with a slip: SIZES, BODY and CHECKS are replaced per case.
IDX = '''
def parse_idx(data):
    if CHECKS and (len(data) < 4 or data[0] != 0 or data[1] != 0 or data[2] != 0x08):
        raise ValueError("not an IDX file")
    ndim = data[3]
    shape = struct.unpack(SIZES + "I" * ndim, data[4:4 + 4 * ndim])
    body = BODY
    if CHECKS and len(body) != int(np.prod(shape)):
        raise ValueError("wrong length")
    return np.frombuffer(body, dtype=np.uint8).reshape(shape)
'''


def idx(sizes='">"', body="data[4 + 4 * ndim:]", checks="True"):
    return IDX.replace("SIZES", sizes).replace("BODY", body).replace("CHECKS", checks)


BATCHES_BY_APPENDING = '''
def batches(n, batch_size, drop_last):
    out = [[]]
    for i in range(n):
        if len(out[-1]) == batch_size:
            out.append([])
        out[-1].append(i)
    if drop_last and len(out[-1]) < batch_size:
        out.pop()
    return out
'''

TRAIN_STEP = '''
def train_step(model, optimizer, x, y):
    CLEAR
    loss = nn.functional.cross_entropy(OUT, y)
    loss.backward()
    STEP
    return RESULT
'''


def step(clear="optimizer.zero_grad()", out="model(x)", update="optimizer.step()", result="loss.item()"):
    return (TRAIN_STEP.replace("CLEAR", clear).replace("OUT", out).replace("STEP", update)
            .replace("RESULT", result))


SHARES = '''
def chapter_shares(rows, wall_seconds, credit):
    seconds = {}
    for entry, s in rows:
        seconds[credit[entry]] = ADD
    OUTSIDE
    return {chapter: s / DIVISOR for chapter, s in seconds.items()}
'''


def shares(add="seconds.get(credit[entry], 0.0) + s",
           outside='seconds["outside"] = wall_seconds - sum(s for _, s in rows)', divisor="wall_seconds"):
    return SHARES.replace("ADD", add).replace("OUTSIDE", outside).replace("DIVISOR", divisor)


WRONG = [
    ("16.1", "little-endian sizes", idx(sizes='"<"'), "big-endian uint32"),
    ("16.1", "data read from the wrong offset",
     idx(body="data[4 + ndim:4 + ndim + int(np.prod(shape))]"), "the data starts right after the header"),
    ("16.1", "returned flat", idx().replace(".reshape(shape)", ""), "not flat"),
    ("16.1", "nothing checked", idx(checks="False").replace("np.frombuffer(body, dtype=np.uint8).reshape(shape)",
                                                             "np.frombuffer(body[:int(np.prod(shape))], dtype=np.uint8).reshape(shape)"),
     "two zero bytes and the type code 0x08"),
    ("16.1", "length unchecked",
     idx().replace('    if True and len(body)', '    if False and len(body)').replace(
         "np.frombuffer(body, dtype=np.uint8)", "np.frombuffer(body[:int(np.prod(shape))].ljust(int(np.prod(shape)), b'0'), dtype=np.uint8)"),
     "one byte short or one byte long"),
    ("16.1", "short file", idx().replace("len(data) < 4 or ", ""), "too short to hold its 4-byte magic number"),
    ("16.2", "short batch always dropped",
     "def batches(n, batch_size, drop_last):\n    return [list(range(k * batch_size, (k + 1) * batch_size)) for k in range(n // batch_size)]",
     "without drop_last the short last batch is kept"),
    ("16.2", "last batch runs past n",
     "def batches(n, batch_size, drop_last):\n    return [list(range(s, s + batch_size)) for s in range(0, n, batch_size)]",
     "the last batch stops at n - 1"),
    ("16.2", "drop_last ignored",
     "def batches(n, batch_size, drop_last):\n    return [list(range(s, min(s + batch_size, n))) for s in range(0, n, batch_size)]",
     "with drop_last the short last batch is left out"),
    ("16.2", "drop_last drops a full batch",
     "def batches(n, batch_size, drop_last):\n    out = [list(range(s, min(s + batch_size, n))) for s in range(0, n, batch_size)]\n"
     "    return out[:-1] if drop_last else out",
     "drop_last drops nothing"),
    ("16.2", "an empty batch for n = 0", BATCHES_BY_APPENDING, "n = 0 gives no batches"),
    ("16.2", "arrays, not lists",
     "def batches(n, batch_size, drop_last):\n    return [np.arange(s, min(s + batch_size, n)) for s in range(0, n, batch_size)]",
     "each a list of ints"),
    ("16.3", "np.concatenate",
     "def collate(samples):\n    return np.concatenate([i for i, _ in samples]), np.array([l for _, l in samples])",
     "stack along a NEW first axis"),
    ("16.3", "labels as a column",
     "def collate(samples):\n    return np.stack([i for i, _ in samples]), np.array([[l] for _, l in samples])",
     "the labels form a 1-d array"),
    ("16.3", "images rescaled",
     "def collate(samples):\n    return np.stack([i / 255 for i, _ in samples]), np.array([l for _, l in samples])",
     "unchanged and in the samples' order"),
    ("16.3", "labels reversed",
     "def collate(samples):\n    return np.stack([i for i, _ in samples]), np.array([l for _, l in samples][::-1])",
     "keep the samples' order"),
    ("17.1", "softmax before the loss", step(out="model(x).softmax(1)"), "no softmax first"),
    ("17.1", "no step", step(update="pass"), "the weights never move"),
    ("17.1", "zero_grad between backward and step", step(clear="pass", update="optimizer.zero_grad(); optimizer.step()"),
     "the weights never move"),
    ("17.1", "gradients never cleared", step(clear="pass"), "cleared before each backward pass"),
    ("17.1", "a tensor returned", step(result="loss"), "return loss.item()"),
    ("17.2", "transposed",
     "def confusion(labels, predictions, classes):\n    m = np.zeros((classes, classes), dtype=np.int64)\n"
     "    np.add.at(m, (predictions, labels), 1)\n    return m",
     "rows and columns are swapped"),
    ("17.2", "fancy-index +=",
     "def confusion(labels, predictions, classes):\n    m = np.zeros((classes, classes), dtype=np.int64)\n"
     "    m[labels, predictions] += 1\n    return m",
     "np.add.at adds for every one"),
    ("17.2", "classes from the data",
     "def confusion(labels, predictions, classes):\n    k = int(max(labels.max(), predictions.max())) + 1\n"
     "    m = np.zeros((k, k), dtype=np.int64)\n    np.add.at(m, (labels, predictions), 1)\n    return m",
     "one row and one column per class"),
    ("17.3", "no outside", shares(outside="pass"), 'belongs under "outside"'),
    ("17.3", "divided by the rows",
     shares(divisor="max(sum(t for _, t in rows), 1e-12)"), "not by the sum of the rows"),
    ("17.3", "rows overwrite", shares(add="s"), "a second row must not replace the first"),
    ("17.3", "seconds, not shares", shares(divisor="1.0"), "not seconds"),
    ("17.3", "outside in seconds",
     shares(outside="pass").replace("    return {", "    out = {").rstrip() +
     '\n    out["outside"] = wall_seconds - sum(s for _, s in rows)\n    return out\n',
     '"outside" is a share too'),
    ("17.3", "no rows, no outside",
     shares().replace("    seconds = {}", "    seconds = {}\n    if not rows:\n        return {}"),
     'a profile with no rows is all "outside"'),
]


@pytest.mark.parametrize("exercise, label, wrong, hint", WRONG, ids=[f"{e}-{l}" for e, l, _, _ in WRONG])
def test_a_typical_mistake_gets_its_hint(exercise, label, wrong, hint):
    line = hint_for(NOTEBOOKS[exercise.split(".")[0]], exercise, wrong)
    assert hint in line, line


def test_every_exercise_has_mistakes_tested():
    # 16.4 and 17.4 are the performance exercises: test_perf_exercise_hints.py tests their mistakes.
    tested = {e for e, *_ in WRONG}
    for chapter, notebook in NOTEBOOKS.items():
        assert set(cells(notebook)[1]) - {f"{chapter}.4"} == {f"{chapter}.{k}" for k in range(1, 4)}
        assert {f"{chapter}.{k}" for k in range(1, 4)} <= tested
