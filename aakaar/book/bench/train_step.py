"""One EMNIST-shaped training step, aakaar against PyTorch's best SGD, in the same run.

    python -m aakaar.book.bench.train_step [--threads 1 | --threads 1,2] [--batch 64] [--rounds 301] [--ablate] [--json PATH]

The model is the book's MLP (784-256-128-47, ReLU, float32). One timed step is
what a training loop does per batch: drop the gradients, forward, cross-entropy,
backward, and an SGD-with-momentum update (momentum 0.9). aakaar's update is
``aakaar.optim.SGD(momentum=0.9)``: one fused multi-tensor kernel call that
reads each parameter, gradient and momentum buffer once and writes the
parameter and buffer once; PyTorch gets ``torch.optim.SGD(fused=True)`` when its
CPU build has it, else ``foreach=True``.

Both start from the same weights (copied through numpy) and see the same
batches in the same order. Before anything is timed, both train a few steps and
their loss trajectories must agree: a fast wrong answer is no result. Then the
steps are timed interleaved (aakaar, torch, aakaar, ...) and the medians are
compared. A ratio below 1.0 means aakaar is faster. Each timed sample follows a
few untimed steps of the same library (``--warmup``), so both are measured in the
steady state of a training loop, not just after the other evicted their data from
the caches (that switch costs PyTorch far more: with ``--warmup 0`` its step looks
about 60% slower on our machine and the ratio flatters aakaar).

With ``--threads 2`` the idle threads of PyTorch's OpenMP pool would keep
spinning into aakaar's turn; the program runs with that spinning capped at
about 0.1 ms, as aakaar's own pool spins (see ``aakaar.book.bench.timing``), and
the untimed steps before each sample let it end.

``--threads 1,2`` measures both libraries at each thread count in one interleaved
run (each sample first sets its library's thread count, during the untimed steps)
and also reports each library at its fastest thread count: PyTorch at its best
against aakaar at its best, as well as the same-thread ratios.

``--ablate`` adds aakaar variants to the same interleaved run, to show what each
fast path is worth: the layers as separate matmul/add/relu ops (no fused
Linear), the loss as ``nll_loss(log_softmax(x))`` (no fused cross-entropy), the
caching allocator switched off, the update written by hand with in-place ops (the
two-pass moving-average form, and torch's three-pass foreach form), and
small elementwise loops kept on one thread while the pool's workers are awake (with
more than one thread).
"""

from __future__ import annotations

import argparse
import gzip
import platform
import sys
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

import aakaar as ak
import aakaar.nn as nn
import aakaar.nn.functional as F
import aakaar.optim as optim
from aakaar import _C
from aakaar.data import emnist
from aakaar.book.bench.timing import interleaved, spin_caps_in_effect

try:
    import torch
except ImportError:  # pragma: no cover - the reference is the torch extra
    torch = None

SIZES = (784, 256, 128, 47)  # 28x28 pixels in, the 47 EMNIST Balanced/ByMerge classes out
LR, MOMENTUM = 0.05, 0.9
N_BATCHES = 16  # the steps cycle through this many batches
# The EMNIST ByMerge test split, found as aakaar.data.emnist says (AAKAAR_DATA, the cache, then ../shared).
EMNIST_IMAGES, EMNIST_LABELS = emnist.emnist_files("bymerge", False)[:2]
EMNIST_DIR = emnist.find_emnist((EMNIST_IMAGES, EMNIST_LABELS))  # None when absent: then said, and random data used


# ---- data and weights ----------------------------------------------------------------------


def _read_idx(path: Path, header: int, count: int, item: int) -> np.ndarray:
    with gzip.open(path, "rb") as f:
        raw = f.read(header + count * item)
    return np.frombuffer(raw, dtype=np.uint8, offset=header, count=count * item)


