"""The GEMM ladder against numpy (OpenBLAS) and PyTorch, measured in one run.

    python -m aakaar.book.bench.gemm [--json PATH] [--threads 1,2] [--shapes 1024x1024x1024,...]
    python -m aakaar.book.bench.gemm --sweep 64,256,1024 [--threads 1,2] [--json PATH]

With ``--sweep`` only the library's ``@`` and numpy's are timed, on square products of the given
sizes at each thread count (chapter 6b's size and thread sweep).

For each thread count and each shape (M x K x N, float32), every version of
the ladder (``aakaar._C.gemm``), the library's gemm and, when present, the
Tensor-level matmul are timed interleaved with ``numpy.matmul`` and
``torch.matmul`` on the same operands: round after round, each candidate runs
once, and the median of the rounds is reported. The slow lower rungs are
timed in a second interleaved group (with the references again), so that
they do not starve the fast ones of rounds; each ratio is within its group. Shared machines are noisy;
ratios from one interleaved run are what can be compared, absolute times
are not. Each result is checked against numpy before it is timed.

With more than one thread, idle thread pools that spin (OpenBLAS's for about
0.1 s after each call by default, PyTorch's libgomp's for milliseconds) keep
the cores the next library in the interleaved run needs: numpy's two-thread
figure can fall to a tenth of its one-thread one. So the program runs with
the references' spinning capped at about 0.1 ms, as aakaar's own pool spins
(``aakaar.book.bench.timing.SPIN_CAPS``; a value set in the environment is kept),
and each timed call follows one untimed call of the same candidate, during
which the others' threads fall asleep. The header prints the caps in effect.

The ceiling is the theoretical peak: clock x FMA width x 2 x cores, where
the clock is measured (boost included) and the FMA width (float32 lanes
finished per cycle) is the measured FMA throughput of one core divided by
twice the clock, rounded to a power of two.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import platform
import sys
import time

import numpy as np

from aakaar import _C

DEFAULT_SHAPES = "1024x1024x1024,256x784x256,64x784x256"
# Versions too slow to time at this many multiply-adds in a benchmark run.
SLOW = {"v0_naive": 2**27}


def set_threads(n: int) -> None:
    import aakaar

    setter = getattr(aakaar, "set_num_threads", None) or getattr(_C, "set_num_threads", None)
    if setter is None:
        raise RuntimeError("neither aakaar.set_num_threads nor aakaar._C.set_num_threads exists")
    setter(n)


def machine_info() -> dict:
    # Alternate the two probes, spread over about a second. Other work only
    # ever lowers a reading: preemption lowers the clock probe, a busy SMT
    # sibling on the host halves the FMA probe. So take the highest clock
    # reading that a second reading confirms (within 3%: a lone high reading is
    # a glitch of the timer) and the highest FMA reading.
    clocks, fmas = [], []
    for _ in range(5):  # each probe is already the best of 41 short trials
        clocks.append(_C.gemm.clock_ghz())
        fmas.append(_C.gemm.fma_peak_gflops())
        time.sleep(0.1)
    clocks = sorted(clocks, reverse=True)
    clock = next((c for c, d in zip(clocks, clocks[1:]) if d >= 0.97 * c), clocks[-1])
    fma = max(fmas)
    lanes = 2 ** round(math.log2(fma / (2 * clock))) if fma > 0 and clock > 0 else None
    busy = min(clocks) < 0.9 * clock or min(fmas) < 0.9 * fma
    info = {
        "cpu": platform.processor() or platform.machine(),
        "cores": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
        "clock_ghz_measured": round(clock, 3),
        "fma_gflops_one_core_measured": round(fma, 1),
        "fp32_fma_lanes_per_cycle": lanes,
        "probes_disagree": bool(busy),
        "avx2_fma": _C.gemm.has_avx2_fma(),
        "numpy": np.__version__,
        "env": {k: os.environ[k] for k in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE",
                                            "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
                                            "OPENBLAS_THREAD_TIMEOUT", "OMP_WAIT_POLICY", "GOMP_SPINCOUNT")
                if k in os.environ},
    }
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    info["cpu"] = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        from threadpoolctl import threadpool_info

        info["numpy_blas"] = [
            {k: p.get(k) for k in ("internal_api", "version", "architecture", "num_threads")}
            for p in threadpool_info() if p.get("user_api") == "blas"]
    except ImportError:
        info["numpy_blas"] = "threadpoolctl not installed: numpy's threads are not controlled"
    return info


def peak_gflops(info: dict, threads: int) -> float | None:
    lanes = info["fp32_fma_lanes_per_cycle"]
    if not lanes:
        return None
    return info["clock_ghz_measured"] * lanes * 2 * min(threads, info["cores"])


def copy_bandwidth(nbytes: int, repeat: int = 15) -> float:
    """GB/s read plus written by a numpy copy of ``nbytes`` bytes, the median of ``repeat`` copies.

    A roof of the roofline: an array larger than the last cache measures main memory, one that fits
    in L2 measures the caches."""
    src = np.ones(max(nbytes // 4, 1), np.float32)
    dst = np.empty_like(src)
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        np.copyto(dst, src)
        times.append(time.perf_counter() - t0)
    return 2 * src.nbytes / float(np.median(times)) / 1e9


def size_sweep(sizes, threads=(1,), rounds: int = 5, target_s: float = 0.02) -> dict:
    """The library's ``@`` and numpy's BLAS on n x n x n float32 products, timed interleaved.

    For each thread count both libraries are held to it (numpy through threadpoolctl, which must then
    be installed). Returns ``{"sizes": [...], "gflops": {"aakaar 2": [per size], "numpy 2": [...]}}``:
    the median of ``rounds`` samples of about ``target_s`` seconds each."""
    import aakaar

    from .timing import interleaved

    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        threadpool_limits = None
    if threadpool_limits is None and any(t != 1 for t in threads):
        raise RuntimeError("the sweep at more than one thread needs threadpoolctl to hold numpy's BLAS "
                           "to the thread count: pip install threadpoolctl")
    out = {"sizes": list(sizes), "gflops": {}}
    for t in threads:
        set_threads(t)
        limiter = threadpool_limits(t, user_api="blas") if threadpool_limits else None
        try:
            for n in sizes:
                a, b = aakaar.randn(n, n), aakaar.randn(n, n)
                an, bn = a.numpy(), b.numpy()
                if not np.allclose((a @ b).numpy(), an @ bn, rtol=1e-3, atol=1e-3 * math.sqrt(n)):
                    raise AssertionError(f"the library's @ gives a wrong product at {n}^3, {t} threads")
                med = interleaved({"aakaar": lambda: a @ b, "numpy": lambda: an @ bn},
                                  rounds=rounds, target_s=target_s, warmup=1)
                for lib, sec in med.items():
                    out["gflops"].setdefault(f"{lib} {t}", []).append(2 * n ** 3 / sec / 1e9)
        finally:
            if limiter is not None:
                limiter.restore_original_limits()
    return out


def tensor_matmul():
    """aakaar's Tensor-level matmul on numpy inputs, or None if the core lacks it."""
    import aakaar

    make = getattr(aakaar, "from_numpy", None) or getattr(aakaar, "tensor", None)
    if make is None:
        return None
    try:
        x = make(np.ones((2, 3), np.float32))
        y = make(np.ones((3, 2), np.float32))
        np.asarray(x @ y)
    except Exception:  # the core is not there yet: report it as missing
        return None
    return make


