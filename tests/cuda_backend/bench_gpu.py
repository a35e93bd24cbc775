"""GPU benchmark of the CUDA backend (a program, not a test; run by gpu_check.sh).

Measures, in one run and interleaved (the machines are shared: ratios, not absolute
times, are what to read), medians of batches of calls queued back to back (see timed()):
  * float32 GEMM 4096^3 through aakaar's matmul (the best rung of the GEMM ladder)
    against torch.mm with TF32 off (cuBLAS SGEMM), when torch with CUDA is installed;
  * elementwise add / exp and the sum reduction in GB/s against cudaMemcpy
    device-to-device on the same bytes (the bandwidth ceiling);
  * the EMNIST-shaped training step of aakaar.book.bench.train_step (784-256-128-47 MLP,
    cross-entropy, SGD with momentum; random batches) on the device, against torch's
    best SGD on the same device, after checking that both follow the same losses.
Prints one line per measurement and a JSON summary (--json PATH to save it).
"""
from __future__ import annotations

import argparse
import json
import statistics
import time

import aakaar


def timed(fn, reps: int) -> float:
    """Seconds per call of `reps` calls queued back to back, as a program issues them: the
    host's work for one call (Python, argument checks, the launch) overlaps the device's
    work on the one before, so what is measured is the device's throughput, for aakaar and
    the references alike. (Timing each call between two synchronisations instead adds the
    host's work to every call; on an H200 that changed the 0.5 GiB sum by about 1 point.)"""
    aakaar.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(reps):
        fn()
    aakaar.cuda.synchronize()
    return (time.perf_counter() - t0) / reps


def interleave(cases: dict, reps: int, rounds: int = 7) -> dict[str, float]:
    """Median seconds per call of each case over `rounds` batches, the cases taking turns so
    that noise hits all alike."""
    times = {k: [] for k in cases}
    for fn in cases.values():  # warm up (and let the allocator cache its blocks)
        fn()
    for _ in range(rounds):
        for k, fn in cases.items():
            times[k].append(timed(fn, reps))
    return {k: statistics.median(v) for k, v in times.items()}


def bench_gemm(n: int, reps: int) -> dict:
    a = aakaar.randn(n, n, device="cuda")
    b = aakaar.randn(n, n, device="cuda")
    cases = {"aakaar": lambda: a @ b}
    try:
        import torch

        if torch.cuda.is_available():
            torch.backends.cuda.matmul.allow_tf32 = False
            ta = torch.randn(n, n, device="cuda")
            tb = torch.randn(n, n, device="cuda")
            cases["cublas"] = lambda: torch.mm(ta, tb)  # synchronize() waits for torch's work too
    except ImportError:
        pass
    med = interleave(cases, reps)
    flops = 2.0 * n**3
    res = {k: flops / t / 1e9 for k, t in med.items()}
    line = f"GEMM fp32 {n}^3: aakaar {res['aakaar']:.0f} GFLOP/s"
    if "cublas" in res:
        res["ratio"] = res["aakaar"] / res["cublas"]
        line += f", cuBLAS (torch.mm, TF32 off) {res['cublas']:.0f} GFLOP/s, ratio {res['ratio']:.1%}"
    else:
        line += " (no torch with CUDA here: cuBLAS not measured)"
    print(line, flush=True)
    return {"gflops": res}


def bench_bandwidth(n: int, reps: int) -> dict:
    x = aakaar.randn(n, device="cuda")
    y = aakaar.randn(n, device="cuda")
    out = aakaar.empty(n, device="cuda")
    cases = {
        "memcpy": lambda: aakaar._C.cuda._memcpy(out, x),
        "add": lambda: x + y,
        "exp": lambda: x.exp(),
        "copy_kernel": lambda: out.copy_(y),
        "sum": lambda: x.sum(),
    }
    bytes_moved = {"memcpy": 8 * n, "add": 12 * n, "exp": 8 * n, "copy_kernel": 8 * n, "sum": 4 * n}
    med = interleave(cases, reps)
    gbs = {k: bytes_moved[k] / t / 1e9 for k, t in med.items()}
    print(f"bandwidth, {n} float32 elements per tensor ({n * 4 / 2**30:.2f} GiB):")
    for k in cases:
        print(f"  {k:12s} {gbs[k]:8.0f} GB/s  {gbs[k] / gbs['memcpy']:6.1%} of device-to-device memcpy", flush=True)
    return {"n": n, "gb_per_s": gbs, "share_of_memcpy": {k: gbs[k] / gbs["memcpy"] for k in gbs}}


def bench_train_step(batch: int, reps: int) -> dict:
    from aakaar.book.bench import train_step as ts

    batches, _ = ts.load_batches(batch, "random")
    weights = ts.init_weights()
    steps = {"aakaar": ts.AakaarTrainer(weights, batches, device="cuda").step}
    variant = None
    if ts.torch is not None and ts.torch.cuda.is_available():
        ts.torch.backends.cuda.matmul.allow_tf32 = False
        th = ts.TorchTrainer(weights, batches, device="cuda")
        variant = th.variant
        steps["torch"] = th.step
        ts.check_trajectories(steps, steps=5)  # raises when the losses part
    med = interleave(steps, reps)
    line = f"train step {'-'.join(map(str, ts.SIZES))}, batch {batch}: aakaar {med['aakaar'] * 1e6:.0f} us"
    res = {"batch": batch, "seconds": med}
    if variant:
        res["torch_optimizer"], res["ratio"] = variant, med["aakaar"] / med["torch"]
        line += f", torch {variant} {med['torch'] * 1e6:.0f} us, ratio {res['ratio']:.2f}"
    print(line, flush=True)
    return res


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--gemm", type=int, default=4096)
    ap.add_argument("--n", type=int, nargs="+", default=[1 << 27, 1 << 28],
                    help="float32 elements of each tensor in the bandwidth tests (default 0.5 and 1 GiB)")
    ap.add_argument("--reps", type=int, default=10, help="calls queued per timed batch")
    ap.add_argument("--json")
    args = ap.parse_args()
    assert aakaar.cuda.is_available() and not aakaar.cuda.is_emulated(), "needs a real GPU build"
    print(f"device: {aakaar.cuda.get_device_name(0)}, cuda runtime {aakaar._C.cuda.runtime_version()}", flush=True)
    result = {"device": aakaar.cuda.get_device_name(0), "date": time.strftime("%Y-%m-%d")}
    result["gemm"] = bench_gemm(args.gemm, args.reps)
    result["bandwidth"] = [bench_bandwidth(n, args.reps) for n in args.n]
    result["train_step"] = [bench_train_step(batch, args.reps) for batch in (64, 1024)]
    print(json.dumps(result))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
