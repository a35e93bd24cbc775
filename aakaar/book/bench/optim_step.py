"""One optimizer step over an MLP's parameters, aakaar against torch.optim, in the same run.

    python -m aakaar.book.bench.optim_step [--threads 1] [--rounds 31] [--optimizers SGD,Adam,AdamW]

The parameters are those of the book's MLP (784-256-128-47: three weights and three
biases, 242 k float32 numbers) with fixed random gradients. For each optimizer the
program times ``step()`` of aakaar.optim (one fused multi-tensor kernel call per
group; Muon's Newton-Schulz iteration is GEMMs) and of torch.optim in its three forms: the default (on the CPU the
single-tensor loop, ``foreach=False``), ``foreach=True`` and ``fused=True`` (where
this torch build has it for the CPU). All run interleaved in one process
(aakaar.book.bench.timing.interleaved), and the medians are reported as ratios
aakaar/torch: below 1 means aakaar is faster. Both libraries are first stepped
a few times from the same state and must agree (a fast wrong answer is no result).
Lion and LAMB are not in torch.optim: their reference is the papers' update written
with torch ops (a loop, and torch._foreach_* with foreach=True). Muon takes the weight
matrices only, and torch's runs its iteration in bfloat16 (aakaar's in float32): it is
also timed as "torch float32", torch's Muon with that cast made a plain copy.
LBFGS is not timed: its step is a closure-driven loop, not an update.
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
           "RMSprop": dict(lr=1e-3), "Adagrad": dict(lr=1e-2), "Adamax": dict(), "NAdam": dict(), "RAdam": dict(),
           "Adadelta": dict(), "Rprop": dict(), "ASGD": dict(t0=2), "Adafactor": dict(), "Muon": dict(),
           "Lion": dict(weight_decay=0.1), "LAMB": dict(weight_decay=0.01)}
# Muon takes the weight matrices only (a bias is another optimizer's job), and PyTorch's runs its
# Newton-Schulz iteration in bfloat16 (aakaar's in float32): its check allows bfloat16's precision.
MATRICES_ONLY = {"Muon"}
CHECK_TOLERANCE = {"Muon": dict(rtol=1e-3, atol=1e-4)}


def _torch_class(name: str) -> type:
    """torch.optim's optimizer, or for Lion and LAMB (not in torch.optim) the torch reference below."""
    return getattr(torch.optim, name, None) or _TORCH_REFERENCES[name]


def _torch_lion_and_lamb() -> dict[str, type]:
    """Lion and LAMB written for torch as a user would write them (the papers' updates, as
    tests/optim/test_lion_lamb_papers.py transcribes them): a loop over the parameters by
    default, torch._foreach_* ops with foreach=True; no fused form (fused=True is refused)."""
    if torch is None:
        return {}

    class TorchLion(torch.optim.Optimizer):
        def __init__(self, params, lr=1e-4, betas=(0.9, 0.99), weight_decay=0.0, foreach=False):
            super().__init__(params, dict(lr=lr, betas=betas, weight_decay=weight_decay, foreach=foreach))

        @torch.no_grad()
        def step(self, closure=None):
            for group in self.param_groups:
                params = [p for p in group["params"] if p.grad is not None]
                grads = [p.grad for p in params]
                bufs = [self.state[p].setdefault("exp_avg", torch.zeros_like(p)) for p in params]
                lr, wd, (b1, b2) = group["lr"], group["weight_decay"], group["betas"]
                if group["foreach"]:
                    update = torch._foreach_mul(bufs, b1)
                    torch._foreach_add_(update, grads, alpha=1 - b1)
                    torch._foreach_sign_(update)
                    torch._foreach_add_(update, params, alpha=wd)
                    torch._foreach_add_(params, update, alpha=-lr)
                    torch._foreach_mul_(bufs, b2)
                    torch._foreach_add_(bufs, grads, alpha=1 - b2)
                    continue
                for p, g, m in zip(params, grads, bufs):
                    update = (m * b1).add_(g, alpha=1 - b1).sign_().add_(p, alpha=wd)
                    p.add_(update, alpha=-lr)
                    m.mul_(b2).add_(g, alpha=1 - b2)

    class TorchLAMB(torch.optim.Optimizer):
        def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-6, weight_decay=0.0, foreach=False):
            super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach))

        @torch.no_grad()
        def step(self, closure=None):
            for group in self.param_groups:
                params = [p for p in group["params"] if p.grad is not None]
                grads = [p.grad for p in params]
                states = [self.state[p] for p in params]
                for p, st in zip(params, states):
                    if not st:
                        st.update(step=0, exp_avg=torch.zeros_like(p), exp_avg_sq=torch.zeros_like(p))
                    st["step"] += 1
                ms, vs = [st["exp_avg"] for st in states], [st["exp_avg_sq"] for st in states]
                lr, wd, eps, (b1, b2) = group["lr"], group["weight_decay"], group["eps"], group["betas"]
                t = states[0]["step"]
                bc1, bc2 = 1 - b1 ** t, 1 - b2 ** t
                if group["foreach"]:
                    torch._foreach_mul_(ms, b1)
                    torch._foreach_add_(ms, grads, alpha=1 - b1)
                    torch._foreach_mul_(vs, b2)
                    torch._foreach_addcmul_(vs, grads, grads, value=1 - b2)
                    denom = torch._foreach_div(vs, bc2)
                    torch._foreach_sqrt_(denom)
                    torch._foreach_add_(denom, eps)
                    r = torch._foreach_div(ms, bc1)
                    torch._foreach_div_(r, denom)
                    torch._foreach_add_(r, params, alpha=wd)
                    w_norms, u_norms = torch._foreach_norm(params), torch._foreach_norm(r)
                    trust = [torch.where((w > 0) & (u > 0), w / u, torch.ones_like(w))
                             for w, u in zip(w_norms, u_norms)]
                    torch._foreach_mul_(r, trust)
                    torch._foreach_add_(params, r, alpha=-lr)
                    continue
                for p, g, m, v in zip(params, grads, ms, vs):
                    m.mul_(b1).add_(g, alpha=1 - b1)
                    v.mul_(b2).addcmul_(g, g, value=1 - b2)
                    r = (m / bc1).div_((v / bc2).sqrt_().add_(eps)).add_(p, alpha=wd)
                    w_norm, u_norm = float(p.norm()), float(r.norm())
                    trust = w_norm / u_norm if w_norm > 0 and u_norm > 0 else 1.0
                    p.add_(r, alpha=-lr * trust)

    return {"Lion": TorchLion, "LAMB": TorchLAMB}