def load_batches(batch: int, data: str | None = None) -> tuple[list[tuple[np.ndarray, np.ndarray]], str]:
    """N_BATCHES batches (x float32 (batch, 784) in [0, 1], y int64) and a line saying where they came from.

    ``data``: a folder with the EMNIST files, None to look for them (aakaar.data.emnist), or
    "random". When no files are found, random data of the same shape is used and a message on
    stderr says so and how to get the real files.
    """
    n = batch * N_BATCHES
    folder = None if data == "random" else emnist.find_emnist((EMNIST_IMAGES, EMNIST_LABELS), data)
    if folder is not None:
        x = _read_idx(folder / EMNIST_IMAGES, 16, n, 784).reshape(n, 28, 28)
        # EMNIST stores each image transposed; transpose it back (as MNIST is laid out).
        x = np.ascontiguousarray(x.transpose(0, 2, 1)).reshape(n, 784).astype(np.float32) / 255.0
        y = _read_idx(folder / EMNIST_LABELS, 8, n, 1).astype(np.int64)
        where = f"the first {n} images of {EMNIST_IMAGES} (the ByMerge test split, 47 classes), no shuffling"
    else:
        rng = np.random.default_rng(1)
        x = rng.random((n, 784), dtype=np.float32)
        y = rng.integers(0, SIZES[-1], n).astype(np.int64)
        where = f"{n} random images and labels (seed 1)"
        if data != "random":
            used = f"{n} random 28x28 images and labels"
            print(emnist.missing_emnist_message((EMNIST_IMAGES, EMNIST_LABELS), data, used_instead=used),
                  file=sys.stderr)
            where = "EMNIST not found (see the message above): " + where
    batches = [(x[i * batch:(i + 1) * batch], y[i * batch:(i + 1) * batch]) for i in range(N_BATCHES)]
    return batches, f"{where}, in {N_BATCHES} batches of {batch}"


def init_weights(seed: int = 0) -> list[np.ndarray]:
    """W, b per layer, drawn like nn.Linear's default (U(+-1/sqrt(fan_in)))."""
    rng = np.random.default_rng(seed)
    weights = []
    for fan_in, fan_out in zip(SIZES[:-1], SIZES[1:]):
        bound = 1.0 / np.sqrt(fan_in)
        weights.append(rng.uniform(-bound, bound, (fan_out, fan_in)).astype(np.float32))
        weights.append(rng.uniform(-bound, bound, fan_out).astype(np.float32))
    return weights


# ---- aakaar --------------------------------------------------------------------------------


def _mlp() -> nn.Sequential:
    layers: list[nn.Module] = []
    for i, (fan_in, fan_out) in enumerate(zip(SIZES[:-1], SIZES[1:])):
        layers.append(nn.Linear(fan_in, fan_out))
        if i < len(SIZES) - 2:
            layers.append(nn.ReLU())
    return nn.Sequential(*layers)


def _unfused_forward(model: nn.Sequential, x: ak.Tensor) -> ak.Tensor:
    """The MLP as separate ops, as F.linear was before the fused op: matmul, add, relu."""
    for m in model:
        if isinstance(m, nn.Linear):
            x = x.matmul(m.weight.T) + m.bias
        else:
            x = x.relu()
    return x


class AakaarTrainer:
    """The model, its optimizer and the batches; ``step()`` trains on the next batch.

    ``update``: "optim" (aakaar.optim.SGD, the default), or the update written by hand with
    in-place ops: "ema" (two passes, the buffer as a moving average) or "foreach" (torch's three)."""

    def __init__(self, weights: list[np.ndarray], batches: list, fused: bool = True, fused_loss: bool = True,
                 update: str = "optim", device: str = "cpu") -> None:
        self.model = _mlp()
        with ak.no_grad():
            for p, w in zip(self.model.parameters(), weights):
                p.copy_(ak.from_numpy(w))
        self.model.to(device)
        self.params = list(self.model.parameters())
        self.velocity = [ak.zeros_like(p) for p in self.params]
        self.batches = [(ak.from_numpy(x).to(device), ak.from_numpy(y).to(device)) for x, y in batches]
        self.forward: Callable[[ak.Tensor], ak.Tensor] = self.model if fused else (
            lambda x: _unfused_forward(self.model, x))
        # The composite is the loss as it was before the fused op: five ops and five graph nodes.
        self.loss: Callable[[ak.Tensor, ak.Tensor], ak.Tensor] = F.cross_entropy if fused_loss else (
            lambda out, y: F.nll_loss(out.log_softmax(1), y))
        self.opt = optim.SGD(self.params, lr=LR, momentum=MOMENTUM)
        self.update = {"optim": self.opt.step, "ema": self._update_ema, "foreach": self._update_foreach}[update]
        self.i = 0

    def step(self) -> ak.Tensor:
        x, y = self.batches[self.i % len(self.batches)]
        self.i += 1
        self.opt.zero_grad()  # set_to_none: backward assigns fresh gradients
        loss = self.loss(self.forward(x), y)
        loss.backward()
        self.update()
        return loss

    # [[book:sgd_momentum_inplace]]
    # SGD with momentum as torch.optim.SGD (dampening 0): buf = m*buf + g, p -= lr*buf.
    # Kept as an exponential moving average of the gradients, ema = (1 - m) * buf, the
    # same update is ema.lerp_(g, 1 - m) (ema + (1 - m) * (g - ema), i.e. (1 - m) times
    # m*buf + g) and p -= lr / (1 - m) * ema: two in-place passes per parameter, each
    # one fused loop. Only the buffer's scale differs from torch's; p is the same.
    def _update_ema(self) -> None:
        with ak.no_grad():
            for p, ema in zip(self.params, self.velocity):
                ema.lerp_(p.grad, 1 - MOMENTUM)
                p.add_(ema, alpha=-LR / (1 - MOMENTUM))
    # [[/book:sgd_momentum_inplace]]

    # [[book:sgd_momentum_foreach]]
    # torch's foreach form: three in-place passes, buf.mul_(m), buf.add_(g) and
    # p.add_(buf, alpha=-lr) (alpha= folds lr into the last one: no temporary).
    def _update_foreach(self) -> None:
        with ak.no_grad():
            for p, buf in zip(self.params, self.velocity):
                buf.mul_(MOMENTUM).add_(p.grad)
                p.add_(buf, alpha=-LR)
    # [[/book:sgd_momentum_foreach]]


