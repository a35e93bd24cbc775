"""ConvExplorer: a 3x3 kernel sliding over a 28x28 character, the feature map it makes, and its pooling
(chapter 13b)."""
from __future__ import annotations

import base64

import anywidget
import numpy as np
import traitlets

from ._base import CSS, HERE

# Kernels with a name a reader can predict the map of: edges, a blur, a sharpen. Rows top to bottom.
KERNELS: dict[str, list[list[float]]] = {
    "vertical edges (Sobel x)": [[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]],
    "horizontal edges (Sobel y)": [[-1, -2, -1], [0, 0, 0], [1, 2, 1]],
    "blur (box)": [[1 / 9] * 3] * 3,
    "sharpen": [[0, -1, 0], [-1, 5, -1], [0, -1, 0]],
    "diagonal \\": [[2, -1, -1], [-1, 2, -1], [-1, -1, 2]],
}


class ConvExplorer(anywidget.AnyWidget):
    """Move the kernel's window over the image (hover, or the position slider); the widget shows the nine
    products of the window with the kernel and their sum — one pixel of the feature map — the whole map,
    the map after ReLU, and after 2x2 max pooling.

    The image (pixels scaled to [0, 1], as the benchmark feeds them) and the kernels are held here; the
    convolution (a cross-correlation with padding 1, as ``F.conv2d(x, w, padding=1)``) and the pooling are
    computed in ``conv_explorer.js``, so the widget responds in the static book. The tests check the
    JavaScript's maps against ``aakaar.nn.functional``.
    """

    _esm = HERE / "conv_explorer.js"
    _css = CSS
    image = traitlets.Unicode().tag(sync=True)       # 28x28 uint8 pixels, base64
    caption = traitlets.Unicode().tag(sync=True)     # what the image is (and where it came from)
    kernels = traitlets.Dict().tag(sync=True)        # name -> 3x3 list of floats
    kernel = traitlets.Unicode().tag(sync=True)      # the name of the kernel shown
    position = traitlets.List([14, 14]).tag(sync=True)  # [row, column] of the window's centre

    def __init__(self, image: np.ndarray, caption: str = "", kernels: dict | None = None, kernel: str | None = None,
                 **kwargs):
        image = np.asarray(image)
        if image.shape != (28, 28) or image.dtype != np.uint8:
            raise ValueError(f"ConvExplorer: image must be uint8 of shape (28, 28), got {image.dtype} {image.shape}")
        kernels = dict(KERNELS if kernels is None else kernels)
        if not kernels:
            raise ValueError("ConvExplorer: kernels must name at least one kernel")
        for name, k in kernels.items():
            arr = np.asarray(k, dtype=np.float64)
            if arr.shape != (3, 3) or not np.isfinite(arr).all():
                raise ValueError(f"ConvExplorer: kernel {name!r} must be 3x3 finite numbers, got shape {arr.shape}")
            kernels[name] = arr.tolist()
        kernel = next(iter(kernels)) if kernel is None else kernel
        if kernel not in kernels:
            raise ValueError(f"ConvExplorer: kernel {kernel!r} is not one of {list(kernels)}")
        super().__init__(image=base64.b64encode(image.tobytes()).decode("ascii"), caption=caption, kernels=kernels,
                         kernel=kernel, **kwargs)