_TORCH_REFERENCES = _torch_lion_and_lamb()


def _without_bfloat16(step: Callable[[], object]) -> Callable[[], object]:
    """step() with torch's Tensor.bfloat16 a plain copy while it runs."""
    def run() -> object:
        original = torch.Tensor.bfloat16
        torch.Tensor.bfloat16 = lambda self: self.clone()
        try:
            return step()
        finally:
            torch.Tensor.bfloat16 = original
    return run


def mlp_shapes() -> list[tuple[int, ...]]:
    shapes: list[tuple[int, ...]] = []
    for fan_in, fan_out in zip(SIZES[:-1], SIZES[1:]):
        shapes += [(fan_out, fan_in), (fan_out,)]
    return shapes


def _setups(name: str) -> tuple[dict[str, Callable[[], object]], str]:
    """Step functions of aakaar and each available torch form, from the same parameters and gradients."""
    rng = np.random.default_rng(0)
    shapes = [s for s in mlp_shapes() if len(s) == 2 or name not in MATRICES_ONLY]
    data = [(rng.standard_normal(s).astype(np.float32), rng.standard_normal(s).astype(np.float32) * 0.01)
            for s in shapes]
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
            opt = _torch_class(name)(t_params, **kwargs, **extra)
            opt.step()  # fused=True may only fail at the first step
        except (RuntimeError, TypeError, ValueError):
            continue
        t_opts[form] = (opt, t_params)
        steps[form] = opt.step
    if name in MATRICES_ONLY:
        # Muon's iteration in float32 in torch too (its bfloat16 cast made a copy): the same
        # arithmetic as aakaar's, so the ratio compares the two GEMMs, not the two dtypes.
        t_params = []
        for w, g in data:
            p = torch.from_numpy(w.copy()).requires_grad_()
            p.grad = torch.from_numpy(g.copy())
            t_params.append(p)
        steps["torch float32"] = _without_bfloat16(_torch_class(name)(t_params, **kwargs).step)
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
    fresh_opt = _torch_class(name)(fresh, **kwargs)
    for _ in range(5):
        fresh_opt.step()
    for a, t in zip(check, fresh):
        tolerance = CHECK_TOLERANCE.get(name, dict(rtol=1e-5, atol=1e-6))
        if not np.allclose(a.detach().numpy(), t.detach().numpy(), **tolerance):
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
    p.add_argument("--optimizers", default="SGD,Adam,AdamW",
                   help=f"comma-separated, from {', '.join(OPTIONS)}, or all")
    args = p.parse_args(argv)
    names = list(OPTIONS) if args.optimizers == "all" else [n.strip() for n in args.optimizers.split(",") if n.strip()]
    unknown = [n for n in names if n not in OPTIONS]
    if unknown:
        p.error(f"unknown optimizers {unknown}; choose from {list(OPTIONS)}")
    rec = run(args.threads, args.rounds, names)
    print(f"aakaar.book.bench.optim_step: {platform.processor() or platform.machine()}, threads={args.threads}, "
          f"kernels={rec['kernels']}, torch {rec['torch_version']}; parameters of the MLP {rec['model']} (float32)")
    for name, times in rec["seconds"].items():
        ratios = "  ".join(f"vs {k.removeprefix('torch ')} {r:.2f}" for k, r in rec["ratios"][name].items())
        print(f"  {name:9s} aakaar {times['aakaar'] * 1e6:7.1f} us   ratio aakaar/torch: {ratios}")


if __name__ == "__main__":
    main()
