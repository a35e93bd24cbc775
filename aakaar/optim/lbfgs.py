"""L-BFGS, as ``torch.optim.LBFGS``: a quasi-Newton method that keeps the last
``history_size`` steps ``s`` and gradient changes ``y`` and applies the inverse-Hessian
estimate they define by the two-loop recursion, with an optional strong-Wolfe line search.

Written in Python over aakaar tensors, as PyTorch's is: all the parameters are one flat
vector (their gradients concatenated), and the work of a step is a few dot products and
scaled additions on that vector per history entry, each one native call; the scalars
between them (``ys``, ``rho``, ``alpha``, the line search's step) are numpy scalars of the
parameters' dtype, which round as PyTorch's 0-d tensors of that dtype do (numpy >= 2's
promotion rules: a Python float does not widen a float32), so float32 runs follow PyTorch's
too. For float16 and bfloat16 parameters they are float32, the library's rule for 16-bit floats
(PyTorch rounds them to the 16-bit dtype; numpy has no bfloat16). Like PyTorch's, it takes one
parameter group and needs a closure.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .. import _C
from .._C import Tensor
from ..autograd import enable_grad, no_grad
from .optimizer import Optimizer, check_tensor_lr

__all__ = ["LBFGS"]


Scalar = Any  # np.float32 or np.float64: a 0-d value of the parameters' dtype (float32 for 16-bit ones)


def _scalar_type(dtype: Any) -> type:
    return np.float64 if dtype == _C.dtype.float64 else np.float32


def _dot(a: Tensor, b: Tensor) -> Scalar:
    return _scalar_type(a.dtype)((a @ b).item())


def _abs_max(a: Tensor) -> Scalar:
    return _scalar_type(a.dtype)(a.abs().max().item())


def _cubic_interpolate(x1: float, f1: float, g1: float, x2: float, f2: float, g2: float,
                       bounds: tuple[float, float] | None = None) -> float:
    """The minimiser of the cubic through (x1, f1, g1) and (x2, f2, g2), within bounds
    (minFunc's polyinterp for two points, as torch.optim.lbfgs)."""
    if bounds is not None:
        xmin_bound, xmax_bound = bounds
    else:
        xmin_bound, xmax_bound = (x1, x2) if x1 <= x2 else (x2, x1)
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 ** 2 - g1 * g2
    if d2_square >= 0:
        d2 = np.sqrt(d2_square)
        if x1 <= x2:
            min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return min(max(min_pos, xmin_bound), xmax_bound)
    return (xmin_bound + xmax_bound) / 2.0


def _strong_wolfe(obj_func: Callable, x: list[Tensor], t: float, d: Tensor, f: float, g: Tensor, gtd: float,
                  c1: float = 1e-4, c2: float = 0.9, tolerance_change: float = 1e-9,
                  max_ls: int = 25) -> tuple[float, Tensor, float, int]:
    """A step length t along d meeting the strong Wolfe conditions (sufficient decrease with
    c1, curvature with c2): bracketing, then zoom by cubic interpolation (torch's _strong_wolfe)."""
    d_norm = _abs_max(d)
    g = g.clone()
    f_new, g_new = obj_func(x, t, d)
    ls_func_evals = 1
    gtd_new = _dot(g_new, d)
    t_prev, f_prev, g_prev, gtd_prev = 0.0, f, g, gtd
    done = False
    ls_iter = 0
    while ls_iter < max_ls:
        # the step is too long, or the function went up: a bracket [t_prev, t]
        if f_new > (f + c1 * t * gtd) or (ls_iter > 1 and f_new >= f_prev):
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.clone()], [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:  # strong Wolfe met
            bracket, bracket_f, bracket_g = [t], [f_new], [g_new]
            done = True
            break
        if gtd_new >= 0:
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.clone()], [gtd_prev, gtd_new]
            break
        # extrapolate
        min_step = t + 0.01 * (t - t_prev)
        max_step = t * 10
        tmp = t
        t = _cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new, bounds=(min_step, max_step))
        t_prev, f_prev, g_prev, gtd_prev = tmp, f_new, g_new.clone(), gtd_new
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = _dot(g_new, d)
        ls_iter += 1
    if ls_iter == max_ls:
        bracket, bracket_f, bracket_g = [0.0, t], [f, f_new], [g, g_new]

    # zoom: shrink the bracket until the point satisfies the conditions
    insuf_progress = False
    low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = _cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0], bracket[1], bracket_f[1], bracket_gtd[1])
        # a point too near an end of the bracket makes no progress: move it inwards
        eps = 0.1 * (max(bracket) - min(bracket))
        if min(max(bracket) - t, t - min(bracket)) < eps:
            if insuf_progress or t >= max(bracket) or t <= min(bracket):
                t = max(bracket) - eps if abs(t - max(bracket)) < abs(t - min(bracket)) else min(bracket) + eps
                insuf_progress = False
            else:
                insuf_progress = True
        else:
            insuf_progress = False
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = _dot(g_new, d)
        ls_iter += 1
        if f_new > (f + c1 * t * gtd) or f_new >= bracket_f[low_pos]:
            bracket[high_pos], bracket_f[high_pos] = t, f_new
            bracket_g[high_pos], bracket_gtd[high_pos] = g_new.clone(), gtd_new
            low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high_pos] - bracket[low_pos]) >= 0:
                bracket[high_pos], bracket_f[high_pos] = bracket[low_pos], bracket_f[low_pos]
                bracket_g[high_pos], bracket_gtd[high_pos] = bracket_g[low_pos], bracket_gtd[low_pos]
            bracket[low_pos], bracket_f[low_pos] = t, f_new
            bracket_g[low_pos], bracket_gtd[low_pos] = g_new.clone(), gtd_new
    return bracket_f[low_pos], bracket_g[low_pos], bracket[low_pos], ls_func_evals


