"""The sorting, scan and reshuffling ops on "cuda": the composites run there and match the CPU; the
three ops whose kernels exist only on the CPU (sort, the scans, scatter_reduce) say so, naming the
device, with a NotImplementedError."""
from __future__ import annotations

import pytest
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


@pytest.mark.parametrize("name", ["sort", "cumprod", "cummax", "logcumsumexp", "scatter_reduce"])
def test_cpu_only_kernels_name_the_device(rng, name):
    _, x = pair(sample(rng, (3, 4), aakaar.float32))
    calls = {
        "sort": lambda: x.sort(),
        "cumprod": lambda: x.cumprod(0),
        "cummax": lambda: x.cummax(1),
        "logcumsumexp": lambda: x.logcumsumexp(1),
        "scatter_reduce": lambda: x.scatter_reduce(0, aakaar.zeros(3, 4, dtype=aakaar.int64).cuda(), x, "amax"),
    }
    with pytest.raises(NotImplementedError, match="cuda"):
        calls[name]()