# ---- torch ---------------------------------------------------------------------------------


class TorchTrainer:
    def __init__(self, weights: list[np.ndarray], batches: list, device: str = "cpu") -> None:
        layers = []
        for i, (fan_in, fan_out) in enumerate(zip(SIZES[:-1], SIZES[1:])):
            layers.append(torch.nn.Linear(fan_in, fan_out))
            if i < len(SIZES) - 2:
                layers.append(torch.nn.ReLU())
        self.model = torch.nn.Sequential(*layers)
        with torch.no_grad():
            for p, w in zip(self.model.parameters(), weights):
                p.copy_(torch.from_numpy(w))
        self.model.to(device)
        self.opt, self.variant = self._best_sgd()
        self.batches = [(torch.from_numpy(x).to(device), torch.from_numpy(y).to(device)) for x, y in batches]
        self.i = 0

    def _best_sgd(self) -> tuple[object, str]:
        """SGD(fused=True) if this torch runs it on the model's device, else SGD(foreach=True)."""
        params = list(self.model.parameters())
        try:
            opt = torch.optim.SGD(params, lr=LR, momentum=MOMENTUM, fused=True)
            return opt, "SGD(momentum=0.9, fused=True)"
        except (RuntimeError, TypeError, ValueError):
            return torch.optim.SGD(params, lr=LR, momentum=MOMENTUM, foreach=True), "SGD(momentum=0.9, foreach=True)"

    def step(self) -> object:
        x, y = self.batches[self.i % len(self.batches)]
        self.i += 1
        self.opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(self.model(x), y)
        loss.backward()
        self.opt.step()
        return loss


# ---- the run -------------------------------------------------------------------------------


def _with_switch_off(step: Callable[[], object], switch: Callable[[bool], None]) -> Callable[[], object]:
    """The step with one of the library's fast paths switched off, and on again after it."""

    def run() -> object:
        switch(False)
        try:
            return step()
        finally:
            switch(True)

    return run


def _without_cache(step: Callable[[], object]) -> Callable[[], object]:
    """The step with the CPU allocator's cache bypassed (every temporary from malloc), as before
    it existed. Bypassing leaves the cached blocks in place, so the other candidates stay warm."""
    return _with_switch_off(step, _C.set_cpu_cache_enabled)


def _without_awake_split(step: Callable[[], object]) -> Callable[[], object]:
    """The step with small elementwise loops kept on one thread even while the pool's workers
    are awake (as before that rule; it matters only with more than one thread)."""
    return _with_switch_off(step, _C._set_split_among_awake_workers)


def check_trajectories(trainers: dict[str, Callable[[], object]], steps: int,
                       reference: str = "torch") -> dict[str, list[float]]:
    """Trains every candidate `steps` steps from the same state; their losses must agree with the reference's."""
    losses = {name: [float(step().item()) for _ in range(steps)] for name, step in trainers.items()}
    ref = np.array(losses[reference])
    for name, got in losses.items():
        if not np.allclose(got, ref, rtol=1e-4, atol=1e-5):
            raise AssertionError(f"{name} and {reference} losses differ over {steps} steps: {got} vs {ref.tolist()}; "
                                 "not timing")
    return losses


def _with_threads(step: Callable[[], object], set_threads: Callable[[int], None], n: int,
                  current: dict[str, int], library: str) -> Callable[[], object]:
    """The step with its library's thread count set to n first, only when it is not already n:
    in an interleaved run the switch then happens in the first untimed step of a sample."""

    def run() -> object:
        if current.get(library) != n:
            set_threads(n)
            current[library] = n
        return step()

    return run


