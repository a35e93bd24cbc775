"""The reshuffling ops on "cuda": the composites run there and match the CPU. (Sort, the scans and
scatter_reduce have device kernels: test_cuda_sort_scan.py.)"""
from __future__ import annotations

from cuda_suite_helpers import check, pair, sample

import aakaar
import aakaar.nn.functional as F


def test_composites_run_on_the_device(rng):
    x_cpu, x_dev = pair(sample(rng, (3, 4, 5), aakaar.float64))
    for fn in [lambda t: t.flip(0, 2), lambda t: t.roll((1, -2), (1, 2)), lambda t: t.repeat(2, 1, 1),
               lambda t: t.tril(1), lambda t: aakaar.diag_embed(t), lambda t: t.unfold(2, 2, 1),
               lambda t: t.repeat_interleave(2, 1), lambda t: aakaar.einsum("bij,bkj->bik", t, t),
               lambda t: F.scaled_dot_product_attention(t, t, t, is_causal=True)]:
        check(fn(x_dev), fn(x_cpu), rtol=1e-12, atol=1e-12)
