"""The fused losses against PyTorch, forward and backward, in the same run.

    python -m aakaar.book.bench.losses [--threads 1] [--rounds 31] [--json PATH]

One timed call is what a training step asks of a loss: the forward on logits
that require grad, and the backward to them. The problems are issue 16's:
cross-entropy at (64, 47) (an EMNIST batch) and (256, 1000), BCEWithLogits and
MSE at (64, 1000), float32; then cross-entropy with probability targets (soft
labels) at (256, 1000) and the CTC loss of 16 sequences of 100 frames over 30
classes (targets of 10 to 20 labels), whose x are log-probabilities. Before anything is timed, both libraries compute
the loss and gradient of the same data and must agree; then the calls run
interleaved (aakaar, torch, aakaar, ...) and the medians are compared. A ratio
below 1.0 means aakaar is faster. "paired" is the median over rounds of each
round's own ratio: the two calls of a round ran within milliseconds of each
other, under the same load, so on a busy machine it moves less than the ratio of
the medians.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

import aakaar as ak
import aakaar.nn.functional as F


from .timing import paired_against_torch, paired_table_main, spin_caps_in_effect


def _problems(rng: np.random.Generator) -> dict[str, tuple]:
    """label: (function name, x, target, further arguments)."""
    def logits(n, c):
        return rng.standard_normal((n, c)).astype(np.float32) * 2

    soft = rng.random((256, 1000)).astype(np.float32)
    soft /= soft.sum(1, keepdims=True)
    seq = rng.standard_normal((100, 16, 30))
    log_probs = (seq - np.log(np.exp(seq).sum(2, keepdims=True))).astype(np.float32)
    ctc_lengths = ([100] * 16, [int(v) for v in rng.integers(10, 21, 16)])

    return {
        "cross_entropy (64, 47)": ("cross_entropy", logits(64, 47), rng.integers(0, 47, 64)),
        "cross_entropy (256, 1000)": ("cross_entropy", logits(256, 1000), rng.integers(0, 1000, 256)),
        "bce_with_logits (64, 1000)": ("binary_cross_entropy_with_logits", logits(64, 1000),
                                       rng.random((64, 1000)).astype(np.float32)),
        "mse (64, 1000)": ("mse_loss", logits(64, 1000), rng.standard_normal((64, 1000)).astype(np.float32)),
        "cross_entropy soft (256, 1000)": ("cross_entropy", logits(256, 1000), soft),
        "ctc (100, 16, 30)": ("ctc_loss", log_probs, rng.integers(1, 30, (16, 20)), *ctc_lengths),
    }


def _step(lib, fn_name: str, x, t, *rest) -> Callable[[], object]:
    fn = getattr(lib, fn_name)

    def run():
        x.grad = None
        loss = fn(x, t, *rest)
        loss.backward()
        return loss

    return run


def run(threads: int = 1, rounds: int = 31) -> dict:
    import torch

    ak.set_num_threads(threads)
    torch.set_num_threads(threads)
    results = {}
    for label, (name, x, t, *rest) in _problems(np.random.default_rng(0)).items():
        t = t.astype(np.int64) if t.dtype.kind == "i" else t
        xa, xt = ak.from_numpy(x.copy()).requires_grad_(), torch.from_numpy(x.copy()).requires_grad_()
        ta, tt = ak.from_numpy(t.copy()), torch.from_numpy(t.copy())
        sa, st = _step(F, name, xa, ta, *rest), _step(torch.nn.functional, name, xt, tt, *rest)
        la, lt = sa(), st()
        np.testing.assert_allclose(la.item(), lt.item(), rtol=1e-5)
        np.testing.assert_allclose(xa.grad.numpy(), xt.grad.numpy(), rtol=1e-4, atol=1e-7)
        results[label] = paired_against_torch(sa, st, rounds, warmup=2)
    return {"threads": threads, "rounds": rounds, "spin_caps": spin_caps_in_effect(), "results": results}


def main(argv: list[str] | None = None) -> None:
    paired_table_main("aakaar.book.bench.losses", __doc__.split("\n")[0], run, "fused losses, forward + backward, float32", 31, argv)


if __name__ == "__main__":
    main()
