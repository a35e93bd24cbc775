"""The EMNIST benchmark: aakaar against PyTorch at its best, trained on the same data in the same order.

    python -m aakaar.book.bench emnist [--model mlp|cnn] [--epochs 5] [--threads 1] [--optimizer sgd,adam] [--json PATH]

An MLP (784-256-128-47, ReLU) — or with ``--model cnn`` a small CNN (:data:`CNN`) — is trained for a
few epochs with batches of 64, by aakaar and by PyTorch with each of its optimizer implementations (the default for-loop, ``foreach`` and
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
from typing import Any, Callable, Sequence

import numpy as np

import aakaar as ak
from aakaar import nn
from aakaar.data import find_emnist
from aakaar.data.emnist import emnist_files, missing_emnist_message
from aakaar.data.idx import read_idx

from .io import write_json_atomic
from .timing import cap_idle_spinning, spin_caps_in_effect

SIZES = (784, 256, 128, 47)
MODELS = ("mlp", "cnn")
EVAL_CHUNK = 1000  # held-out images per forward pass of the CNN
# The CNN: two 3x3 convolutions (padding 1) with ReLU and 2x2 max pooling, 28 -> 14 -> 7, then two linear layers.
CNN = "conv 1-32 3x3 pad 1, ReLU, maxpool 2; conv 32-64 3x3 pad 1, ReLU, maxpool 2; flatten; linear 3136-128, ReLU; linear 128-47"
CNN_SHAPES = ((32, 1, 3, 3), (64, 32, 3, 3), (128, 64 * 7 * 7), (47, 128))  # the weights; each has a bias
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


def shown_path(folder: Path) -> str:
    """A folder as the report shows it: relative to the working directory when that is shorter (results
    committed to the repository name ``../shared/data/emnist``, not one machine's absolute path)."""
    try:
        rel = os.path.relpath(folder)
    except ValueError:  # another drive
        return str(folder)
    return rel if len(rel) < len(str(folder)) else str(folder)


def benchmark_data(data: str | None = None, split: str = "bymerge", train_size: int = 100_000, seed: int = 0,
                   synthetic_size: int = 24_000, held_out_size: int | None = None) -> BenchmarkData:
    """The benchmark's data and a plain description of where it came from (see the module docstring).
    ``held_out_size`` caps the held-out samples (a seeded draw; all of them when None): the CNN's
    evaluation after every epoch costs far more than the MLP's."""
    train_files, test_files = emnist_files(split, True), emnist_files(split, False)
    folder = find_emnist(train_files + test_files[:2], data)
    rng = np.random.default_rng(seed)
    if folder is not None:
        xtr, ytr = _read_split(folder, split, True)
        xte, yte = _read_split(folder, split, False)
        take = rng.permutation(len(xtr))[:min(train_size, len(xtr))]
        test = np.arange(len(xte)) if held_out_size is None else np.sort(rng.permutation(len(xte))[:held_out_size])
        tested = (f"its {len(xte):,} test samples" if len(test) == len(xte)
                  else f"{len(test):,} of its {len(xte):,} test samples (seeded draw)")
        return BenchmarkData(_flatten(xtr[take]), ytr[take], _flatten(xte[test]), yte[test], "emnist",
                             f"EMNIST {split} from {shown_path(folder)}: {len(take):,} of its {len(xtr):,} train samples "
                             f"(seeded draw, seed {seed}), tested on {tested}")
    folder = find_emnist(test_files[:2], data)
    if folder is not None:
        x, y = _read_split(folder, split, False)
        order = rng.permutation(len(x))
        n_train = min(train_size, len(x) - len(x) // 10)
        tr, te = order[:n_train], order[n_train:]
        if held_out_size is not None:
            te = te[:held_out_size]
        return BenchmarkData(_flatten(x[tr]), y[tr], _flatten(x[te]), y[te], "emnist",
                             f"EMNIST {split} test split from {shown_path(folder)} (its train files are not there): a seeded "
                             f"split (seed {seed}) of its {len(x):,} samples into {len(tr):,} train and {len(te):,} "
                             "held out")
    from .synthetic_glyphs import synthetic_glyphs

    n_test = synthetic_size // 6 if held_out_size is None else min(held_out_size, synthetic_size // 6)
    x, y = synthetic_glyphs(synthetic_size + n_test, seed)
    return BenchmarkData(_flatten(x[:synthetic_size]), y[:synthetic_size], _flatten(x[synthetic_size:]),
                         y[synthetic_size:], "synthetic",
                         f"SYNTHETIC data: {synthetic_size:,} train and {n_test:,} held-out glyphs drawn in "
                         f"matplotlib's fonts (seed {seed}), because "
                         + missing_emnist_message(test_files[:2], data).replace("EMNIST not found", "EMNIST was not found")
                         + " Accuracies on synthetic data say nothing about real handwriting.")


# ---- models and contestants ------------------------------------------------------------------


def weight_shapes(model: str = "mlp") -> list[tuple[int, ...]]:
    """The shape of each layer's weight, in order (every layer also has a bias of the weight's first size)."""
    if model not in MODELS:
        raise ValueError(f"model must be one of {MODELS}, got {model!r}")
    return [(o, i) for i, o in zip(SIZES[:-1], SIZES[1:])] if model == "mlp" else list(CNN_SHAPES)


def input_shape(model: str = "mlp") -> tuple[int, ...]:
    """One sample as the model takes it: 784 pixels in a row for the MLP, a 1x28x28 image for the CNN."""
    return (SIZES[0],) if model == "mlp" else (1, 28, 28)


def initial_weights(seed: int, model: str = "mlp") -> list[np.ndarray]:
    """W, b per layer, drawn once like nn.Linear's and nn.Conv2d's defaults (both U(+-1/sqrt(fan_in)), fan_in =
    in_features, or in_channels x kernel area) and copied into every model."""
    rng = np.random.default_rng(seed)
    out = []
    for shape in weight_shapes(model):
        bound = 1.0 / np.sqrt(np.prod(shape[1:]))
        out += [rng.uniform(-bound, bound, shape).astype(np.float32),
                rng.uniform(-bound, bound, shape[0]).astype(np.float32)]
    return out


def forward_flops_per_sample(model: str = "mlp") -> list[float]:
    """Each layer's forward flops for one sample, as the matrix product it is (a 3x3 convolution with padding 1
    is a GEMM of out_channels x (in_channels·9) by (in_channels·9) x (output pixels))."""
    if model == "mlp":
        return [2.0 * i * o for i, o in zip(SIZES[:-1], SIZES[1:])]
    pixels = (28 * 28, 14 * 14, 1, 1)  # the outputs of each layer (the linear layers: one "pixel")
    return [2.0 * float(np.prod(w)) * p for w, p in zip(CNN_SHAPES, pixels)]


@dataclass
class Contestant:
    """One library and optimizer variant: a model, its optimizer, and the data as that library's tensors."""
    name: str
    step: Callable[[Any], float]              # trains on one batch of indices; returns the loss
    accuracy: Callable[[], tuple[float, float]]  # (held-out accuracy, held-out mean loss)
    parameters: Callable[[], list[np.ndarray]]
    predict: Callable[[], np.ndarray]             # the predicted class of every held-out sample
    epoch_seconds: list[float] = field(default_factory=list)
    epoch_loss: list[float] = field(default_factory=list)
    epoch_accuracy: list[float] = field(default_factory=list)
    epoch_test_loss: list[float] = field(default_factory=list)


def _network(nn_module: Any, weights: list[np.ndarray], no_grad: Callable, from_numpy: Callable,
             model_name: str = "mlp") -> Any:
    """The MLP of SIZES with ReLUs, or the CNN, built from ``nn_module`` (aakaar.nn or torch.nn), holding
    ``weights``: the same code builds both libraries' models."""
    layers: list[Any] = []
    if model_name == "cnn":
        for out_ch, in_ch, k, _ in CNN_SHAPES[:2]:
            layers += [nn_module.Conv2d(in_ch, out_ch, k, padding=1), nn_module.ReLU(), nn_module.MaxPool2d(2)]
        layers.append(nn_module.Flatten())
        linear = [(i, o) for o, i in CNN_SHAPES[2:]]
    else:
        linear = list(zip(SIZES[:-1], SIZES[1:]))
    for i, (fan_in, fan_out) in enumerate(linear):
        layers.append(nn_module.Linear(fan_in, fan_out))
        if i < len(linear) - 1:
            layers.append(nn_module.ReLU())
    model = nn_module.Sequential(*layers)
    with no_grad():
        for p, w in zip(model.parameters(), weights):
            p.copy_(from_numpy(w))
    return model


def aakaar_contestant(d: BenchmarkData, weights: list[np.ndarray], optimizer: str, device: str = "cpu",
                      model_name: str = "mlp") -> Contestant:
    model = _network(nn, weights, ak.no_grad, ak.from_numpy, model_name).to(device)
    opt = {"sgd": ak.optim.SGD, "adam": ak.optim.Adam}[optimizer](model.parameters(), **OPTIMIZERS[optimizer])
    to_device = lambda a: ak.from_numpy(a).to(device)  # noqa: E731
    return _contestant(f"aakaar {optimizer}", model, opt, nn.functional.cross_entropy, to_device, ak.no_grad, d,
                       input_shape(model_name))


def torch_contestant(d: BenchmarkData, weights: list[np.ndarray], optimizer: str, variant: str,
                     device: str = "cpu", model_name: str = "mlp") -> Contestant:
    import torch

    model = _network(torch.nn, weights, torch.no_grad, torch.from_numpy, model_name).to(device)
    flags = {"default": {}, "foreach": {"foreach": True}, "fused": {"fused": True}}[variant]
    opt_cls = {"sgd": torch.optim.SGD, "adam": torch.optim.Adam}[optimizer]
    opt = opt_cls(model.parameters(), **OPTIMIZERS[optimizer], **flags)
    to_device = lambda a: torch.from_numpy(a).to(device)  # noqa: E731
    return _contestant(f"torch {optimizer} {variant}", model, opt, torch.nn.functional.cross_entropy,
                       to_device, torch.no_grad, d, input_shape(model_name))


def _contestant(name: str, model: Any, opt: Any, loss_fn: Callable, to_device: Callable, no_grad: Callable,
                d: BenchmarkData, shape: tuple[int, ...] = (SIZES[0],)) -> Contestant:
    """The training step and the held-out evaluation, written once: aakaar and PyTorch share every name used.
    ``shape`` is one sample's (the rows of pixels are reshaped to images for the CNN, without a copy). The
    CNN is evaluated in chunks: its first feature maps of all held-out images at once would take gigabytes."""
    chunk = len(d.x_test) if len(shape) == 1 else EVAL_CHUNK
    x, y = to_device(d.x_train.reshape(-1, *shape)), to_device(d.y_train)
    xt, yt = to_device(d.x_test.reshape(-1, *shape)), to_device(d.y_test)

    def step(idx: Any) -> float:
        opt.zero_grad()
        loss = loss_fn(model(x.index_select(0, idx)), y.index_select(0, idx))
        loss.backward()
        opt.step()
        return loss.item()

    def logits_of_chunks() -> Any:
        for i in range(0, len(d.x_test), chunk):
            yield model(xt[i:i + chunk]), yt[i:i + chunk]

    def accuracy() -> tuple[float, float]:
        correct, loss_sum = 0.0, 0.0
        with no_grad():
            for logits, labels in logits_of_chunks():
                correct += float((logits.argmax(dim=1) == labels).float().sum().item())
                loss_sum += float(loss_fn(logits, labels, reduction="sum").item())
        return correct / len(d.x_test), loss_sum / len(d.x_test)

    def predict() -> np.ndarray:
        with no_grad():
            return np.concatenate([logits.argmax(dim=1).cpu().numpy() for logits, _ in logits_of_chunks()])

    return Contestant(name, step, accuracy, lambda: [p.detach().cpu().numpy().copy() for p in model.parameters()],
                      predict)


# ---- the run -----------------------------------------------------------------------------------


def epoch_orders(n: int, batch: int, epochs: int, seed: int) -> list[list[np.ndarray]]:
    """The batches of every epoch: one seeded permutation per epoch, cut into batches (the last short one kept)."""
    rng = np.random.default_rng(seed + 1)
    return [[perm[i:i + batch] for i in range(0, n, batch)] for perm in (rng.permutation(n) for _ in range(epochs))]


def first_steps_agreement(d: BenchmarkData, weights: list[np.ndarray], optimizer: str, batches: list[np.ndarray],
                          steps: int, device: str = "cpu", model_name: str = "mlp") -> dict:
    """aakaar and PyTorch's default variant from the same weights over the same first batches: the largest
    relative loss difference per step, and the largest parameter difference after the last step."""
    import torch

    a = aakaar_contestant(d, weights, optimizer, device, model_name)
    t = torch_contestant(d, weights, optimizer, "default", device, model_name)
    worst = 0.0
    for idx in batches[:steps]:
        la, lt = a.step(ak.from_numpy(idx).to(device)), t.step(torch.from_numpy(idx).to(device))
        worst = max(worst, abs(la - lt) / max(abs(lt), 1e-12))
    diff = max(float(np.abs(pa - pt).max()) for pa, pt in zip(a.parameters(), t.parameters()))
    return {"steps": min(steps, len(batches)), "max_relative_loss_difference": worst, "max_parameter_difference": diff}


def check_device(device: str, torch: Any) -> None:
    """A device the run cannot use is said plainly, with what is there instead (no silent fallback)."""
    if device == "cpu":
        return
    if not ak.cuda.is_available():
        why = ("this build of aakaar has no CUDA backend" if not ak.cuda.is_built()
               else "aakaar sees no CUDA device (no GPU, or no driver)")
        raise SystemExit(f"--device cuda: {why}; run with --device cpu")
    if torch is not None and not torch.cuda.is_available():
        raise SystemExit(f"--device cuda: this PyTorch ({torch.__version__}) sees no CUDA device (a CPU build?); "
                         "install a CUDA build of torch, or run with --device cpu")


def _synchronize(device: str) -> None:
    if device != "cpu":
        ak.cuda.synchronize()
        import torch

        torch.cuda.synchronize()


def train_epochs(contestants: list[Contestant], orders: list[list[np.ndarray]], device: str, bar: Any = None) -> None:
    """Every contestant trains every epoch on the same batches; they take turns epoch by epoch, and the first in
    each turn rotates, so a busy moment of the machine does not fall on one of them."""
    indices: dict[str, list[list[Any]]] = {"aakaar": [[ak.from_numpy(b).to(device) for b in e] for e in orders]}
    if any(c.name.startswith("torch") for c in contestants):
        import torch

        indices["torch"] = [[torch.from_numpy(b).to(device) for b in e] for e in orders]
    for e in range(len(orders)):
        turn = contestants[e % len(contestants):] + contestants[:e % len(contestants)]
        for c in turn:
            batches = indices["aakaar" if c.name.startswith("aakaar") else "torch"][e]
            _synchronize(device)
            start = time.perf_counter()
            total = 0.0
            for idx in batches:
                total += c.step(idx)  # .item() waits for the step, on a GPU too
            c.epoch_seconds.append(time.perf_counter() - start)
            c.epoch_loss.append(total / len(batches))
            acc, test_loss = c.accuracy()
            c.epoch_accuracy.append(acc)
            c.epoch_test_loss.append(test_loss)
            if bar is not None:
                bar.set_postfix_str(f"{c.name}: {c.epoch_seconds[-1]:.1f} s, acc {acc:.2%}")
                bar.update(1)


def run(data: str | None = None, epochs: int = 5, batch: int = 64, threads: int | Sequence[int] = 1,
        optimizers=("sgd", "adam"), seed: int | Sequence[int] = 0, train_size: int = 100_000, check_steps: int = 300,
        progress: bool = True, synthetic_size: int = 24_000, profile: bool = False, device: str = "cpu",
        model: str = "mlp", note: str | None = None, held_out_size: int | None = None) -> dict:
    """The benchmark: for every thread count, seed and optimizer, aakaar and PyTorch's three variants train
    ``epochs`` epochs of ``model`` ("mlp" or "cnn") from the seed's initial weights on the seed's batch order
    (the data split is the first seed's). Returns everything measured (see :func:`write_outputs` for the files)."""
    weight_shapes(model)  # an unknown model is refused before anything runs
    try:
        import torch
    except ImportError:
        torch = None
        print("PyTorch is not installed: aakaar runs alone, and no ratio is reported "
              "(pip install -e '.[torch]' for the comparison)")
    check_device(device, torch)
    thread_counts = [threads] if isinstance(threads, int) else list(threads)
    seeds = [seed] if isinstance(seed, int) else list(seed)
    d = benchmark_data(data, train_size=train_size, seed=seeds[0], synthetic_size=synthetic_size,
                       held_out_size=held_out_size)
    print(f"data: {d.description}")
    results: dict[str, Any] = {"runs": [], "first_steps": {}, "profile": {}}
    bar = None
    if progress:
        from tqdm.auto import tqdm

        per_run = epochs * (4 if torch is not None else 1)
        bar = tqdm(total=len(thread_counts) * len(seeds) * len(optimizers) * per_run, desc="epochs", unit="epoch",
                   file=sys.stdout)
    for n_threads in thread_counts:
        ak.set_num_threads(n_threads)
        if torch is not None:
            torch.set_num_threads(n_threads)
        for s in seeds:
            weights = initial_weights(s, model)
            orders = epoch_orders(len(d.x_train), batch, epochs, s)
            run_record: dict[str, Any] = {"threads": n_threads, "seed": s, "optimizers": {}}
            for optimizer in optimizers:
                if torch is not None and optimizer not in results["first_steps"]:
                    agreement = first_steps_agreement(d, weights, optimizer, orders[0], check_steps, device, model)
                    results["first_steps"][optimizer] = agreement
                    print(f"{optimizer}: over the first {agreement['steps']} steps the losses of aakaar and torch "
                          f"agree to {agreement['max_relative_loss_difference']:.1e} (relative); the parameters "
                          f"after them to {agreement['max_parameter_difference']:.1e}")
                contestants = [aakaar_contestant(d, weights, optimizer, device, model)]
                if torch is not None:
                    contestants += [torch_contestant(d, weights, optimizer, v, device, model)
                                    for v in ("default", "foreach", "fused")]
                if bar is not None:
                    bar.set_description(f"{n_threads} thread(s), seed {s}, {optimizer}")
                train_epochs(contestants, orders, device, bar)
                run_record["optimizers"][optimizer] = summarise(contestants)
                if profile and optimizer not in results["profile"] and n_threads == thread_counts[0]:
                    results["profile"][optimizer] = _profile_aakaar(d, weights, optimizer, orders[0], device, model)
            results["runs"].append(run_record)
    if bar is not None:
        bar.close()
    results["summary"] = summarise_runs(results["runs"], thread_counts, optimizers)
    results.update({
        "data": {"source": d.source, "description": d.description, "train": len(d.x_train), "held_out": len(d.x_test)},
        "config": {"epochs": epochs, "batch": batch, "threads": thread_counts, "seeds": seeds,
                   "model": model, **({"sizes": list(SIZES)} if model == "mlp" else {"layers": CNN}),
                   "device": device, "optimizers": {k: OPTIMIZERS[k] for k in optimizers}},
        "machine": {"platform": platform.platform(), "processor": platform.processor() or platform.machine(),
                    "aakaar_kernels": ak._C.cpu_isa(), "torch": getattr(torch, "__version__", None),
                    "cuda_device": ak.cuda.get_device_name(0) if device != "cpu" else None,
                    "spin_caps": spin_caps_in_effect()},
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "command": " ".join(["python -m aakaar.book.bench emnist", *sys.argv[1:]]),
    })
    if note:
        results["note"] = note
    print(report(results))
    return results


def _profile_aakaar(d: BenchmarkData, weights: list[np.ndarray], optimizer: str, batches: list[np.ndarray],
                    device: str, model: str = "mlp") -> dict:
    """One more epoch of aakaar, untimed by the benchmark, under the profiler (see emnist_profile)."""
    from .emnist_profile import layer_matmul_flops, profile_epoch

    c = aakaar_contestant(d, weights, optimizer, device, model)
    idx = [ak.from_numpy(b).to(device) for b in batches]

    def epoch() -> None:
        for i in idx:
            c.step(i)

    return profile_epoch(epoch, layer_matmul_flops(forward_flops_per_sample(model), len(d.x_train)))


def summarise(contestants: list[Contestant]) -> dict:
    """One run of one optimizer: every contestant's epochs, and aakaar's time against the fastest PyTorch."""
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


def summarise_runs(runs: list[dict], thread_counts: Sequence[int], optimizers: Sequence[str]) -> dict:
    """Per thread count and optimizer, over the seeds: each contestant's total time (median) and final accuracy
    (mean and standard deviation), and aakaar's time over the fastest PyTorch variant (median and range)."""
    out: dict[str, Any] = {}
    for n in thread_counts:
        for optimizer in optimizers:
            summaries = [r["optimizers"][optimizer] for r in runs if r["threads"] == n]
            names = list(summaries[0]["contestants"])
            rec: dict[str, Any] = {"seeds": len(summaries), "contestants": {}}
            for name in names:
                totals = [s["contestants"][name]["total_seconds"] for s in summaries]
                accs = [s["contestants"][name]["epoch_accuracy"][-1] for s in summaries]
                rec["contestants"][name] = {
                    "total_seconds_median": float(np.median(totals)),
                    "accuracy_mean": float(np.mean(accs)), "accuracy_std": float(np.std(accs)),
                    "accuracies": accs}
            if "best_torch" in summaries[0]:
                torch_names = [x for x in names if x.startswith("torch")]
                best = min(torch_names, key=lambda x: rec["contestants"][x]["total_seconds_median"])
                ratios = [s["contestants"][names[0]]["total_seconds"] / s["contestants"][best]["total_seconds"]
                          for s in summaries]
                epoch_ratios = np.concatenate([np.array(s["contestants"][names[0]]["epoch_seconds"])
                                               / np.array(s["contestants"][best]["epoch_seconds"]) for s in summaries])
                rec.update({"best_torch": best, "ratio_total_median": float(np.median(ratios)),
                            "ratio_total_range": [float(min(ratios)), float(max(ratios))],
                            "ratio_per_epoch": {"median": float(np.median(epoch_ratios)),
                                                "q25": float(np.quantile(epoch_ratios, 0.25)),
                                                "q75": float(np.quantile(epoch_ratios, 0.75))}})
            out[f"{n} thread{'s' if n > 1 else ''}/{optimizer}"] = rec
    return out


def table(key: str, rec: dict) -> str:
    """A markdown table of one thread count and optimizer over the seeds."""
    seeds = rec["seeds"]
    acc_head = f"final accuracy (mean ± sd of {seeds} seeds)" if seeds > 1 else "final accuracy"
    rows = [f"| {key} | total s (median) | {acc_head} |", "|---|---:|---:|"]
    for name, r in rec["contestants"].items():
        acc = f"{r['accuracy_mean']:.2%}" + (f" ± {r['accuracy_std']:.2%}" if seeds > 1 else "")
        rows.append(f"| {name} | {r['total_seconds_median']:.2f} | {acc} |")
    if "best_torch" in rec:
        lo, hi = rec["ratio_total_range"]
        q = rec["ratio_per_epoch"]
        rows.append(f"\naakaar / fastest PyTorch ({rec['best_torch']}): {rec['ratio_total_median']:.2f} in total"
                    + (f" (median of {seeds} seeds, from {lo:.2f} to {hi:.2f})" if seeds > 1 else "")
                    + f"; per epoch median {q['median']:.2f} (quartiles {q['q25']:.2f}-{q['q75']:.2f})")
    return "\n".join(rows)


def model_description(config: dict) -> str:
    """The trained model in words, from a run's config (runs before the CNN existed have no "model": an MLP)."""
    if config.get("model", "mlp") == "cnn":
        return f"CNN ({config['layers']})"
    return f"MLP {'-'.join(map(str, config['sizes']))}"


def report(results: dict) -> str:
    """The markdown report: the data, the tables, the first steps' agreement and the profile."""
    from .emnist_profile import profile_table

    label = " (SYNTHETIC data)" if results["data"]["source"] == "synthetic" else ""
    cfg = results["config"]
    md = [f"# EMNIST benchmark{label}", "", results["data"]["description"], "",
          f"{results['date']}, {results['machine']['processor']}, device {cfg['device']}, "
          f"{cfg['epochs']} epochs of batches of {cfg['batch']}, {model_description(cfg)}, "
          f"command: `{results['command']}`", ""]
    if results.get("note"):
        md += [f"Note: {results['note']}", ""]
    for optimizer, a in results["first_steps"].items():
        md.append(f"{optimizer}: over the first {a['steps']} steps the losses of aakaar and PyTorch agree to "
                  f"{a['max_relative_loss_difference']:.1e} (relative), the parameters after them to "
                  f"{a['max_parameter_difference']:.1e}.")
    md.append("")
    for key, rec in results["summary"].items():
        md += [table(key, rec), ""]
    for optimizer, p in results["profile"].items():
        md += [f"## Where aakaar's time goes: one epoch with {optimizer}", "", profile_table(p), ""]
    return "\n".join(md)


def write_outputs(results: dict, json_path: str) -> list[str]:
    """The JSON, a markdown file beside it and a PNG plot; each written to a temporary file and renamed."""
    write_json_atomic(json_path, results)
    base = os.path.splitext(json_path)[0]
    tmp = base + ".md.tmp"
    Path(tmp).write_text(report(results) + "\n")
    os.replace(tmp, base + ".md")
    written = [json_path, base + ".md"]
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no plot written")
        return written
    fig = plot_run(results)
    tmp = base + ".tmp.png"
    fig.savefig(tmp, dpi=90)
    plt.close(fig)
    os.replace(tmp, base + ".png")
    return written + [base + ".png"]


def plot_run(results: dict, run_index: int = 0) -> Any:
    """Loss and accuracy per epoch for every contestant, and seconds per epoch, of one run (thread count, seed)."""
    import matplotlib.pyplot as plt

    label = " (SYNTHETIC data)" if results["data"]["source"] == "synthetic" else ""
    run_record = results["runs"][run_index]
    opts = list(run_record["optimizers"])
    fig, axes = plt.subplots(len(opts), 3, figsize=(12, 3.2 * len(opts)), squeeze=False)
    for row, optimizer in zip(axes, opts):
        contestants = run_record["optimizers"][optimizer]["contestants"]
        for name, r in contestants.items():
            epochs = np.arange(1, len(r["epoch_seconds"]) + 1)
            row[0].plot(epochs, r["epoch_train_loss"], marker="o", label=name)
            row[1].plot(epochs, r["epoch_accuracy"], marker="o", label=name)
        names = list(contestants)
        row[2].bar(range(len(names)), [np.median(contestants[n]["epoch_seconds"]) for n in names])
        row[2].set_xticks(range(len(names)), [n.replace(" ", "\n", 1) for n in names], fontsize=7)
        where = f"{run_record['threads']} thread(s), seed {run_record['seed']}"
        row[0].set_title(f"{optimizer}: train loss per epoch{label}", fontsize=9)
        row[1].set_title(f"{optimizer}: held-out accuracy{label}", fontsize=9)
        row[2].set_title(f"{optimizer}: seconds per epoch (median), {where}", fontsize=9)
        row[0].set_xlabel("epoch", fontsize=8)
        row[1].set_xlabel("epoch", fontsize=8)
        row[0].legend(fontsize=7)
    fig.tight_layout()
    return fig


def _int_list(text: str) -> list[int]:
    """'1' or '1,2' or '0-4' -> a list of non-negative ints (argparse type)."""
    out: list[int] = []
    try:
        for part in text.split(","):
            lo, _, hi = part.partition("-")
            out += list(range(int(lo), int(hi) + 1)) if hi else [int(lo)]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected numbers like 1 or 1,2 or 0-4, got {text!r}") from None
    if not out or min(out) < 0:
        raise argparse.ArgumentTypeError(f"expected non-negative numbers, got {text!r}")
    return list(dict.fromkeys(out))


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m aakaar.book.bench emnist", description=__doc__.split("\n\n")[0])
    p.add_argument("--data", help="folder with the EMNIST files (default: AAKAAR_DATA, the cache, ../shared/data/emnist)")
    p.add_argument("--model", choices=MODELS, default="mlp",
                   help=f"the MLP {'-'.join(map(str, SIZES))}, or the CNN ({CNN})")
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--threads", type=_int_list, default=[1], help="thread counts, e.g. 1 or 1,2 (each measured)")
    p.add_argument("--optimizer", default="sgd,adam", help="comma-separated: sgd, adam")
    p.add_argument("--train-size", type=int, default=100_000, help="train samples (a seeded draw)")
    p.add_argument("--held-out", type=int, default=None,
                   help="held-out samples evaluated after each epoch (a seeded draw; default: all of them)")
    p.add_argument("--synthetic-size", type=int, default=24_000,
                   help="train samples of the synthetic stand-in, used only when no EMNIST is found")
    p.add_argument("--seed", type=_int_list, default=[0],
                   help="seeds of the initial weights and batch order, e.g. 0 or 0-4 (accuracy mean and spread over "
                        "them; the data split is the first one's)")
    p.add_argument("--check-steps", type=int, default=300, help="steps whose losses are compared with PyTorch's")
    p.add_argument("--profile", action="store_true",
                   help="after the timed runs, profile one epoch of aakaar per optimizer: kernels, chapters, GEMM floor")
    p.add_argument("--device", choices=("cpu", "cuda"), default="cpu", help="train on the CPU or a CUDA GPU")
    p.add_argument("--note", help="a caveat saved with the results and shown in the report (e.g. the machine's load)")
    p.add_argument("--json", default="artifacts/bench-emnist.json", help="where to write the results (and .md, .png)")
    p.add_argument("--no-progress", action="store_true")
    args = p.parse_args(argv)
    optimizers = tuple(o.strip() for o in args.optimizer.split(",") if o.strip())
    bad = [o for o in optimizers if o not in OPTIMIZERS]
    if bad or not optimizers:
        p.error(f"--optimizer: unknown {bad or optimizers}; choose from {', '.join(OPTIMIZERS)}")
    if args.held_out is not None and args.held_out < 1:
        p.error("--held-out must be at least 1")
    for name in ("epochs", "batch", "train_size", "synthetic_size"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be at least 1")
    if min(args.threads) < 1:
        p.error("--threads must be at least 1")
    if max(args.threads) > 1:
        # PyTorch's OpenMP threads spin for a while after each op, keeping the cores aakaar needs next.
        cap_idle_spinning("aakaar.book.bench.emnist_benchmark", sys.argv[1:] if argv is None else argv)
    results = run(args.data, args.epochs, args.batch, args.threads, optimizers, args.seed, args.train_size,
                  args.check_steps, not args.no_progress, args.synthetic_size, args.profile, args.device, args.model,
                  args.note, args.held_out)
    print("wrote", ", ".join(write_outputs(results, args.json)))


if __name__ == "__main__":
    main()