class LBFGS(Optimizer):
    """L-BFGS with PyTorch's arguments: ``lr``, ``max_iter`` (iterations per ``step``),
    ``max_eval`` (closure calls per step, default ``max_iter * 5 // 4``), ``tolerance_grad``,
    ``tolerance_change``, ``history_size`` and ``line_search_fn`` (None or ``"strong_wolfe"``).
    ``step(closure)`` needs a closure that re-evaluates the model (zeroing and recomputing the
    gradients) and returns the loss. One parameter group only, as in PyTorch."""

    def __init__(self, params: Any, lr: float = 1, max_iter: int = 20, max_eval: int | None = None,
                 tolerance_grad: float = 1e-7, tolerance_change: float = 1e-9, history_size: int = 100,
                 line_search_fn: str | None = None) -> None:
        check_tensor_lr(lr)
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = dict(lr=lr, max_iter=max_iter, max_eval=max_eval, tolerance_grad=tolerance_grad,
                        tolerance_change=tolerance_change, history_size=history_size, line_search_fn=line_search_fn)
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        if getattr(self, "_params", None) is not None:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        super().add_param_group(param_group)

    # ---- the parameters as one flat vector ----------------------------------------------

    def _numel(self) -> int:
        return sum(p.numel() for p in self._params)

    def _gather_flat_grad(self) -> Tensor:
        views = [_C.zeros(p.numel(), dtype=p.dtype, device=p.device) if p.grad is None else p.grad.reshape(-1)
                 for p in self._params]
        return _C.cat(views, 0)

    def _add_grad(self, step_size: float, update: Tensor) -> None:
        offset = 0
        for p in self._params:
            numel = p.numel()
            p.add_(update[offset:offset + numel].reshape(tuple(p.shape)), alpha=float(step_size))
            offset += numel

    def _clone_param(self) -> list[Tensor]:
        return [p.detach().clone() for p in self._params]

    def _set_param(self, params_data: list[Tensor]) -> None:
        for p, data in zip(self._params, params_data):
            p.copy_(data)

    def _directional_evaluate(self, closure: Callable, x: list[Tensor], t: float, d: Tensor) -> tuple[float, Tensor]:
        """The loss and flat gradient at x + t d (the parameters are restored to x after)."""
        self._add_grad(t, d)
        loss = _to_float(closure())
        flat_grad = self._gather_flat_grad()
        self._set_param(x)
        return loss, flat_grad

    # ---- the step -------------------------------------------------------------------------

    def step(self, closure: Callable[[], Any]) -> Any:  # type: ignore[override]
        """Up to ``max_iter`` L-BFGS iterations; returns the loss the closure gave first."""
        if closure is None or not callable(closure):
            raise TypeError("LBFGS.step() needs a closure that re-evaluates the model and returns the loss")
        with no_grad():
            return self._step(closure)

    def _step(self, closure: Callable[[], Any]) -> Any:
        group = self.param_groups[0]
        lr = float(group["lr"])
        max_iter, max_eval = group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        line_search_fn, history_size = group["line_search_fn"], group["history_size"]

        def evaluate() -> Any:
            with enable_grad():
                return closure()

        # The state lives with the first parameter (torch's layout).
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        orig_loss = evaluate()
        loss = _to_float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._gather_flat_grad()
        if _abs_max(flat_grad) <= tolerance_grad:  # already optimal
            return orig_loss

        d, t = state.get("d"), state.get("t")
        old_dirs, old_stps, ro = state.get("old_dirs"), state.get("old_stps"), state.get("ro")
        H_diag = state.get("H_diag")
        prev_flat_grad, prev_loss = state.get("prev_flat_grad"), state.get("prev_loss")
        opt_cond = False

        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            # the direction: steepest descent first, then the two-loop recursion over the history
            if state["n_iter"] == 1:
                d = flat_grad.neg()
                old_dirs, old_stps, ro = [], [], []
                H_diag = 1.0
            else:
                y = flat_grad.sub(prev_flat_grad)
                s = d.mul(float(t))
                ys = _dot(y, s)
                if ys > 1e-10:  # keep the pair only with positive curvature
                    if len(old_dirs) == history_size:
                        old_dirs.pop(0)
                        old_stps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    H_diag = ys / _dot(y, y)
                num_old = len(old_dirs)
                if "al" not in state:
                    state["al"] = [None] * history_size
                al = state["al"]
                q = flat_grad.neg()
                for i in range(num_old - 1, -1, -1):
                    al[i] = _dot(old_stps[i], q) * ro[i]
                    q.add_(old_dirs[i], alpha=float(-al[i]))
                d = r = q.mul(float(H_diag))
                for i in range(num_old):
                    be_i = _dot(old_dirs[i], r) * ro[i]
                    r.add_(old_stps[i], alpha=float(al[i] - be_i))

            if prev_flat_grad is None:
                prev_flat_grad = flat_grad.clone()
            else:
                prev_flat_grad.copy_(flat_grad)
            prev_loss = loss

            # the step length: lr (the first step scaled down to at most 1 / ||g||_1)
            if state["n_iter"] == 1:
                t = min(1.0, 1.0 / _scalar_type(flat_grad.dtype)(flat_grad.abs().sum().item())) * lr
            else:
                t = lr
            gtd = _dot(flat_grad, d)
            if gtd > -tolerance_change:  # not a descent direction
                break

            ls_func_evals = 0
            if line_search_fn is not None:
                if line_search_fn != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                x_init = self._clone_param()

                def obj_func(x: list[Tensor], t: float, d: Tensor) -> tuple[float, Tensor]:
                    return self._directional_evaluate(evaluate, x, t, d)

                loss, flat_grad, t, ls_func_evals = _strong_wolfe(obj_func, x_init, t, d, loss, flat_grad, gtd,
                                                                  max_ls=max_eval - current_evals)
                self._add_grad(t, d)
                opt_cond = _abs_max(flat_grad) <= tolerance_grad
            else:
                self._add_grad(t, d)
                if n_iter != max_iter:
                    # re-evaluate unless this was the last iteration
                    loss = _to_float(evaluate())
                    flat_grad = self._gather_flat_grad()
                    opt_cond = _abs_max(flat_grad) <= tolerance_grad
                    ls_func_evals = 1
            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals

            if n_iter == max_iter or current_evals >= max_eval or opt_cond:
                break
            if _abs_max(d.mul(float(t))) <= tolerance_change:  # the step is tiny
                break
            if abs(loss - prev_loss) < tolerance_change:  # the loss stopped changing
                break

        state.update(d=d, t=t, old_dirs=old_dirs, old_stps=old_stps, ro=ro, H_diag=H_diag,
                     prev_flat_grad=prev_flat_grad, prev_loss=prev_loss)
        return orig_loss


def _to_float(loss: Any) -> float:
    return float(loss.item()) if isinstance(loss, Tensor) else float(loss)
