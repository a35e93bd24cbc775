"""GPU benchmark of the CUDA backend (a program, not a test; run by gpu_check.sh).

Measures, in one run and interleaved (the machines are shared: ratios, not absolute
times, are what to read), medians of batches of calls queued back to back (see timed()):
  * float32 GEMM 4096^3 through aakaar's matmul (the best rung of the GEMM ladder)
    against torch.mm with TF32 off (cuBLAS SGEMM), when torch with CUDA is installed;
  * elementwise add / exp and the sum reduction in GB/s against cudaMemcpy
    device-to-device on the same bytes (the bandwidth ceiling);
  * the fused kernels (optimizer steps, cross-entropy, MSE, CTC) against torch's (bench_fused);
  * conv2d (the implicit-GEMM kernel of csrc/cuda/conv_ops.cu) and max_pool2d, forward and
    backward, at the EMNIST CNN's shapes and at (32, 64, 56, 56) with 64 3x3 filters, against
    torch's (cuDNN, TF32 off) (bench_conv);
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


def _torch_cuda():
    try:
        import torch
    except ImportError:
        return None
    return torch if torch.cuda.is_available() else None


def bench_fused(reps: int, scale: int = 1) -> dict:
    """The fused kernels of csrc/cuda (optimizer_ops.cu, loss_ops.cu, ctc_ops.cu) against torch's
    on the same device: an Adam and an SGD-with-momentum step over a model's worth of parameters
    (torch's fused=True steps), cross-entropy, MSE and CTC, forward and backward. `scale` shrinks the sizes
    (the emulator tries the aakaar side with scale 64)."""
    import numpy as np

    import aakaar.nn.functional as F
    from aakaar import optim

    torch = _torch_cuda()
    rng = np.random.default_rng(0)
    out = {}

    def report(name: str, cases: dict) -> None:
        med = interleave(cases, reps)
        res = {"seconds": med}
        line = f"{name}: aakaar {med['aakaar'] * 1e6:.0f} us"
        if "torch" in med:
            res["ratio"] = med["aakaar"] / med["torch"]
            line += f", torch {med['torch'] * 1e6:.0f} us, ratio {res['ratio']:.2f}"
        print(line, flush=True)
        out[name] = res

    # A model's parameters: 40 tensors, 4M elements each over the scale, plus their biases.
    shapes = [(2048 // scale, 2048)] * 40 + [(2048,)] * 40
    arrays = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    for name, make, tmake in (("adam", lambda ps: optim.Adam(ps, lr=1e-3),
                               lambda ps: torch.optim.Adam(ps, lr=1e-3, fused=True)),
                              ("sgd_momentum", lambda ps: optim.SGD(ps, lr=1e-3, momentum=0.9),
                               lambda ps: torch.optim.SGD(ps, lr=1e-3, momentum=0.9, fused=True))):
        ps = [aakaar.tensor(a).to("cuda").requires_grad_() for a in arrays]
        for p in ps:
            p.grad = aakaar.ones_like(p)
        opt = make(ps)
        cases = {"aakaar": opt.step}
        if torch is not None:
            tps = [torch.tensor(a, device="cuda", requires_grad=True) for a in arrays]
            for p in tps:
                p.grad = torch.ones_like(p)
            cases["torch"] = tmake(tps).step
        report(f"optimizer {name}, {sum(a.size for a in arrays) / 1e6:.0f}M parameters", cases)

    N, C = 4096 // scale, 1000
    x_np, t_np = rng.standard_normal((N, C)).astype(np.float32), rng.integers(0, C, N)
    x, t = aakaar.tensor(x_np).to("cuda").requires_grad_(), aakaar.tensor(t_np).to("cuda")
    cases = {"aakaar": lambda: F.cross_entropy(x, t, label_smoothing=0.1).backward()}
    if torch is not None:
        tx = torch.tensor(x_np, device="cuda", requires_grad=True)
        tt = torch.tensor(t_np, device="cuda")
        cases["torch"] = lambda: torch.nn.functional.cross_entropy(tx, tt, label_smoothing=0.1).backward()
    report(f"cross_entropy {N}x{C} forward+backward", cases)

    n = (1 << 24) // scale
    a_np, b_np = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    a, b = aakaar.tensor(a_np).to("cuda").requires_grad_(), aakaar.tensor(b_np).to("cuda")
    cases = {"aakaar": lambda: F.mse_loss(a, b).backward()}
    if torch is not None:
        ta, tb = torch.tensor(a_np, device="cuda", requires_grad=True), torch.tensor(b_np, device="cuda")
        cases["torch"] = lambda: torch.nn.functional.mse_loss(ta, tb).backward()
    report(f"mse_loss {n} forward+backward", cases)

    T, B, K, S = 200 // min(scale, 10), 32 // min(scale, 8), 30, 40 // min(scale, 8)
    logits = rng.standard_normal((T, B, K))
    lp_np = (logits - np.log(np.exp(logits).sum(-1, keepdims=True))).astype(np.float32)
    tg_np = rng.integers(1, K, (B, S))
    lens_in, lens_tg = [T] * B, [S] * B
    lp, tg = aakaar.tensor(lp_np).to("cuda").requires_grad_(), aakaar.tensor(tg_np).to("cuda")
    cases = {"aakaar": lambda: F.ctc_loss(lp, tg, lens_in, lens_tg).backward()}
    if torch is not None:
        tlp = torch.tensor(lp_np, device="cuda", requires_grad=True)
        ttg = torch.tensor(tg_np, device="cuda")
        cases["torch"] = lambda: torch.nn.functional.ctc_loss(tlp, ttg, lens_in, lens_tg).backward()
    report(f"ctc_loss T={T} N={B} C={K} S={S} forward+backward", cases)
    return out


def bench_conv(reps: int, scale: int = 1) -> dict:
    """conv2d and max_pool2d forward + backward (float32) against torch's on the same device, at
    the shapes of aakaar.book.bench.conv; `scale` divides the batch (to try the aakaar side on
    the emulator)."""
    import numpy as np

    import aakaar.nn.functional as F

    torch = _torch_cuda()
    if torch is not None:
        torch.backends.cudnn.allow_tf32 = False
    rng = np.random.default_rng(0)
    problems = {
        "conv 64x1x28x28, 32 3x3": ((64, 1, 28, 28), (32, 1, 3, 3)),
        "conv 64x32x14x14, 64 3x3": ((64, 32, 14, 14), (64, 32, 3, 3)),
        "conv 32x64x56x56, 64 3x3": ((32, 64, 56, 56), (64, 64, 3, 3)),
        "maxpool 64x32x28x28, 2x2": ((64, 32, 28, 28), None),
    }
    out = {}
    for name, (xs, ws) in problems.items():
        xs = (max(1, xs[0] // scale),) + xs[1:]
        x_np = rng.standard_normal(xs).astype(np.float32)
        w_np = rng.standard_normal(ws).astype(np.float32) * 0.1 if ws else None

        def step(lib, x_np=x_np, w_np=w_np):
            """One forward + backward call of `lib` ("aakaar" or "torch"); the gradient's grad is a
            fixed tensor of ones made once, outside the timed call."""
            mod, fn = (aakaar, F) if lib == "aakaar" else (torch, torch.nn.functional)
            x = mod.tensor(x_np).to("cuda").requires_grad_()
            w = mod.tensor(w_np).to("cuda").requires_grad_() if w_np is not None else None

            def forward():
                return fn.conv2d(x, w, padding=1) if w is not None else fn.max_pool2d(x, 2)

            g = mod.ones_like(forward().detach())
            return lambda: forward().backward(g)

        cases = {"aakaar": step("aakaar")}
        if torch is not None:
            cases["torch"] = step("torch")
        med = interleave(cases, reps)
        res = {"seconds": med}
        line = f"{name} (batch {xs[0]}) forward+backward: aakaar {med['aakaar'] * 1e6:.0f} us"
        if "torch" in med:
            res["ratio"] = med["aakaar"] / med["torch"]
            line += f", torch (cuDNN) {med['torch'] * 1e6:.0f} us, ratio {res['ratio']:.2f}"
        print(line, flush=True)
        out[name] = res
    return out


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
    result["fused"] = bench_fused(args.reps)
    result["conv"] = bench_conv(args.reps)
    print(json.dumps(result))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