def _thread_label(n: int) -> str:
    return f"{n} thread" + ("" if n == 1 else "s")


def _candidates(weights: list[np.ndarray], batches: list, ablate: bool) -> tuple[dict[str, Callable[[], object]], str]:
    """aakaar's step (and its ablations) and torch's, each from the same weights; and torch's SGD variant."""
    th = TorchTrainer(weights, batches)
    steps: dict[str, Callable[[], object]] = {"aakaar": AakaarTrainer(weights, batches).step, "torch": th.step}
    if ablate:
        steps["aakaar, unfused layers"] = AakaarTrainer(weights, batches, fused=False).step
        steps["aakaar, composite loss"] = AakaarTrainer(weights, batches, fused_loss=False).step
        steps["aakaar, no allocator cache"] = _without_cache(AakaarTrainer(weights, batches).step)
        steps["aakaar, hand-written 2-pass update"] = AakaarTrainer(weights, batches, update="ema").step
        steps["aakaar, hand-written 3-pass update"] = AakaarTrainer(weights, batches, update="foreach").step
        steps["aakaar, no split among awake workers"] = _without_awake_split(AakaarTrainer(weights, batches).step)
    return steps, th.variant


def run(threads: int | Sequence[int] = 1, batch: int = 64, rounds: int = 301, ablate: bool = False,
        data: str | None = None, check_steps: int = 5, target_s: float = 0.002, warmup: int = 3) -> dict:
    """Checks that every candidate trains like torch, then times them interleaved; returns the record.

    With one thread count the candidates are named "aakaar", "torch" (and the ablations);
    with several, every name gains ", N thread(s)", all of them run in one interleaved
    run, and ``best`` holds each library at its fastest thread count."""
    if torch is None:
        raise SystemExit("aakaar.book.bench.train_step needs PyTorch as the reference: pip install torch==2.13.0")
    counts = [threads] if isinstance(threads, int) else list(dict.fromkeys(threads))
    if not counts or min(counts) < 1:
        raise ValueError(f"threads must be positive thread counts, got {threads!r}")
    batches, data_line = load_batches(batch, data)
    weights = init_weights()
    steps: dict[str, Callable[[], object]] = {}
    losses: dict[str, list[float]] = {}
    current: dict[str, int] = {}
    for n in counts:
        ak.set_num_threads(n)
        torch.set_num_threads(n)
        current.update(aakaar=n, torch=n)
        own, variant = _candidates(weights, batches, ablate)
        losses_n = check_trajectories(own, check_steps)
        if len(counts) == 1:
            steps, losses = own, losses_n
            break
        label = _thread_label(n)
        for name, step in own.items():
            library = "torch" if name == "torch" else "aakaar"
            setter = torch.set_num_threads if library == "torch" else ak.set_num_threads
            steps[f"{name}, {label}"] = _with_threads(step, setter, n, current, library)
        losses.update({f"{name}, {label}": v for name, v in losses_n.items()})
    times = interleaved(steps, rounds=rounds, target_s=target_s, warmup=warmup)
    rec = {
        "model": "-".join(map(str, SIZES)), "batch": batch, "threads": threads if isinstance(threads, int) else counts,
        "dtype": "float32", "data": data_line, "lr": LR, "momentum": MOMENTUM, "torch_optimizer": variant,
        "torch_version": torch.__version__, "kernels": _C.cpu_isa(), "spin_caps": spin_caps_in_effect(), "rounds": rounds,
        "sample_s": target_s, "warmup_steps": warmup, "check_losses": losses, "seconds": times,
    }
    if len(counts) == 1:
        rec["ratio_vs_torch"] = {name: t / times["torch"] for name, t in times.items() if name != "torch"}
        return rec
    # Same-thread ratios: each aakaar candidate against torch at its own thread count.
    rec["ratio_vs_torch"] = {}
    for n in counts:
        suffix = f", {_thread_label(n)}"
        ref = times[f"torch{suffix}"]
        rec["ratio_vs_torch"].update({name: t / ref for name, t in times.items()
                                      if name.endswith(suffix) and not name.startswith("torch")})
    fastest = {lib: min(counts, key=lambda n: times[f"{lib}, {_thread_label(n)}"]) for lib in ("aakaar", "torch")}
    best = {lib: {"threads": n, "seconds": times[f"{lib}, {_thread_label(n)}"]} for lib, n in fastest.items()}
    best["ratio"] = best["aakaar"]["seconds"] / best["torch"]["seconds"]
    rec["best"] = best
    return rec


