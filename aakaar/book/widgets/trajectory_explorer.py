"""TrajectoryExplorer: optimizers' paths on Rosenbrock, Beale and a saddle, side by side (chapter 15).

The paths are the library's: every one is computed when the widget is made, by ``aakaar.optim``
stepping a 2-element float64 parameter whose gradient comes from aakaar's autograd, for every
setting of a small grid of hyperparameters (learning rates, momentum, ...). They are kept in the
widget's state; choosing optimizers and settings, drawing the surfaces and replaying the steps
happen in ``trajectory_explorer.js``, so the widget responds in the static book too. Computing the
paths in the browser instead would have meant a second, JavaScript implementation of every update
rule — showing *its* behaviour, not the library's.
"""
from __future__ import annotations

import itertools
import math
from typing import Any, Callable

import anywidget
import traitlets

from ._base import CSS, HERE

# Written with +, - and * only, so the same function evaluates numpy arrays, aakaar tensors (with
# autograd) and Python floats; trajectory_explorer.js has the same three formulas.
Surface = Callable[[Any, Any], Any]


def rosenbrock(x, y):
    """(1 - x)^2 + 100 (y - x^2)^2: a curved valley, minimum 0 at (1, 1)."""
    return (1 - x) * (1 - x) + 100 * (y - x * x) * (y - x * x)


def beale(x, y):
    """(1.5 - x + xy)^2 + (2.25 - x + xy^2)^2 + (2.625 - x + xy^3)^2: flat plateaus, steep walls, minimum 0 at (3, 0.5)."""
    a = 1.5 - x + x * y
    b = 2.25 - x + x * y * y
    c = 2.625 - x + x * y * y * y
    return a * a + b * b + c * c


def saddle(x, y):
    """x^2 - y^2: a minimum along x, a maximum along y; no minimum at all."""
    return x * x - y * y


# name: (function, formula (as the widget shows it), start, window (xmin, xmax, ymin, ymax), minimum or None)
SURFACES: dict[str, tuple[Surface, str, tuple[float, float], tuple[float, float, float, float],
                          tuple[float, float] | None]] = {
    "Rosenbrock": (rosenbrock, "(1 − x)² + 100 (y − x²)²", (-1.5, 2.0), (-2.0, 2.0, -1.0, 3.0), (1.0, 1.0)),
    "Beale": (beale, "Σₖ (cₖ − x + x yᵏ)²", (0.5, 1.5), (-4.5, 4.5, -4.5, 4.5), (3.0, 0.5)),
    "saddle": (saddle, "x² − y²", (-1.8, 0.001), (-2.0, 2.0, -2.0, 2.0), None),
}

# label: (aakaar.optim class, fixed options, hyperparameter axes {name: values}); every combination
# of the axes' values is one path (itertools.product order: the last axis varies fastest).
OPTIMIZERS: dict[str, tuple[str, dict[str, Any], dict[str, list[float]]]] = {
    "SGD": ("SGD", {}, {"lr": [1e-4, 3e-4, 1e-3, 3e-3, 1e-2], "momentum": [0.0, 0.5, 0.9]}),
    "SGD Nesterov": ("SGD", {"nesterov": True}, {"lr": [1e-4, 3e-4, 1e-3, 3e-3, 1e-2], "momentum": [0.5, 0.9]}),
    "Adagrad": ("Adagrad", {}, {"lr": [0.03, 0.1, 0.3, 1.0, 3.0]}),
    "RMSprop": ("RMSprop", {}, {"lr": [1e-3, 3e-3, 1e-2, 3e-2, 0.1], "alpha": [0.9, 0.99]}),
    "Adam": ("Adam", {}, {"lr": [1e-3, 3e-3, 1e-2, 3e-2, 0.1], "beta1": [0.0, 0.9]}),
    "AdamW": ("AdamW", {}, {"lr": [1e-3, 3e-3, 1e-2, 3e-2, 0.1], "weight_decay": [0.01, 0.1, 1.0]}),
    "Adamax": ("Adamax", {}, {"lr": [2e-3, 6e-3, 2e-2, 6e-2, 0.2]}),
    "NAdam": ("NAdam", {}, {"lr": [2e-3, 6e-3, 2e-2, 6e-2, 0.2]}),
    "RAdam": ("RAdam", {}, {"lr": [1e-3, 3e-3, 1e-2, 3e-2, 0.1]}),
    "Adadelta": ("Adadelta", {}, {"lr": [1.0, 3.0, 10.0, 30.0, 100.0]}),
}
DIGITS = 4  # stored coordinates are rounded to this many decimals (the page carries every point)


def settings(label: str) -> list[dict[str, float]]:
    """Every hyperparameter setting of optimizer ``label``, in the order its paths are stored."""
    axes = OPTIMIZERS[label][2]
    return [dict(zip(axes, values)) for values in itertools.product(*axes.values())]


def _group_options(setting: dict[str, float]) -> dict[str, Any]:
    """A setting as aakaar.optim's keyword arguments (beta1 goes into betas, with PyTorch's beta2)."""
    options = dict(setting)
    if "beta1" in options:
        options["betas"] = (options.pop("beta1"), 0.999)
    return options


