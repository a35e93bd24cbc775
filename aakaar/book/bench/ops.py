"""Per-op overhead and elementwise/reduction throughput: aakaar against
PyTorch and numpy, measured in the same run, interleaved.

    python -m aakaar.book.bench.ops [--threads 1] [--quick] [--json PATH]

Reports, for each case, the median time of each library and the ratios
aakaar/torch and aakaar/numpy (below 1.0 means aakaar is faster). Small-op
cases measure the fixed cost of one call; large cases measure throughput
(GB/s moved, counting each input read and output written once).
"""

from __future__ import annotations

import argparse
import json
import platform
from typing import Callable

import numpy as np

import aakaar as ak
from aakaar.book.bench.timing import interleaved

try:  # the reference is optional: without it only numpy is compared
    import torch
except ImportError:  # pragma: no cover - exercised only without the torch extra
    torch = None


def _cases(quick: bool) -> list[tuple[str, int, int, Callable]]:
    """(name, n, bytes moved per call, factory(lib, arrays) -> callable)."""
    sizes = [10**6] if quick else [10**6, 10**7]
    cases = [("add 1-element (overhead)", 1, 12, lambda m, a, b: (lambda: a + b))]
    cases.append(("add 1000 elements", 1000, 12_000, lambda m, a, b: (lambda: a + b)))
    for n in sizes:
        cases += [
            (f"add {n:.0e}", n, 12 * n, lambda m, a, b: (lambda: a + b)),
            (f"mul {n:.0e}", n, 12 * n, lambda m, a, b: (lambda: a * b)),
            (f"relu {n:.0e}", n, 8 * n, lambda m, a, b: (lambda: m["relu"](a))),
            (f"exp {n:.0e}", n, 8 * n, lambda m, a, b: (lambda: m["exp"](a))),
            (f"sum {n:.0e}", n, 4 * n, lambda m, a, b: (lambda: a.sum())),
            (f"sum rows {n:.0e}", n, 4 * n, lambda m, a, b: (lambda: m["sum1"](m["rows"](a)))),
            (f"max {n:.0e}", n, 4 * n, lambda m, a, b: (lambda: m["max"](a))),
        ]
    return cases


def _libs() -> dict[str, dict]:
    libs = {
        "aakaar": {
            "from": lambda x: ak.from_numpy(x),
            "relu": lambda t: t.relu(),
            "exp": lambda t: t.exp(),
            "max": lambda t: t.amax(),
            "rows": lambda t: t.view(-1, 1000) if t.numel() % 1000 == 0 else t.view(1, -1),
            "sum1": lambda t: t.sum(1),
        },
        "numpy": {
            "from": lambda x: x,
            "relu": lambda a: np.maximum(a, 0),
            "exp": np.exp,
            "max": np.max,
            "rows": lambda a: a.reshape(-1, 1000) if a.size % 1000 == 0 else a.reshape(1, -1),
            "sum1": lambda a: a.sum(1),
        },
    }
    if torch is not None:
        libs["torch"] = {
            "from": lambda x: torch.from_numpy(x),
            "relu": torch.relu,
            "exp": torch.exp,
            "max": torch.amax,
            "rows": lambda t: t.view(-1, 1000) if t.numel() % 1000 == 0 else t.view(1, -1),
            "sum1": lambda t: t.sum(1),
        }
    return libs


def run(threads: int = 1, quick: bool = False, rounds: int = 15) -> list[dict]:
    """Times every case and returns one record per case."""
    ak.set_num_threads(threads)
    if torch is not None:
        torch.set_num_threads(threads)
    libs = _libs()
    rng = np.random.default_rng(0)
    results = []
    for name, n, nbytes, factory in _cases(quick):
        x = rng.standard_normal(n).astype(np.float32)
        y = rng.standard_normal(n).astype(np.float32)
        calls = {}
        for lib, m in libs.items():
            a, b = m["from"](x.copy()), m["from"](y.copy())
            calls[lib] = factory(m, a, b)
        # Same answers before timing: a fast wrong kernel is no result.
        ref = np.asarray(calls["numpy"]())
        got = np.asarray(calls["aakaar"]().numpy())
        np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-3 * max(1.0, float(np.sqrt(n))) if "sum" in name else 1e-5)
        times = interleaved(calls, rounds=rounds)
        rec = {"case": name, "n": n, "seconds": times}
        for ref_lib in ("torch", "numpy"):
            if ref_lib in times:
                rec[f"ratio_vs_{ref_lib}"] = times["aakaar"] / times[ref_lib]
        rec["aakaar_GBps"] = nbytes / times["aakaar"] / 1e9
        results.append(rec)
    return results


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--threads", type=int, default=1, help="threads for every library (default 1: stable)")
    p.add_argument("--quick", action="store_true", help="only 1e6-element cases")
    p.add_argument("--rounds", type=int, default=15)
    p.add_argument("--json", help="write the results here")
    args = p.parse_args(argv)
    res = run(args.threads, args.quick, args.rounds)
    print(f"aakaar.book.bench.ops: {platform.processor() or platform.machine()}, threads={args.threads}, "
          f"kernels={ak._C.cpu_isa()}, torch={'yes ' + torch.__version__ if torch else 'not installed'}")
    print(f"{'case':28s} {'aakaar':>10s} {'torch':>10s} {'numpy':>10s} {'ak/torch':>9s} {'ak/numpy':>9s}")
    for r in res:
        s = r["seconds"]
        fmt = lambda k: f"{s[k] * 1e6:8.2f}us" if k in s else f"{'-':>10s}"
        rt = f"{r['ratio_vs_torch']:9.2f}" if "ratio_vs_torch" in r else f"{'-':>9s}"
        print(f"{r['case']:28s} {fmt('aakaar'):>10s} {fmt('torch'):>10s} {fmt('numpy'):>10s} {rt} {r['ratio_vs_numpy']:9.2f}")
    if args.json:
        from aakaar.book.bench.io import write_json_atomic

        write_json_atomic(args.json, {"threads": args.threads, "results": res})


if __name__ == "__main__":
    main()
