"""ConfusionExplorer: a classifier's confusion matrix, and the samples behind each cell (chapter 17)."""
from __future__ import annotations

import base64

import anywidget
import numpy as np
import traitlets

from ._base import CSS, HERE


def confusion_matrix(labels: np.ndarray, predictions: np.ndarray, classes: int) -> np.ndarray:
    """``counts[true, predicted]``: how many samples of class ``true`` were predicted ``predicted``."""
    labels, predictions = np.asarray(labels, np.int64), np.asarray(predictions, np.int64)
    if labels.shape != predictions.shape or labels.ndim != 1:
        raise ValueError(f"labels and predictions must be 1-D of one length, got {labels.shape} and {predictions.shape}")
    if labels.size and (min(labels.min(), predictions.min()) < 0 or max(labels.max(), predictions.max()) >= classes):
        raise ValueError(f"labels and predictions must lie in [0, {classes})")
    return np.bincount(labels * classes + predictions, minlength=classes * classes).reshape(classes, classes)


class ConfusionExplorer(anywidget.AnyWidget):
    """Hover a cell of the confusion matrix for its count; click it for the samples behind it.

    The matrix (shown with each row divided by its class's count, so rare and common classes read
    alike) and, for the ``top`` most frequent confusions, up to ``per_cell`` of their images are
    computed here once and kept in the widget's state; drawing and choosing happen in
    ``confusion_explorer.js``, so the widget responds in the static book too.
    """

    _esm = HERE / "confusion_explorer.js"
    _css = CSS
    classes = traitlets.List().tag(sync=True)      # the characters of the labels
    counts = traitlets.List().tag(sync=True)       # counts[true][predicted]
    examples = traitlets.Dict().tag(sync=True)     # "true,predicted" -> 28x28 uint8 images, base64 each
    selected = traitlets.List([]).tag(sync=True)   # [true, predicted] of the cell shown, or []

    def __init__(self, images: np.ndarray, labels: np.ndarray, predictions: np.ndarray, classes: list[str],
                 top: int = 24, per_cell: int = 8, **kwargs):
        images = np.asarray(images)
        if images.ndim != 3 or images.shape[1:] != (28, 28) or images.dtype != np.uint8:
            raise ValueError(f"ConfusionExplorer: images must be uint8 of shape (n, 28, 28), got "
                             f"{images.dtype} {images.shape}")
        if len(images) != len(labels):
            raise ValueError(f"ConfusionExplorer: {len(images)} images but {len(labels)} labels")
        counts = confusion_matrix(labels, predictions, len(classes))
        off = counts.copy()
        np.fill_diagonal(off, 0)
        order = np.argsort(off, axis=None, kind="stable")[::-1][:top]
        examples = {}
        for flat in order:
            t, p = divmod(int(flat), len(classes))
            if off[t, p] == 0:
                break
            idx = np.flatnonzero((np.asarray(labels) == t) & (np.asarray(predictions) == p))[:per_cell]
            examples[f"{t},{p}"] = [base64.b64encode(images[i].tobytes()).decode("ascii") for i in idx]
        first = [int(v) for v in divmod(int(order[0]), len(classes))] if examples else []
        super().__init__(classes=list(classes), counts=counts.tolist(), examples=examples, selected=first, **kwargs)
