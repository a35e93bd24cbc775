"""``python -m aakaar.book.bench NAME [options]``: run one of the benchmark programs by name.

The same programs run as modules (``python -m aakaar.book.bench.gemm``); ``aakaar-bench`` is this
entry point as a console script.
"""
from __future__ import annotations

import importlib
import sys

PROGRAMS = {
    "emnist": ("emnist_benchmark", "train an MLP (or --model cnn) on EMNIST: aakaar against PyTorch's default, foreach and fused"),
    "train_step": ("train_step", "one EMNIST-shaped training step against PyTorch's fused SGD"),
    "optim_step": ("optim_step", "one optimizer step over an MLP's parameters against PyTorch's three variants"),
    "conv": ("conv", "conv2d and max_pool2d forward and backward at a small EMNIST CNN's shapes against PyTorch"),
    "losses": ("losses", "fused losses (cross-entropy, BCE-with-logits, MSE) against PyTorch"),
    "gemm": ("gemm", "the CPU GEMM ladder against OpenBLAS and PyTorch"),
    "ops": ("ops", "per-op overhead and throughput against PyTorch and numpy"),
    "mlp": ("mlp", "MLP forward and backward against PyTorch"),
}


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] not in PROGRAMS:
        listing = "\n".join(f"  {name:11} {what}" for name, (_, what) in PROGRAMS.items())
        print(f"usage: python -m aakaar.book.bench NAME [options]   (or: aakaar-bench NAME)\n\n{listing}",
              file=sys.stderr)
        raise SystemExit(0 if argv[:1] in (["-h"], ["--help"]) else 2)
    module = importlib.import_module(f"aakaar.book.bench.{PROGRAMS[argv[0]][0]}")
    sys.argv = [f"aakaar-bench {argv[0]}", *argv[1:]]
    module.main(argv[1:])


if __name__ == "__main__":
    main()