def candidates(a: np.ndarray, b: np.ndarray, torch, make_tensor) -> dict:
    macs = a.shape[0] * a.shape[1] * b.shape[1]
    fns, notes = {}, {}
    for v in _C.gemm.versions():
        if macs > SLOW.get(v, math.inf):
            notes[v] = f"skipped: too slow at {macs / 1e6:.0f}M multiply-adds"
            continue
        fns[v] = (lambda v=v: _C.gemm.run(v, a, b))
    fns["library gemm"] = lambda: _C.gemm.matmul(a, b)
    if make_tensor is not None:
        ta, tb = make_tensor(a), make_tensor(b)
        fns["library Tensor @"] = lambda: ta @ tb
    else:
        notes["library Tensor @"] = "not available in this build"
    fns["numpy"] = lambda: a @ b
    if torch is not None:
        xa, xb = torch.from_numpy(a), torch.from_numpy(b)
        fns["torch"] = lambda: torch.matmul(xa, xb)
    else:
        notes["torch"] = "torch not installed"
    return fns, notes


def warm_up(fns: dict) -> dict:
    """One call each (first touch of buffers, thread start-up); returns its time."""
    first = {}
    for name, fn in fns.items():
        t = time.perf_counter()
        fn()
        first[name] = time.perf_counter() - t
    return first


