"""The EMNIST benchmark: aakaar against PyTorch at its best, trained on the same data in the same order.

    python -m aakaar.book.bench emnist [--epochs 5] [--threads 1] [--optimizer sgd,adam] [--json PATH]

An MLP (784-256-128-47, ReLU) is trained for a few epochs with batches of 64, by aakaar and by
PyTorch with each of its optimizer implementations (the default for-loop, ``foreach`` and
``fused``), from the same initial weights (drawn once, copied into every model), on the same
batches in the same order (one seeded permutation per epoch, handed to everyone). The contestants
take turns epoch by epoch, and the first in each turn rotates, so a busy moment of the machine
does not fall on one of them. Each epoch's time includes fetching its batches.

Reported: time per epoch and in total, held-out accuracy and mean loss per epoch, how far the
first steps' losses and parameters agree, and the ratio of aakaar's time to the best PyTorch
variant's (median and spread over epochs). Written as JSON, a markdown table and a plot.

Data (:func:`benchmark_data`): the official files of the chosen split when its train and test
files are there; else the EMNIST ByMerge test split (the files in ``../shared`` of a development
checkout), carved into a seeded train and held-out part; else a synthetic stand-in, labelled
synthetic in every line and file. Which one, from where and how it was split is printed and saved.
"""
from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

import numpy as np

import aakaar as ak
from aakaar import nn
from aakaar.data import find_emnist
from aakaar.data.emnist import emnist_files, missing_emnist_message
from aakaar.data.idx import read_idx

from .io import write_json_atomic

SIZES = (784, 256, 128, 47)
OPTIMIZERS = {"sgd": {"lr": 0.01, "momentum": 0.9}, "adam": {"lr": 1e-3}}


# ---- data ----------------------------------------------------------------------------------


@dataclass
class BenchmarkData:
    x_train: np.ndarray  # (n, 784) float32 in [0, 1]
    y_train: np.ndarray  # (n,) int64
    x_test: np.ndarray
    y_test: np.ndarray
    source: str          # "emnist" or "synthetic"
    description: str     # which files, how split, how many samples: printed and saved


def _flatten(images: np.ndarray) -> np.ndarray:
    return (images.reshape(len(images), -1).astype(np.float32) / 255.0)


def _read_split(folder: Path, split: str, train: bool) -> tuple[np.ndarray, np.ndarray]:
    images_file, labels_file, _ = emnist_files(split, train)
    images = read_idx(folder / images_file, expect_ndim=3).transpose(0, 2, 1)  # the official files are transposed
    return images, read_idx(folder / labels_file, expect_ndim=1).astype(np.int64)


