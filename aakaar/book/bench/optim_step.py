"""One optimizer step over an MLP's parameters, aakaar against torch.optim, in the same run.

    python -m aakaar.book.bench.optim_step [--threads 1] [--rounds 31] [--optimizers SGD,Adam,AdamW]

The parameters are those of the book's MLP (784-256-128-47: three weights and three
biases, 242 k float32 numbers) with fixed random gradients. For each optimizer the
program times ``step()`` of aakaar.optim (one fused multi-tensor kernel call per
group) and of torch.optim in its three forms: the default (on the CPU the
single-tensor loop, ``foreach=False``), ``foreach=True`` and ``fused=True`` (where
this torch build has it for the CPU). All run interleaved in one process
(aakaar.book.bench.timing.interleaved), and the medians are reported as ratios
aakaar/torch: below 1 means aakaar is faster. Both libraries are first stepped
a few times from the same state and must agree (a fast wrong answer is no result).
"""

from __future__ import annotations

import argparse
import platform
from typing import Callable

import numpy as np

import aakaar as ak
import aakaar.optim as optim
from aakaar import _C
from aakaar.book.bench.timing import interleaved

try:
    import torch
except ImportError:  # pragma: no cover - the reference is the torch extra
    torch = None

SIZES = (784, 256, 128, 47)
OPTIONS = {"SGD": dict(lr=0.05, momentum=0.9), "Adam": dict(lr=1e-3), "AdamW": dict(lr=1e-3),
           "RMSprop": dict(lr=1e-3), "Adagrad": dict(lr=1e-2)}


def mlp_shapes() -> list[tuple[int, ...]]:
    shapes: list[tuple[int, ...]] = []
    for fan_in, fan_out in zip(SIZES[:-1], SIZES[1:]):
        shapes += [(fan_out, fan_in), (fan_out,)]
    return shapes


def _setups(name: str) -> tuple[dict[str, Callable[[], object]], str]:
    """Step functions of aakaar and each available torch form, from the same parameters and gradients."""
    rng = np.random.default_rng(0)
    data = [(rng.standard_normal(s).astype(np.float32), rng.standard_normal(s).astype(np.float32) * 0.01)
            for s in mlp_shapes()]
    kwargs = OPTIONS[name]
    ak_params = []
    for w, g in data:
        p = ak.nn.Parameter(ak.from_numpy(w.copy()))
        p.grad = ak.from_numpy(g.copy())
        ak_params.append(p)
    steps: dict[str, Callable[[], object]] = {"aakaar": getattr(optim, name)(ak_params, **kwargs).step}
    t_opts = {}
    for form, extra in (("torch default", {}), ("torch foreach", {"foreach": True}), ("torch fused", {"fused": True})):
        t_params = []
        for w, g in data:
            p = torch.from_numpy(w.copy()).requires_grad_()
            p.grad = torch.from_numpy(g.copy())
            t_params.append(p)
        try:
            opt = getattr(torch.optim, name)(t_params, **kwargs, **extra)
            opt.step()  # fused=True may only fail at the first step
        except (RuntimeError, TypeError, ValueError):
            continue
        t_opts[form] = (opt, t_params)
        steps[form] = opt.step
    # The check: a few steps of aakaar from the same start agree with torch's default form.
    ref_opt, ref_params = t_opts["torch default"]
    check = [ak.nn.Parameter(ak.from_numpy(w.copy())) for w, _ in data]
    for p, (_, g) in zip(check, data):
        p.grad = ak.from_numpy(g.copy())
    check_opt = getattr(optim, name)(check, **kwargs)
    for _ in range(5):
        check_opt.step()
    fresh = [torch.from_numpy(w.copy()).requires_grad_() for w, _ in data]
    for p, (_, g) in zip(fresh, data):
        p.grad = torch.from_numpy(g.copy())
    fresh_opt = getattr(torch.optim, name)(fresh, **kwargs)
    for _ in range(5):
        fresh_opt.step()
    for a, t in zip(check, fresh):
        if not np.allclose(a.detach().numpy(), t.detach().numpy(), rtol=1e-5, atol=1e-6):
            raise AssertionError(f"{name}: aakaar and torch disagree after 5 steps; not timing")
    return steps, ", ".join(k for k in steps if k != "aakaar")


def run(threads: int = 1, rounds: int = 31, names: list[str] | None = None, target_s: float = 0.002) -> dict:
    if torch is None:
        raise SystemExit("aakaar.book.bench.optim_step needs PyTorch as the reference: pip install torch==2.13.0")
    ak.set_num_threads(threads)
    torch.set_num_threads(threads)
    rec: dict = {"threads": threads, "model": "-".join(map(str, SIZES)), "kernels": _C.cpu_isa(),
                 "torch_version": torch.__version__, "seconds": {}, "ratios": {}}
    for name in names or ["SGD", "Adam", "AdamW"]:
        steps, _ = _setups(name)
        times = interleaved(steps, rounds=rounds, target_s=target_s, warmup=2)
        rec["seconds"][name] = times
        rec["ratios"][name] = {k: times["aakaar"] / t for k, t in times.items() if k != "aakaar"}
    return rec


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--rounds", type=int, default=31)
    p.add_argument("--optimizers", default="SGD,Adam,AdamW", help=f"comma-separated, from {', '.join(OPTIONS)}")
    args = p.parse_args(argv)
    names = [n.strip() for n in args.optimizers.split(",") if n.strip()]
    unknown = [n for n in names if n not in OPTIONS]
    if unknown:
        p.error(f"unknown optimizers {unknown}; choose from {list(OPTIONS)}")
    rec = run(args.threads, args.rounds, names)
    print(f"aakaar.book.bench.optim_step: {platform.processor() or platform.machine()}, threads={args.threads}, "
          f"kernels={rec['kernels']}, torch {rec['torch_version']}; parameters of the MLP {rec['model']} (float32)")
    for name, times in rec["seconds"].items():
        ratios = "  ".join(f"vs {k.removeprefix('torch ')} {r:.2f}" for k, r in rec["ratios"][name].items())
        print(f"  {name:6s} aakaar {times['aakaar'] * 1e6:7.1f} us   ratio aakaar/torch: {ratios}")


if __name__ == "__main__":
    main()
