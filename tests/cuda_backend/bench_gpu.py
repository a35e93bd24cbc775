"""GPU benchmark of the CUDA backend (a program, not a test; run by gpu_check.sh).

Measures, in one run and interleaved (the machines are shared: ratios, not absolute
times, are what to read), medians of:
  * float32 GEMM 4096^3 through aakaar's matmul (the best rung of the GEMM ladder)
    against torch.mm with TF32 off (cuBLAS SGEMM), when torch with CUDA is installed;
  * elementwise add / exp and the sum reduction in GB/s against cudaMemcpy
    device-to-device on the same bytes (the bandwidth ceiling).
Prints one line per measurement and a JSON summary (--json PATH to save it).
"""
from __future__ import annotations

import argparse
import json
import statistics
import time

import aakaar


def timed(fn, reps: int) -> list[float]:
    out = []
    for _ in range(reps):
        aakaar.cuda.synchronize()
        t0 = time.perf_counter()
        fn()
        aakaar.cuda.synchronize()
        out.append(time.perf_counter() - t0)
    return out


def interleave(cases: dict, reps: int, rounds: int = 5) -> dict[str, float]:
    """Median seconds per case, the cases taking turns so that noise hits all alike."""
    times = {k: [] for k in cases}
    for fn in cases.values():  # warm up (and let the allocator cache its blocks)
        fn()
    for _ in range(rounds):
        for k, fn in cases.items():
            times[k] += timed(fn, reps)
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

            def torch_mm():
                torch.mm(ta, tb)
                torch.cuda.synchronize()

            cases["cublas"] = torch_mm
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
    for k in cases:
        print(f"{k:12s} {gbs[k]:8.0f} GB/s  {gbs[k] / gbs['memcpy']:6.1%} of device-to-device memcpy", flush=True)
    return {"gb_per_s": gbs, "share_of_memcpy": {k: gbs[k] / gbs["memcpy"] for k in gbs}}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--gemm", type=int, default=4096)
    ap.add_argument("--n", type=int, default=1 << 27, help="elements for the bandwidth tests")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--json")
    args = ap.parse_args()
    assert aakaar.cuda.is_available() and not aakaar.cuda.is_emulated(), "needs a real GPU build"
    print(f"device: {aakaar.cuda.get_device_name(0)}, cuda runtime {aakaar._C.cuda.runtime_version()}", flush=True)
    result = {"device": aakaar.cuda.get_device_name(0), "date": time.strftime("%Y-%m-%d")}
    result["gemm"] = bench_gemm(args.gemm, args.reps)
    result["bandwidth"] = bench_bandwidth(args.n, args.reps)
    print(json.dumps(result))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