def time_interleaved(fns: dict, budget_s: float, est: dict) -> tuple[dict, int]:
    """Median seconds per call of each function, over rounds in which each runs once."""
    # Two calls per candidate and round: the settle, then the timed one.
    rounds = int(min(101, max(5, budget_s / max(2 * sum(est[n] for n in fns), 1e-6))))
    times = {name: [] for name in fns}
    names = list(fns)
    for r in range(rounds):
        for name in names[r % len(names):] + names[:r % len(names)]:  # rotate the order
            fns[name]()  # settle: the previous candidate's idle threads go to sleep meanwhile
            t = time.perf_counter()
            fns[name]()
            times[name].append(time.perf_counter() - t)
    return {name: float(np.median(ts)) for name, ts in times.items()}, rounds


REFERENCES = ("numpy", "torch")


def bench_shape(m, k, n, threads, info, torch, make_tensor, budget_s):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    fns, notes = candidates(a, b, torch, make_tensor)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    for name, fn in fns.items():  # a wrong answer is not a fast answer
        got = np.asarray(fn() if not name.startswith("torch") else fn().numpy(), np.float64)
        if not np.allclose(got, ref, rtol=1e-3, atol=1e-3 * math.sqrt(k)):
            raise AssertionError(f"{name} gives a wrong product at {m}x{k}x{n}")
    # Two interleaved groups, each with the references in it: the slow lower
    # rungs (over 4x numpy's time) would otherwise leave the fast ones only a
    # few rounds within the budget. Each ratio is taken within its group.
    est = warm_up(fns)
    refs = [r for r in REFERENCES if r in fns]
    slow = [x for x in fns if x not in refs and est[x] > 4 * est["numpy"]]
    fast = [x for x in fns if x not in refs and x not in slow]
    med, vs, rounds = {}, {}, {}
    for group, share in ((fast, 2 / 3), (slow, 1 / 3)):
        if not group:
            continue
        g_med, g_rounds = time_interleaved({x: fns[x] for x in group + refs}, budget_s * share, est)
        for x in group + (refs if group is fast else []):
            med[x], vs[x], rounds[x] = g_med[x], g_med, g_rounds
    flops = 2.0 * m * k * n
    peak = peak_gflops(info, threads)
    rows = []
    for name in fns:
        t = med[name]
        g = flops / t / 1e9
        rows.append({
            "name": name, "median_ms": t * 1e3, "gflops": g, "rounds": rounds[name],
            "share_of_peak": g / peak if peak else None,
            "vs_numpy": vs[name]["numpy"] / t,
            "vs_torch": vs[name]["torch"] / t if "torch" in vs[name] else None,
        })
    return {"m": m, "k": k, "n": n, "threads": threads, "peak_gflops": peak,
            "results": rows, "notes": notes}


