"""conv2d and pooling against PyTorch, forward and backward, in the same run.

    python -m aakaar.book.bench.conv [--threads 1] [--rounds 21] [--big] [--json PATH]

One timed call is what a training step asks of a layer: the forward on an input that requires
grad, and the backward to the input, the weight and the bias (for pooling, to the input). The
problems are a small EMNIST CNN's layers, float32: a 64x1x28x28 batch through 32 3x3 filters
(padding 1), 2x2 max pooling, then 64x32x14x14 through 64 3x3 filters; ``--big`` adds issue 22's
(32, 64, 56, 56) with 64 3x3 filters. Before anything is timed both libraries compute the same
layer and must agree; then the calls run interleaved (aakaar, torch, aakaar, ...) and the medians
are compared. A ratio below 1.0 means aakaar is faster; "paired" is the median of each round's
own ratio (the two calls of a round ran under the same load).

The rows marked "(im2col)" time aakaar with AAKAAR_CONV2D_ALGO=im2col, the road float32 3x3
convolutions took before Winograd's (chapter 13b), against PyTorch again: the two roads
compared in one run.
"""

from __future__ import annotations

import os
from typing import Callable

import numpy as np

import aakaar as ak

from .timing import paired_against_torch, paired_table_main, spin_caps_in_effect


def _problems(big: bool) -> dict[str, tuple]:
    """label: ("conv", input shape, weight shape, padding) or ("maxpool", input shape, kernel)."""
    probs = {
        "conv 64x1x28x28, 32 3x3": ("conv", (64, 1, 28, 28), (32, 1, 3, 3), 1),
        "maxpool2d 64x32x28x28, 2": ("maxpool", (64, 32, 28, 28), 2),
        "conv 64x32x14x14, 64 3x3": ("conv", (64, 32, 14, 14), (64, 32, 3, 3), 1),
        "conv 64x32x14x14 (im2col)": ("conv", (64, 32, 14, 14), (64, 32, 3, 3), 1, "im2col"),
        "maxpool2d 64x64x14x14, 2": ("maxpool", (64, 64, 14, 14), 2),
    }
    if big:
        probs["conv 32x64x56x56, 64 3x3"] = ("conv", (32, 64, 56, 56), (64, 64, 3, 3), 1)
        probs["conv 32x64x56x56 (im2col)"] = ("conv", (32, 64, 56, 56), (64, 64, 3, 3), 1, "im2col")
    return probs


def _on_road(step: Callable[[], object], road: str | None) -> Callable[[], object]:
    """step with AAKAAR_CONV2D_ALGO set to road for its duration (None: the library's choice)."""
    if road is None:
        return step

    def run():
        before = os.environ.get("AAKAAR_CONV2D_ALGO")
        os.environ["AAKAAR_CONV2D_ALGO"] = road
        try:
            return step()
        finally:
            if before is None:
                del os.environ["AAKAAR_CONV2D_ALGO"]
            else:
                os.environ["AAKAAR_CONV2D_ALGO"] = before

    return run


def _steps(lib, F, prob, rng: np.random.Generator) -> tuple[Callable[[], object], list]:
    """A forward+backward call of the problem in lib, and the tensors whose .grad it fills."""
    kind, xs = prob[0], prob[1]
    x = lib.from_numpy(rng.standard_normal(xs).astype(np.float32)).requires_grad_()
    if kind == "conv":
        w = lib.from_numpy((rng.standard_normal(prob[2]) * 0.1).astype(np.float32)).requires_grad_()
        b = lib.from_numpy(rng.standard_normal(prob[2][0]).astype(np.float32)).requires_grad_()
        leaves = [x, w, b]

        def fwd():
            return F.conv2d(x, w, b, padding=prob[3])
    else:
        leaves = [x]

        def fwd():
            return F.max_pool2d(x, prob[2])

    def run():
        for t in leaves:
            t.grad = None
        out = fwd()
        out.sum().backward()
        return out

    return run, leaves


def run(threads: int = 1, rounds: int = 21, big: bool = False) -> dict:
    import torch

    ak.set_num_threads(threads)
    torch.set_num_threads(threads)
    results = {}
    for label, prob in _problems(big).items():
        sa, la = _steps(ak, ak.nn.functional, prob, np.random.default_rng(0))
        sa = _on_road(sa, prob[4] if prob[0] == "conv" and len(prob) > 4 else None)
        st, lt = _steps(torch, torch.nn.functional, prob, np.random.default_rng(0))
        oa, ot = sa(), st()
        np.testing.assert_allclose(oa.detach().numpy(), ot.detach().numpy(), rtol=1e-4, atol=1e-4)
        for a, t in zip(la, lt):
            scale = float(t.grad.abs().max())
            np.testing.assert_allclose(a.grad.numpy(), t.grad.numpy(), rtol=1e-4, atol=1e-5 * (1 + scale))
        results[label] = paired_against_torch(sa, st, rounds, warmup=1)
    return {"threads": threads, "rounds": rounds, "spin_caps": spin_caps_in_effect(), "results": results}


def main(argv: list[str] | None = None) -> None:
    paired_table_main("aakaar.book.bench.conv", __doc__.split("\n")[0], run, "conv2d and max_pool2d, forward + backward, float32", 21, argv, extra=lambda p: p.add_argument("--big", action="store_true", help="also (32, 64, 56, 56) with 64 3x3 filters"))


if __name__ == "__main__":
    main()
