"""The trajectory explorer (chapter 15): its paths are aakaar.optim's, its surfaces and its choice of
stored path in JavaScript are the Python ones."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

import aakaar as ak
from aakaar.book.widgets import TrajectoryExplorer
from aakaar.book.widgets.trajectory_explorer import (DIGITS, OPTIMIZERS, SURFACES, _trim, compute_paths,
                                                     make_optimizer, settings)
from widget_helpers import run_js


def one_path(label: str, setting: dict, surface: str, steps: int, every: int) -> list[float]:
    """The path of one setting, computed the plain way: one parameter, one optimizer, its own backward."""
    f, _, start, _, _ = SURFACES[surface]
    p = ak.tensor(list(start), dtype=ak.float64, requires_grad=True)
    opt = make_optimizer(label, [p], setting)
    out = list(start)
    for t in range(1, steps + 1):
        opt.zero_grad()
        f(p[0], p[1]).backward()
        opt.step()
        if t % every == 0:
            out += p.tolist()
    return out


@pytest.fixture(scope="module")
def widget():
    return TrajectoryExplorer(optimizers=["SGD", "Adam", "Adadelta"], surfaces=["Rosenbrock", "saddle"],
                              steps=40, every=4)


def test_paths_are_the_librarys(widget):
    """Every stored point is where aakaar.optim, stepping that setting alone, puts the parameter
    (up to the stored rounding), for every optimizer, setting and surface of the widget."""
    assert set(widget.paths) == {"Rosenbrock", "saddle"}
    for surface, per_label in widget.paths.items():
        assert set(per_label) == {"SGD", "Adam", "Adadelta"}
        for label, paths in per_label.items():
            assert len(paths) == len(settings(label))
            for setting, stored in zip(settings(label), paths):
                want = one_path(label, setting, surface, 40, 4)
                n = len(stored)
                assert n % 2 == 0 and 2 <= n <= len(want)
                np.testing.assert_allclose(stored, want[:n], rtol=0, atol=0.6 * 10 ** -DIGITS,
                                           err_msg=f"{label} {setting} on {surface}")
                if n < len(want):  # cut short: the next point diverged
                    assert _trim([(want[n], want[n + 1])], SURFACES[surface][3]) == []


def test_settings_grid_and_defaults(widget):
    assert settings("SGD")[:4] == [dict(lr=1e-4, momentum=0.0), dict(lr=1e-4, momentum=0.5),
                                   dict(lr=1e-4, momentum=0.9), dict(lr=3e-4, momentum=0.0)]
    assert [o["name"] for o in widget.optimizers] == ["SGD", "Adam", "Adadelta"]
    assert widget.optimizers[0]["axes"] == [["lr", OPTIMIZERS["SGD"][2]["lr"]], ["momentum", [0.0, 0.5, 0.9]]]
    assert widget.choice == {"SGD": [2, 2], "Adam": [2, 1], "Adadelta": [2]}  # lr 1e-3 / 0.01 / 10
    assert widget.selected == ["SGD", "Adam"]  # the default selection, minus what is not shown
    assert widget.shown == widget.steps == 40 and widget.every == 4


def test_the_lessons_the_chapter_draws_hold():
    """What chapter 15 says about the paths (at the widget's default settings) is true of them."""
    paths = compute_paths(["SGD", "Adam", "RMSprop"], list(SURFACES), 300, 3)

    def end(surface, label, **setting):
        path = paths[surface][label][settings(label).index(setting)]
        return path[-2:], len(path) // 2

    f = {name: SURFACES[name][0] for name in SURFACES}
    # Rosenbrock: SGD at lr 1e-3 crawls; with momentum 0.9 it nearly reaches (1, 1); at 3e-3 it leaves at once.
    assert f["Rosenbrock"](*end("Rosenbrock", "SGD", lr=1e-3, momentum=0.0)[0]) > 4
    assert f["Rosenbrock"](*end("Rosenbrock", "SGD", lr=1e-3, momentum=0.9)[0]) < 0.1
    assert end("Rosenbrock", "SGD", lr=3e-3, momentum=0.0)[1] <= 3
    # ... while Adam and RMSprop at lr 0.01 are still high up the valley
    for label, setting in [("Adam", dict(lr=1e-2, beta1=0.9)), ("RMSprop", dict(lr=1e-2, alpha=0.99))]:
        assert f["Rosenbrock"](*end("Rosenbrock", label, **setting)[0]) > 3
    # the saddle: SGD (lr 1e-3, momentum 0.9) is still near the ridge; Adam and RMSprop have left the window
    assert abs(end("saddle", "SGD", lr=1e-3, momentum=0.9)[0][1]) < 0.5
    for label, setting in [("Adam", dict(lr=1e-2, beta1=0.9)), ("RMSprop", dict(lr=1e-2, alpha=0.99))]:
        assert abs(end("saddle", label, **setting)[0][1]) > 2
    # Beale: SGD with momentum reaches (3, 0.5); Adam and RMSprop head for the plateau at negative x
    assert math.dist(end("Beale", "SGD", lr=1e-3, momentum=0.9)[0], (3, 0.5)) < 0.2
    for label, setting in [("Adam", dict(lr=1e-2, beta1=0.9)), ("RMSprop", dict(lr=1e-2, alpha=0.99))]:
        assert end("Beale", label, **setting)[0][0] < 0


def test_bad_arguments_are_clear_errors():
    with pytest.raises(ValueError, match="optimizers must be a non-empty list from"):
        TrajectoryExplorer(optimizers=["Adam", "Lion"])
    with pytest.raises(ValueError, match="surfaces must be a non-empty list from"):
        TrajectoryExplorer(surfaces=[])
    with pytest.raises(ValueError, match="selected names \\['RMSprop'\\]"):
        TrajectoryExplorer(optimizers=["Adam"], selected=["RMSprop"])
    with pytest.raises(ValueError, match="steps must be an int in \\[1, 2000\\]"):
        TrajectoryExplorer(steps=0)
    with pytest.raises(ValueError, match="must be a multiple of every"):
        TrajectoryExplorer(steps=10, every=3)


def test_js_surfaces_and_path_choice_match_python(need_program, tmp_path):
    points = [(x, y) for x in (-2.0, -0.5, 0.0, 1.0, 3.0) for y in (-1.5, 0.0, 0.5, 2.0)]
    axes = [["lr", [1, 2, 3, 4, 5]], ["momentum", [0, 0.5, 0.9]], ["other", [0, 1]]]
    idx = [[a, b, c] for a in range(5) for b in range(3) for c in range(2)]
    flat = [0.0, 0.0, 1.0, 1.0, 2.0, 2.0]
    got = run_js(need_program, tmp_path, "trajectory_explorer.js",
                 f"const pts = {json.dumps(points)}, axes = {json.dumps(axes)}, idx = {json.dumps(idx)};\n"
                 "const out = {};\n"
                 "for (const [name, f] of Object.entries(m.SURFACE_FUNCTIONS)) out[name] = pts.map(([x, y]) => f(x, y));\n"
                 "out.index = idx.map((i) => m.settingIndex(axes, i));\n"
                 f"const flat = {json.dumps(flat)};\n"
                 "out.upTo = [0, 2, 3, 4, 9].map((s) => m.pointsUpTo(flat, 2, s));\n"
                 "out.describe = [m.describe(flat, 2, 4, (x, y) => x + y), m.describe(flat, 2, 8, (x, y) => x + y)];\n"
                 "console.log(JSON.stringify(out));")
    assert set(got) - {"index", "upTo", "describe"} == set(SURFACES)
    for name, (f, *_rest) in SURFACES.items():
        np.testing.assert_allclose(got[name], [f(x, y) for x, y in points], rtol=1e-14)
    # the JS index of a choice is the position of that setting in Python's (itertools.product) order
    assert got["index"] == list(range(len(idx)))
    assert got["upTo"] == [[[0, 0]], [[0, 0], [1, 1]], [[0, 0], [1, 1]], [[0, 0], [1, 1], [2, 2]],
                           [[0, 0], [1, 1], [2, 2]]]
    assert got["describe"] == ["f(2.00, 2.00) = 4.00", "diverged by step 6"]
