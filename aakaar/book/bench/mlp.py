"""Forward + backward of the book's MLP (784-256-128-47, ReLU, cross-entropy), aakaar
against PyTorch, measured in the same run, interleaved, medians.

    python -m aakaar.book.bench.mlp [--threads 1] [--batch 64] [--rounds 21] [--json PATH]

Both libraries get the same weights (copied through numpy) and the same batch;
the losses and gradients are compared before anything is timed, because a
fast wrong answer is no result. One timed call is ``zero_grad(set_to_none)``,
forward, loss, backward — the part of a training step the optimizer does not
own. A ratio below 1.0 means aakaar is faster.
"""

from __future__ import annotations

import argparse
import platform
from typing import Callable

import numpy as np

import aakaar as ak
import aakaar.nn as nn
import aakaar.nn.functional as F
from aakaar.book.bench.timing import interleaved

try:
    import torch
except ImportError:  # pragma: no cover - the reference is the torch extra
    torch = None

SIZES = (784, 256, 128, 47)  # EMNIST-balanced: 28x28 pixels in, 47 classes out


def _aakaar_step(weights: list[np.ndarray], x: np.ndarray, y: np.ndarray) -> tuple[Callable[[], object], nn.Module]:
    layers: list[nn.Module] = []
    for i, (fan_in, fan_out) in enumerate(zip(SIZES[:-1], SIZES[1:])):
        layers.append(nn.Linear(fan_in, fan_out))
        if i < len(SIZES) - 2:
            layers.append(nn.ReLU())
    model = nn.Sequential(*layers)
    with ak.no_grad():
        for p, w in zip(model.parameters(), weights):
            p.copy_(ak.from_numpy(w))
    xa, ya = ak.from_numpy(x), ak.from_numpy(y)

    def step() -> object:
        model.zero_grad()
        loss = F.cross_entropy(model(xa), ya)
        loss.backward()
        return loss

    return step, model


def _torch_step(weights: list[np.ndarray], x: np.ndarray, y: np.ndarray) -> tuple[Callable[[], object], object]:
    layers = []
    for i, (fan_in, fan_out) in enumerate(zip(SIZES[:-1], SIZES[1:])):
        layers.append(torch.nn.Linear(fan_in, fan_out))
        if i < len(SIZES) - 2:
            layers.append(torch.nn.ReLU())
    model = torch.nn.Sequential(*layers)
    with torch.no_grad():
        for p, w in zip(model.parameters(), weights):
            p.copy_(torch.from_numpy(w))
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)

    def step() -> object:
        model.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(model(xt), yt)
        loss.backward()
        return loss

    return step, model


def _inputs(batch: int, seed: int = 0) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    weights = []
    for fan_in, fan_out in zip(SIZES[:-1], SIZES[1:]):
        bound = 1.0 / np.sqrt(fan_in)
        weights.append(rng.uniform(-bound, bound, (fan_out, fan_in)).astype(np.float32))
        weights.append(rng.uniform(-bound, bound, fan_out).astype(np.float32))
    x = rng.random((batch, SIZES[0]), dtype=np.float32)
    y = rng.integers(0, SIZES[-1], batch).astype(np.int64)
    return weights, x, y


def run(threads: int = 1, batch: int = 64, rounds: int = 21) -> dict:
    """Checks that both libraries agree, then times them; returns the record."""
    if torch is None:
        raise SystemExit("aakaar.book.bench.mlp needs PyTorch as the reference: pip install torch==2.13.0")
    ak.set_num_threads(threads)
    torch.set_num_threads(threads)
    weights, x, y = _inputs(batch)
    ak_step, ak_model = _aakaar_step(weights, x, y)
    th_step, th_model = _torch_step(weights, x, y)

    loss_ak, loss_th = float(ak_step().item()), float(th_step().item())
    np.testing.assert_allclose(loss_ak, loss_th, rtol=1e-5)
    grad_err = max(
        float(np.max(np.abs(pa.grad.numpy() - pt.grad.numpy())) / (np.max(np.abs(pt.grad.numpy())) + 1e-30))
        for pa, pt in zip(ak_model.parameters(), th_model.parameters())
    )
    if grad_err > 1e-4:
        raise AssertionError(f"aakaar and torch gradients differ (max relative {grad_err:.2e}); not timing")

    times = interleaved({"aakaar": ak_step, "torch": th_step}, rounds=rounds)
    return {
        "model": "-".join(map(str, SIZES)), "batch": batch, "threads": threads, "dtype": "float32",
        "seconds": times, "ratio_vs_torch": times["aakaar"] / times["torch"],
        "max_rel_grad_diff": grad_err, "rounds": rounds,
    }


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--threads", type=int, default=1, help="threads for both libraries (default 1: stable)")
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--rounds", type=int, default=21)
    p.add_argument("--json", help="write the result here (atomically)")
    args = p.parse_args(argv)
    if args.threads < 1 or args.batch < 1 or args.rounds < 1:
        p.error("--threads, --batch and --rounds must be positive")
    rec = run(args.threads, args.batch, args.rounds)
    print(f"aakaar.book.bench.mlp: {platform.processor() or platform.machine()}, threads={args.threads}, "
          f"kernels={ak._C.cpu_isa()}, torch {torch.__version__}")
    s = rec["seconds"]
    print(f"MLP {rec['model']}, batch {rec['batch']}, float32, forward+backward (cross-entropy):")
    print(f"  aakaar {s['aakaar'] * 1e6:9.1f} us   torch {s['torch'] * 1e6:9.1f} us   "
          f"ratio aakaar/torch {rec['ratio_vs_torch']:.2f}   (gradients agree to {rec['max_rel_grad_diff']:.1e})")
    if args.json:
        from aakaar.book.bench.io import write_json_atomic

        write_json_atomic(args.json, rec)


if __name__ == "__main__":
    main()