def benchmark_data(data: str | None = None, split: str = "bymerge", train_size: int = 100_000, seed: int = 0,
                   synthetic_size: int = 24_000) -> BenchmarkData:
    """The benchmark's data and a plain description of where it came from (see the module docstring)."""
    train_files, test_files = emnist_files(split, True), emnist_files(split, False)
    folder = find_emnist(train_files + test_files[:2], data)
    rng = np.random.default_rng(seed)
    if folder is not None:
        xtr, ytr = _read_split(folder, split, True)
        xte, yte = _read_split(folder, split, False)
        take = rng.permutation(len(xtr))[:min(train_size, len(xtr))]
        return BenchmarkData(_flatten(xtr[take]), ytr[take], _flatten(xte), yte, "emnist",
                             f"EMNIST {split} from {folder}: {len(take):,} of its {len(xtr):,} train samples "
                             f"(seeded draw, seed {seed}), tested on its {len(xte):,} test samples")
    folder = find_emnist(test_files[:2], data)
    if folder is not None:
        x, y = _read_split(folder, split, False)
        order = rng.permutation(len(x))
        n_train = min(train_size, len(x) - len(x) // 10)
        tr, te = order[:n_train], order[n_train:]
        return BenchmarkData(_flatten(x[tr]), y[tr], _flatten(x[te]), y[te], "emnist",
                             f"EMNIST {split} test split from {folder} (its train files are not there): a seeded "
                             f"split (seed {seed}) of its {len(x):,} samples into {len(tr):,} train and {len(te):,} "
                             "held out")
    from .synthetic_glyphs import synthetic_glyphs

    n_test = synthetic_size // 6
    x, y = synthetic_glyphs(synthetic_size + n_test, seed)
    return BenchmarkData(_flatten(x[:synthetic_size]), y[:synthetic_size], _flatten(x[synthetic_size:]),
                         y[synthetic_size:], "synthetic",
                         f"SYNTHETIC data: {synthetic_size:,} train and {n_test:,} held-out glyphs drawn in "
                         f"matplotlib's fonts (seed {seed}), because "
                         + missing_emnist_message(test_files[:2], data).replace("EMNIST not found", "EMNIST was not found")
                         + " Accuracies on synthetic data say nothing about real handwriting.")


# ---- models and contestants ------------------------------------------------------------------


def initial_weights(seed: int) -> list[np.ndarray]:
    """W, b per layer, drawn once like nn.Linear's default (U(+-1/sqrt(fan_in))) and copied into every model."""
    rng = np.random.default_rng(seed)
    out = []
    for fan_in, fan_out in zip(SIZES[:-1], SIZES[1:]):
        bound = 1.0 / np.sqrt(fan_in)
        out += [rng.uniform(-bound, bound, (fan_out, fan_in)).astype(np.float32),
                rng.uniform(-bound, bound, fan_out).astype(np.float32)]
    return out


@dataclass
class Contestant:
    """One library and optimizer variant: a model, its optimizer, and the data as that library's tensors."""
    name: str
    step: Callable[[Any], float]              # trains on one batch of indices; returns the loss
    accuracy: Callable[[], tuple[float, float]]  # (held-out accuracy, held-out mean loss)
    parameters: Callable[[], list[np.ndarray]]
    epoch_seconds: list[float] = field(default_factory=list)
    epoch_loss: list[float] = field(default_factory=list)
    epoch_accuracy: list[float] = field(default_factory=list)
    epoch_test_loss: list[float] = field(default_factory=list)


def aakaar_contestant(d: BenchmarkData, weights: list[np.ndarray], optimizer: str) -> Contestant:
    layers: list[nn.Module] = []
    for i, (fan_in, fan_out) in enumerate(zip(SIZES[:-1], SIZES[1:])):
        layers.append(nn.Linear(fan_in, fan_out))
        if i < len(SIZES) - 2:
            layers.append(nn.ReLU())
    model = nn.Sequential(*layers)
    with ak.no_grad():
        for p, w in zip(model.parameters(), weights):
            p.copy_(ak.from_numpy(w))
    opt_cls = {"sgd": ak.optim.SGD, "adam": ak.optim.Adam}[optimizer]
    opt = opt_cls(model.parameters(), **OPTIMIZERS[optimizer])
    x, y = ak.from_numpy(d.x_train), ak.from_numpy(d.y_train)
    xt, yt = ak.from_numpy(d.x_test), ak.from_numpy(d.y_test)
    loss_fn = nn.functional.cross_entropy

    def step(idx: ak.Tensor) -> float:
        opt.zero_grad()
        loss = loss_fn(model(x.index_select(0, idx)), y.index_select(0, idx))
        loss.backward()
        opt.step()
        return loss.item()

    def accuracy() -> tuple[float, float]:
        with ak.no_grad():
            logits = model(xt)
            return float((logits.argmax(dim=1) == yt).float().mean().item()), float(loss_fn(logits, yt).item())

    return Contestant(f"aakaar {optimizer}", step, accuracy,
                      lambda: [p.detach().numpy().copy() for p in model.parameters()])


def torch_contestant(d: BenchmarkData, weights: list[np.ndarray], optimizer: str, variant: str) -> Contestant:
    import torch

    layers: list[Any] = []
    for i, (fan_in, fan_out) in enumerate(zip(SIZES[:-1], SIZES[1:])):
        layers.append(torch.nn.Linear(fan_in, fan_out))
        if i < len(SIZES) - 2:
            layers.append(torch.nn.ReLU())
    model = torch.nn.Sequential(*layers)
    with torch.no_grad():
        for p, w in zip(model.parameters(), weights):
            p.copy_(torch.from_numpy(w))
    flags = {"default": {}, "foreach": {"foreach": True}, "fused": {"fused": True}}[variant]
    opt_cls = {"sgd": torch.optim.SGD, "adam": torch.optim.Adam}[optimizer]
    opt = opt_cls(model.parameters(), **OPTIMIZERS[optimizer], **flags)
    x, y = torch.from_numpy(d.x_train), torch.from_numpy(d.y_train)
    xt, yt = torch.from_numpy(d.x_test), torch.from_numpy(d.y_test)
    loss_fn = torch.nn.functional.cross_entropy

    def step(idx: Any) -> float:
        opt.zero_grad()
        loss = loss_fn(model(x.index_select(0, idx)), y.index_select(0, idx))
        loss.backward()
        opt.step()
        return loss.item()

    def accuracy() -> tuple[float, float]:
        with torch.no_grad():
            logits = model(xt)
            return float((logits.argmax(dim=1) == yt).float().mean().item()), float(loss_fn(logits, yt).item())

    return Contestant(f"torch {optimizer} {variant}", step, accuracy,
                      lambda: [p.detach().numpy().copy() for p in model.parameters()])


# ---- the run -----------------------------------------------------------------------------------


def epoch_orders(n: int, batch: int, epochs: int, seed: int) -> list[list[np.ndarray]]:
    """The batches of every epoch: one seeded permutation per epoch, cut into batches (the last short one kept)."""
    rng = np.random.default_rng(seed + 1)
    return [[perm[i:i + batch] for i in range(0, n, batch)] for perm in (rng.permutation(n) for _ in range(epochs))]


def first_steps_agreement(d: BenchmarkData, weights: list[np.ndarray], optimizer: str, batches: list[np.ndarray],
                          steps: int) -> dict:
    """aakaar and PyTorch's default variant from the same weights over the same first batches: the largest
    relative loss difference per step, and the largest parameter difference after the last step."""
    import torch

    a = aakaar_contestant(d, weights, optimizer)
    t = torch_contestant(d, weights, optimizer, "default")
    worst = 0.0
    for idx in batches[:steps]:
        la, lt = a.step(ak.from_numpy(idx)), t.step(torch.from_numpy(idx))
        worst = max(worst, abs(la - lt) / max(abs(lt), 1e-12))
    diff = max(float(np.abs(pa - pt).max()) for pa, pt in zip(a.parameters(), t.parameters()))
    return {"steps": min(steps, len(batches)), "max_relative_loss_difference": worst, "max_parameter_difference": diff}


def run(data: str | None = None, epochs: int = 5, batch: int = 64, threads: int = 1, optimizers=("sgd", "adam"),
        seed: int = 0, train_size: int = 100_000, check_steps: int = 300, progress: bool = True) -> dict:
    try:
        import torch
    except ImportError:
        torch = None
        print("PyTorch is not installed: aakaar runs alone, and no ratio is reported "
              "(pip install -e '.[torch]' for the comparison)")
    ak.set_num_threads(threads)
    if torch is not None:
        torch.set_num_threads(threads)
    d = benchmark_data(data, train_size=train_size, seed=seed)
    print(f"data: {d.description}")
    weights = initial_weights(seed)
    orders = epoch_orders(len(d.x_train), batch, epochs, seed)
    results: dict[str, Any] = {"optimizers": {}}
    for optimizer in optimizers:
        contestants = [aakaar_contestant(d, weights, optimizer)]
        if torch is not None:
            contestants += [torch_contestant(d, weights, optimizer, v) for v in ("default", "foreach", "fused")]
            agreement = first_steps_agreement(d, weights, optimizer, orders[0], check_steps)
            print(f"{optimizer}: over the first {agreement['steps']} steps the losses of aakaar and torch agree to "
                  f"{agreement['max_relative_loss_difference']:.1e} (relative); the parameters after them to "
                  f"{agreement['max_parameter_difference']:.1e}")
        else:
            agreement = None
        indices = {"aakaar": [[ak.from_numpy(b) for b in e] for e in orders]}
        if torch is not None:
            indices["torch"] = [[torch.from_numpy(b) for b in e] for e in orders]
        bar = None
        if progress:
            from tqdm.auto import tqdm

            bar = tqdm(total=epochs * len(contestants), desc=f"{optimizer}: epochs", unit="epoch", file=sys.stdout)
        for e in range(epochs):
            turn = contestants[e % len(contestants):] + contestants[:e % len(contestants)]
            for c in turn:
                batches = indices["aakaar" if c.name.startswith("aakaar") else "torch"][e]
                start = time.perf_counter()
                total = 0.0
                for idx in batches:
                    total += c.step(idx)
                c.epoch_seconds.append(time.perf_counter() - start)
                c.epoch_loss.append(total / len(batches))
                acc, test_loss = c.accuracy()
                c.epoch_accuracy.append(acc)
                c.epoch_test_loss.append(test_loss)
                if bar is not None:
                    bar.set_postfix_str(f"{c.name}: {c.epoch_seconds[-1]:.1f} s, acc {acc:.2%}")
                    bar.update(1)
        if bar is not None:
            bar.close()
        summary = summarise(contestants)
        summary["first_steps"] = agreement
        results["optimizers"][optimizer] = summary
        print(table(optimizer, summary))
    results.update({
        "data": {"source": d.source, "description": d.description, "train": len(d.x_train), "held_out": len(d.x_test)},
        "config": {"epochs": epochs, "batch": batch, "threads": threads, "seed": seed, "sizes": list(SIZES),
                   "optimizers": {k: OPTIMIZERS[k] for k in optimizers}},
        "machine": {"platform": platform.platform(), "processor": platform.processor() or platform.machine(),
                    "aakaar_kernels": ak._C.cpu_isa(), "torch": getattr(torch, "__version__", None)},
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "command": " ".join(["python -m aakaar.book.bench emnist", *sys.argv[1:]]),
    })
    return results


def summarise(contestants: list[Contestant]) -> dict:
    out: dict[str, Any] = {"contestants": {}}
    for c in contestants:
        out["contestants"][c.name] = {"epoch_seconds": c.epoch_seconds, "total_seconds": sum(c.epoch_seconds),
                                      "epoch_train_loss": c.epoch_loss, "epoch_accuracy": c.epoch_accuracy,
                                      "epoch_test_loss": c.epoch_test_loss}
    torches = [c for c in contestants if c.name.startswith("torch")]
    if torches:
        best = min(torches, key=lambda c: sum(c.epoch_seconds))
        ours = contestants[0]
        ratios = np.array(ours.epoch_seconds) / np.array(best.epoch_seconds)
        out["best_torch"] = best.name
        out["ratio_total"] = sum(ours.epoch_seconds) / sum(best.epoch_seconds)
        out["ratio_per_epoch"] = {"median": float(np.median(ratios)), "min": float(ratios.min()),
                                  "max": float(ratios.max())}
    return out


def table(optimizer: str, summary: dict) -> str:
    """A markdown table of one optimizer's results."""
    rows = [f"| {optimizer} | total s | s / epoch (median) | final accuracy | final held-out loss |",
            "|---|---:|---:|---:|---:|"]
    for name, r in summary["contestants"].items():
        rows.append(f"| {name} | {r['total_seconds']:.1f} | {np.median(r['epoch_seconds']):.2f} | "
                    f"{r['epoch_accuracy'][-1]:.2%} | {r['epoch_test_loss'][-1]:.4f} |")
    if "best_torch" in summary:
        q = summary["ratio_per_epoch"]
        rows.append(f"\naakaar / best PyTorch ({summary['best_torch']}): {summary['ratio_total']:.2f} in total; "
                    f"per epoch median {q['median']:.2f} (from {q['min']:.2f} to {q['max']:.2f})")
    return "\n".join(rows)


def write_outputs(results: dict, json_path: str) -> list[str]:
    """The JSON, a markdown file beside it and a PNG plot; each written to a temporary file and renamed."""
    write_json_atomic(json_path, results)
    base = os.path.splitext(json_path)[0]
    label = " (SYNTHETIC data)" if results["data"]["source"] == "synthetic" else ""
    md = [f"# EMNIST benchmark{label}", "", results["data"]["description"], "",
          f"{results['date']}, {results['machine']['processor']}, {results['config']['threads']} thread(s), "
          f"command: `{results['command']}`", ""]
    for optimizer, summary in results["optimizers"].items():
        md += [table(optimizer, summary), ""]
    tmp = base + ".md.tmp"
    Path(tmp).write_text("\n".join(md) + "\n")
    os.replace(tmp, base + ".md")
    written = [json_path, base + ".md"]
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no plot written")
        return written
    opts = list(results["optimizers"])
    fig, axes = plt.subplots(len(opts), 3, figsize=(12, 3.2 * len(opts)), squeeze=False)
    for row, optimizer in zip(axes, opts):
        contestants = results["optimizers"][optimizer]["contestants"]
        for name, r in contestants.items():
            epochs = np.arange(1, len(r["epoch_seconds"]) + 1)
            row[0].plot(epochs, r["epoch_train_loss"], marker="o", label=name)
            row[1].plot(epochs, r["epoch_accuracy"], marker="o", label=name)
        names = list(contestants)
        row[2].bar(range(len(names)), [np.median(contestants[n]["epoch_seconds"]) for n in names])
        row[2].set_xticks(range(len(names)), [n.replace(" ", "\n", 1) for n in names], fontsize=7)
        row[0].set_title(f"{optimizer}: train loss per epoch{label}", fontsize=9)
        row[1].set_title(f"{optimizer}: held-out accuracy{label}", fontsize=9)
        row[2].set_title(f"{optimizer}: seconds per epoch (median)", fontsize=9)
        row[0].legend(fontsize=7)
    fig.tight_layout()
    tmp = base + ".tmp.png"
    fig.savefig(tmp, dpi=90)
    plt.close(fig)
    os.replace(tmp, base + ".png")
    return written + [base + ".png"]


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m aakaar.book.bench emnist", description=__doc__.split("\n\n")[0])
    p.add_argument("--data", help="folder with the EMNIST files (default: AAKAAR_DATA, the cache, ../shared/data/emnist)")
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--optimizer", default="sgd,adam", help="comma-separated: sgd, adam")
    p.add_argument("--train-size", type=int, default=100_000, help="train samples (a seeded draw)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--check-steps", type=int, default=300, help="steps whose losses are compared with PyTorch's")
    p.add_argument("--json", default="artifacts/bench-emnist.json", help="where to write the results (and .md, .png)")
    p.add_argument("--no-progress", action="store_true")
    args = p.parse_args(argv)
    optimizers = tuple(o.strip() for o in args.optimizer.split(",") if o.strip())
    bad = [o for o in optimizers if o not in OPTIMIZERS]
    if bad or not optimizers:
        p.error(f"--optimizer: unknown {bad or optimizers}; choose from {', '.join(OPTIMIZERS)}")
    for name in ("epochs", "batch", "threads", "train_size"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be at least 1")
    results = run(args.data, args.epochs, args.batch, args.threads, optimizers, args.seed, args.train_size,
                  args.check_steps, not args.no_progress)
    print("wrote", ", ".join(write_outputs(results, args.json)))


if __name__ == "__main__":
    main()