def make_optimizer(label: str, params: list, setting: dict[str, float]):
    """The aakaar.optim optimizer of ``label`` with ``setting`` (beta1 is the first of Adam's betas)."""
    import aakaar.optim as optim

    cls, fixed, _ = OPTIMIZERS[label]
    return getattr(optim, cls)(params, **fixed, **_group_options(setting))


def _trim(points: list[tuple[float, float]], window: tuple[float, float, float, float]) -> list[float]:
    """The points as a flat [x0, y0, x1, y1, ...], rounded, cut before the first one that is not
    finite or lies far (ten windows) outside the window: a diverged path stops there."""
    xmin, xmax, ymin, ymax = window
    w, h = xmax - xmin, ymax - ymin
    out: list[float] = []
    for x, y in points:
        if not (math.isfinite(x) and math.isfinite(y)) or not (xmin - 10 * w <= x <= xmax + 10 * w
                                                                 and ymin - 10 * h <= y <= ymax + 10 * h):
            break
        out += [round(x, DIGITS), round(y, DIGITS)]
    return out


def compute_paths(labels: list[str], surfaces: list[str], steps: int, every: int) -> dict[str, dict[str, list]]:
    """``paths[surface][label][k]``: the points (every ``every``-th of ``steps`` steps, flat x, y) of
    setting k of optimizer ``label``, started at the surface's start point.

    All the settings of one optimizer run together: one parameter per setting, each in a parameter
    group of its own (its own learning rate), the surface summed over them, one backward and one
    ``step()`` per iteration; each parameter's gradient depends on that parameter alone."""
    import aakaar as ak

    out: dict[str, dict[str, list]] = {}
    for name in surfaces:
        f, _, start, window, _ = SURFACES[name]
        out[name] = {}
        for label in labels:
            grid = settings(label)
            params = [ak.tensor(list(start), dtype=ak.float64, requires_grad=True) for _ in grid]
            groups = [dict(params=[p], **_group_options(s)) for p, s in zip(params, grid)]
            # every group overrides the defaults; they only have to pass the constructor's checks (Nesterov needs momentum)
            opt = make_optimizer(label, groups, grid[-1])
            trace = [[tuple(start)] for _ in grid]
            for t in range(1, steps + 1):
                opt.zero_grad()
                xy = ak.stack(params)
                f(xy[:, 0], xy[:, 1]).sum().backward()
                opt.step()
                if t % every == 0:
                    for k, p in enumerate(params):
                        x, y = p.tolist()
                        trace[k].append((x, y))
            out[name][label] = [_trim(points, window) for points in trace]
    return out


class TrajectoryExplorer(anywidget.AnyWidget):
    """Tick optimizers, pick their hyperparameters, slide through the steps; watch the paths on
    Rosenbrock, Beale and a saddle side by side. ``selected`` names the optimizers ticked at first."""

    _esm = HERE / "trajectory_explorer.js"
    _css = CSS
    surfaces = traitlets.List().tag(sync=True)
    optimizers = traitlets.List().tag(sync=True)
    paths = traitlets.Dict().tag(sync=True)
    steps = traitlets.Int(300).tag(sync=True)
    every = traitlets.Int(3).tag(sync=True)
    shown = traitlets.Int(300).tag(sync=True)
    selected = traitlets.List().tag(sync=True)
    choice = traitlets.Dict().tag(sync=True)

    def __init__(self, optimizers: list[str] | None = None, selected: list[str] | None = None,
                 surfaces: list[str] | None = None, steps: int = 300, every: int = 3, **kwargs):
        labels = list(OPTIMIZERS) if optimizers is None else list(optimizers)
        names = list(SURFACES) if surfaces is None else list(surfaces)
        if selected is None:
            selected = [x for x in ("SGD", "RMSprop", "Adam") if x in labels] or labels[:1]
        selected = list(selected)
        for what, given, known in [("optimizers", labels, OPTIMIZERS), ("surfaces", names, SURFACES)]:
            unknown = [x for x in given if x not in known]
            if unknown or not given:
                raise ValueError(f"TrajectoryExplorer: {what} must be a non-empty list from {list(known)}, "
                                 f"got {given!r}")
        unknown = [x for x in selected if x not in labels]
        if unknown:
            raise ValueError(f"TrajectoryExplorer: selected names {unknown} that are not among the optimizers {labels}")
        for name, value, low, high in [("steps", steps, 1, 2000), ("every", every, 1, 100)]:
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise ValueError(f"TrajectoryExplorer: {name} must be an int in [{low}, {high}], got {value!r}")
        if steps % every:
            raise ValueError(f"TrajectoryExplorer: steps ({steps}) must be a multiple of every ({every})")
        # The default setting of each optimizer: the middle learning rate, the last value of other axes.
        choice = {label: [len(v) // 2 if axis == "lr" else len(v) - 1 for axis, v in OPTIMIZERS[label][2].items()]
                  for label in labels}
        super().__init__(
            surfaces=[dict(name=n, formula=SURFACES[n][1], start=list(SURFACES[n][2]), window=list(SURFACES[n][3]),
                           minimum=None if SURFACES[n][4] is None else list(SURFACES[n][4])) for n in names],
            optimizers=[dict(name=label, axes=[[axis, values] for axis, values in OPTIMIZERS[label][2].items()])
                        for label in labels],
            paths=compute_paths(labels, names, steps, every), steps=steps, every=every, shown=steps,
            selected=selected, choice=choice, **kwargs)
