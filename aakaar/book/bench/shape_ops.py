"""Sorting, scans, einsum and attention against PyTorch, in the same run.

    python -m aakaar.book.bench.shape_ops [--threads 1] [--rounds 21] [--json PATH]

Each problem is one call (forward only, float32): sort and topk along the last dim of a
(256, 1000) batch, cumprod and logcumsumexp along it, an einsum contraction (batched
attention scores 'bhqd,bhkd->bhqk' at (8, 8, 128, 64)) and scaled_dot_product_attention at the
same size. Both libraries compute the same data first and must agree; then the calls run
interleaved and the medians are compared. A ratio below 1.0 means aakaar is faster; "paired" is
the median of each round's own ratio (steadier on a busy machine).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

import aakaar as ak

from .timing import paired_against_torch, paired_table_main, spin_caps_in_effect


def _problems(rng: np.random.Generator) -> dict[str, tuple[Callable, list[np.ndarray]]]:
    """label: (fn(lib, *tensors), inputs)."""
    rows = rng.standard_normal((256, 1000)).astype(np.float32)
    q = rng.standard_normal((8, 8, 128, 64)).astype(np.float32)
    k = rng.standard_normal((8, 8, 128, 64)).astype(np.float32)
    return {
        "sort (256, 1000)": (lambda lib, x: lib.sort(x, -1)[0], [rows]),
        "topk 10 (256, 1000)": (lambda lib, x: lib.topk(x, 10, -1)[0], [rows]),
        "cumprod (256, 1000)": (lambda lib, x: lib.cumprod(x * 0.01 + 1, -1), [rows]),
        "logcumsumexp (256, 1000)": (lambda lib, x: lib.logcumsumexp(x, -1), [rows]),
        "einsum bhqd,bhkd->bhqk": (lambda lib, a, b: lib.einsum("bhqd,bhkd->bhqk", a, b), [q, k]),
        "sdpa causal (8, 8, 128, 64)": (
            lambda lib, a, b: lib.nn.functional.scaled_dot_product_attention(a, b, b, is_causal=True), [q, k]),
    }


def run(threads: int = 1, rounds: int = 21) -> dict:
    import torch

    ak.set_num_threads(threads)
    torch.set_num_threads(threads)
    results = {}
    for label, (fn, arrays) in _problems(np.random.default_rng(0)).items():
        xa = [ak.from_numpy(a.copy()) for a in arrays]
        xt = [torch.from_numpy(a.copy()) for a in arrays]
        np.testing.assert_allclose(fn(ak, *xa).numpy(), fn(torch, *xt).numpy(), rtol=2e-4, atol=2e-4)
        results[label] = paired_against_torch(lambda: fn(ak, *xa), lambda: fn(torch, *xt), rounds, warmup=1)
    return {"threads": threads, "rounds": rounds, "spin_caps": spin_caps_in_effect(), "results": results}


def main(argv: list[str] | None = None) -> None:
    paired_table_main("aakaar.book.bench.shape_ops", __doc__.split("\n")[0], run, "shape ops, forward, float32", 21, argv)


if __name__ == "__main__":
    main()