def _thread_counts(text: str) -> list[int]:
    """'1' or '1,2' -> [1] or [1, 2] (argparse type)."""
    try:
        counts = [int(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected thread counts like 1 or 1,2, got {text!r}") from None
    if min(counts) < 1:
        raise argparse.ArgumentTypeError(f"thread counts must be positive, got {text!r}")
    return list(dict.fromkeys(counts))


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--threads", type=_thread_counts, default=[1],
                   help="threads for both libraries (default 1: stable), or several, e.g. 1,2: each library at "
                        "each count in one interleaved run, and each at its fastest")
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--rounds", type=int, default=301)
    p.add_argument("--sample-ms", type=float, default=2.0,
                   help="length of one timed sample (default 2 ms: about one step, so that few samples are cut "
                        "by the scheduler on a shared machine)")
    p.add_argument("--check-steps", type=int, default=5, help="steps whose losses must agree before timing")
    p.add_argument("--warmup", type=int, default=3,
                   help="untimed steps before each timed sample (default 3: the steady state of a training loop; "
                        "0 times each library just after the other ran)")
    p.add_argument("--ablate", action="store_true", help="also time aakaar without its fast paths")
    p.add_argument("--data", default=None,
                   help="folder with the EMNIST ByMerge test files, or 'random' (default: $AAKAAR_DATA, "
                        "then ../shared/data/emnist; without them random data, with a message saying so)")
    p.add_argument("--json", help="write the result here (atomically)")
    args = p.parse_args(argv)
    if min(args.batch, args.rounds, args.check_steps) < 1 or args.sample_ms <= 0:
        p.error("--batch, --rounds, --check-steps and --sample-ms must be positive")
    if args.warmup < 0:
        p.error("--warmup must be >= 0")
    threads = args.threads[0] if len(args.threads) == 1 else args.threads
    rec = run(threads, args.batch, args.rounds, args.ablate, args.data, args.check_steps, args.sample_ms / 1e3,
              args.warmup)
    print(f"aakaar.book.bench.train_step: {platform.processor() or platform.machine()}, "
          f"threads={','.join(map(str, args.threads))}, "
          f"{args.warmup} untimed steps before each sample, "
          f"kernels={rec['kernels']}, torch {rec['torch_version']} with {rec['torch_optimizer']}"
          + (f", idle spinning capped: {rec['spin_caps']}" if rec["spin_caps"] else ""))
    print(f"MLP {rec['model']}, batch {rec['batch']}, float32, one step = zero_grad + forward + cross-entropy "
          f"+ backward + SGD momentum update")
    print(f"data: {rec['data']}")
    losses = rec["check_losses"]
    s = rec["seconds"]
    if "best" not in rec:
        print(f"losses agree over {args.check_steps} steps: torch {' '.join(f'{v:.5f}' for v in losses['torch'])}")
        width = max(map(len, s))
        print(f"  {'torch':{width}s} {s['torch'] * 1e6:9.1f} us")
        for name, ratio in rec["ratio_vs_torch"].items():
            print(f"  {name:{width}s} {s[name] * 1e6:9.1f} us   ratio to torch {ratio:.2f}")
        print(f"ratio aakaar/torch {rec['ratio_vs_torch']['aakaar']:.2f} (target <= 0.6; below 1 means aakaar is faster)")
    else:
        print(f"losses agree over {args.check_steps} steps at every thread count")
        width = max(map(len, s))
        for n in rec["threads"]:
            torch_name = f"torch, {_thread_label(n)}"
            print(f"  {torch_name:{width}s} {s[torch_name] * 1e6:9.1f} us")
            for name, ratio in rec["ratio_vs_torch"].items():
                if name.endswith(f", {_thread_label(n)}"):
                    print(f"  {name:{width}s} {s[name] * 1e6:9.1f} us   ratio to torch at {_thread_label(n)} {ratio:.2f}")
        b = rec["best"]
        print(f"each at its fastest: aakaar {b['aakaar']['seconds'] * 1e6:.1f} us ({_thread_label(b['aakaar']['threads'])}), "
              f"torch {b['torch']['seconds'] * 1e6:.1f} us ({_thread_label(b['torch']['threads'])}): "
              f"ratio {b['ratio']:.2f} (target <= 0.6; below 1 means aakaar is faster)")
    if args.json:
        from aakaar.book.bench.io import write_json_atomic

        write_json_atomic(args.json, rec)


if __name__ == "__main__":
    from aakaar.book.bench.timing import cap_idle_spinning

    cap_idle_spinning("aakaar.book.bench.train_step", sys.argv[1:])
    main()
