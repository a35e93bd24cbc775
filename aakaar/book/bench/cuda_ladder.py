"""The CUDA kernel ladders (GEMM v1-v7, sum v1-v2), measured and saved as the JSON chapter 9 reads.

    python -m aakaar.book.bench.cuda_ladder                      # on the CUDA emulator (CPU)
    python -m aakaar.book.bench.cuda_ladder --compiler nvcc --arch 90   # on a GPU (same sources, nvcc)

Each run is appended to ``book/data/cuda-ladder.json`` (``--out``) with its date, device and
backend. Emulator runs are labelled "emulator (CPU), not GPU performance": they show what
each rung costs when every thread is a fiber on a CPU core, which says nothing about how
fast a GPU runs it. A GPU run also records cuBLAS SGEMM (torch.mm with TF32 off) and the
device-to-device copy bandwidth, measured in the same run, when torch with CUDA is
installed; the chapter then reports each rung's share of them.
"""
from __future__ import annotations

import argparse
import datetime
import json
import platform
import statistics
import time
from pathlib import Path

from .. import cuda_emu
from .io import write_json_atomic

EMULATOR_LABEL = "emulator (CPU), not GPU performance"
DEFAULT_OUT = Path(__file__).resolve().parents[3] / "book" / "data" / "cuda-ladder.json"


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def torch_references(n: int, nbytes: int, reps: int) -> dict:
    """cuBLAS SGEMM at n^3 and device-to-device copy bandwidth, through torch (GPU runs only)."""
    try:
        import torch
    except ImportError:
        return {"cublas_gflops": None, "copy_gb_per_s": None, "why": "torch is not installed"}
    if not torch.cuda.is_available():
        return {"cublas_gflops": None, "copy_gb_per_s": None, "why": "torch sees no GPU"}
    torch.backends.cuda.matmul.allow_tf32 = False  # plain FP32 SGEMM, as our kernels do

    def median_s(fn):
        fn()
        times = []
        for _ in range(reps):
            torch.cuda.synchronize(); t0 = time.perf_counter(); fn(); torch.cuda.synchronize()
            times.append(time.perf_counter() - t0)
        return statistics.median(times)

    a, b = torch.randn(n, n, device="cuda"), torch.randn(n, n, device="cuda")
    src = torch.empty(nbytes // 4, device="cuda"); dst = torch.empty_like(src)
    return {"cublas_gflops": 2 * n ** 3 / median_s(lambda: a @ b) / 1e9,
            "copy_gb_per_s": 2 * nbytes / median_s(lambda: dst.copy_(src)) / 1e9}


def measure(gemm_n: int, sum_n: int, reps: int, compiler: str = "host", arch: str = "80",
            threads: int | None = None) -> dict:
    """One run of both ladders; the driver checks every rung against a CPU reference."""
    kw = {"compiler": compiler, "gpu_arch": arch}
    gemm = cuda_emu.run("book_kernels", "gemm", gemm_n, gemm_n, gemm_n, reps, threads=threads, timeout=1800, **kw)
    total = cuda_emu.run("book_kernels", "sum", sum_n, reps, threads=threads, timeout=1800, **kw)
    on_gpu = gemm["backend"] == "gpu"
    run = {
        "date": datetime.date.today().isoformat(),
        "backend": gemm["backend"],
        "label": "GPU" if on_gpu else EMULATOR_LABEL,
        "device": gemm.get("device") if on_gpu else f"{cpu_name()} ({gemm['os_threads']} OS threads)",
        "gemm": {"m": gemm["m"], "n": gemm["n"], "k": gemm["k"], "checked_rows": gemm["checked_rows"],
                 "versions": gemm["versions"]},
        "sum": {"n": total["n"], "versions": total["versions"]},
    }
    if on_gpu:
        run["references"] = torch_references(gemm_n, sum_n * 4, reps)
    bad = [v["name"] for v in gemm["versions"] if v["max_rel_err"] > 1e-4]
    if bad:
        raise RuntimeError(f"GEMM rungs {bad} disagree with the CPU reference: not recording this run")
    return run


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m aakaar.book.bench.cuda_ladder", description=__doc__.split("\n")[0])
    p.add_argument("--gemm", type=int, default=None, help="n of the n^3 GEMM (default 256 emulated, 4096 on a GPU)")
    p.add_argument("--sum", type=int, default=None, help="elements summed (default 4M emulated, 256M on a GPU)")
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--threads", type=int, default=None, help="emulator OS threads (AAKAAR_EMU_THREADS)")
    p.add_argument("--compiler", default="host", help="'host' (the emulator) or 'nvcc' (a GPU)")
    p.add_argument("--arch", default="80", help="GPU architecture for nvcc, e.g. 80 or 90")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT)
    p.add_argument("--dry-run", action="store_true", help="print the run, do not save it")
    args = p.parse_args(argv)
    gpu = args.compiler != "host"
    run = measure(args.gemm or (4096 if gpu else 256), args.sum or ((1 << 28) if gpu else 1 << 22), args.reps,
                  args.compiler, args.arch, args.threads)
    print(json.dumps(run, indent=1))
    if not args.dry_run:
        data = json.loads(args.out.read_text()) if args.out.exists() else {"runs": []}
        data["runs"].append(run)
        write_json_atomic(str(args.out), data, indent=1)  # the runs already saved are never at risk
        print(f"appended to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