def print_result(res: dict) -> None:
    peak = res["peak_gflops"]
    print(f"\n{res['m']}x{res['k']}x{res['n']} (M x K x N), float32, {res['threads']} thread(s)"
          + (f", peak {peak:.0f} GFLOP/s" if peak else ""))
    print(f"  {'version':<22}{'ms':>9}{'GFLOP/s':>10}{'of peak':>9}{'x numpy':>9}{'x torch':>9}"
          f"{'rounds':>8}")
    for r in res["results"]:
        share = f"{100 * r['share_of_peak']:.0f}%" if r["share_of_peak"] is not None else "-"
        vt = f"{r['vs_torch']:.2f}" if r["vs_torch"] is not None else "-"
        print(f"  {r['name']:<22}{r['median_ms']:>9.3f}{r['gflops']:>10.1f}{share:>9}"
              f"{r['vs_numpy']:>9.2f}{vt:>9}{r['rounds']:>8}")
    for name, note in res["notes"].items():
        print(f"  {name:<22}{note}")
    if peak and max(r["gflops"] for r in res["results"]) > peak:
        print("  (a rate above the peak: the probes were disturbed, the peak is underestimated)")


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(prog="python -m aakaar.book.bench.gemm", description=__doc__.split("\n")[0])
    p.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    p.add_argument("--threads", default="1,2", help="comma-separated thread counts (default 1,2)")
    p.add_argument("--shapes", default=DEFAULT_SHAPES, help="comma-separated MxKxN")
    p.add_argument("--budget", type=float, default=3.0,
                   help="seconds of timing per shape and thread count (default 3)")
    p.add_argument("--sweep", metavar="SIZES",
                   help="comma-separated n: time only the library's @ and numpy's on n x n x n products")
    args = p.parse_args(argv)
    threads = [int(t) for t in args.threads.split(",")]
    if args.sweep:
        return sweep_main([int(n) for n in args.sweep.split(",")], threads, args.json)
    try:
        import torch
    except ImportError:
        torch = None
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        threadpool_limits = None
    info = machine_info()
    if torch is not None:
        info["torch"] = torch.__version__
    make_tensor = tensor_matmul()
    print(f"{info['cpu']}: {info['cores']} cores, clock {info['clock_ghz_measured']:.2f} GHz "
          f"(measured), one core's FMAs {info['fma_gflops_one_core_measured']:.0f} GFLOP/s "
          f"= {info['fp32_fma_lanes_per_cycle']} float32 lanes x 2 flops per cycle")
    if info["probes_disagree"]:
        print("  (probe readings vary by over 10%: the machine is busy, the peak is uncertain)")
    print(f"numpy {np.__version__} BLAS: {info['numpy_blas']}")
    if info["env"]:
        print(f"environment: {info['env']} (thread spinning caps; OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE would "
              f"change numpy's kernel)")
    shapes = [tuple(int(x) for x in s.lower().split("x")) for s in args.shapes.split(",")]
    out = {"machine": info, "runs": []}
    for nthreads in threads:
        set_threads(nthreads)
        if torch is not None:
            torch.set_num_threads(nthreads)
        limiter = threadpool_limits(nthreads, user_api="blas") if threadpool_limits else None
        try:
            for m, k, n in shapes:
                res = bench_shape(m, k, n, nthreads, info, torch, make_tensor, args.budget)
                print_result(res)
                out["runs"].append(res)
        finally:
            if limiter is not None:
                limiter.restore_original_limits()
    if args.json:
        write_json(args.json, out)
    return out


def write_json(path: str, out: dict) -> None:
    """Writes ``out`` to ``path`` atomically (a reader never sees half a file)."""
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w") as f:
        json.dump(out, f, indent=1)
    os.replace(tmp, path)
    print(f"\nwrote {path}")


def sweep_main(sizes: list[int], threads: list[int], json_path: str | None) -> dict:
    from .timing import spin_caps_in_effect

    out = size_sweep(sizes, threads)
    out["spin_caps"] = spin_caps_in_effect()
    print(f"{'GFLOP/s':<12}" + "".join(f"{n:>9}" for n in sizes))
    for key, rates in out["gflops"].items():
        print(f"{key:<12}" + "".join(f"{r:9.1f}" for r in rates))
    if json_path:
        write_json(json_path, out)
    return out


if __name__ == "__main__":
    from aakaar.book.bench.timing import cap_idle_spinning

    cap_idle_spinning("aakaar.book.bench.gemm", sys.argv[1:])
    main()
