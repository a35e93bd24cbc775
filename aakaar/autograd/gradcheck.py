"""Checking analytic gradients against finite differences.

For a function f of tensors, the autograd gradient of ``sum(f(x) * w)`` (for a
random weight w) is compared with central differences
``(f(x + eps e_i) - f(x - eps e_i)) / 2 eps`` for every input element i.
Use float64: in float32 the rounding error of the difference swamps it.
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from .. import _C
from .._C import Tensor


class GradcheckError(AssertionError):
    """An analytic gradient differs from the numerical one."""


def _as_tuple(x: Tensor | Sequence[Tensor]) -> tuple[Tensor, ...]:
    return (x,) if isinstance(x, Tensor) else tuple(x)


def gradcheck(
    fn: Callable[..., Tensor | Sequence[Tensor]],
    inputs: Tensor | Sequence[Tensor],
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    seed: int = 0,
) -> bool:
    """True when every input's autograd gradient matches central differences.

    Inputs that require grad must be float64. Raises :class:`GradcheckError`
    naming the input and the worst element (or returns False with
    ``raise_exception=False``).
    """
    from . import grad as autograd_grad

    inputs = _as_tuple(inputs)
    diff = [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]
    if not diff:
        raise ValueError("gradcheck: no input requires grad")
    for i in diff:
        if inputs[i].dtype != _C.dtype.float64:
            raise TypeError(f"gradcheck: input {i} is {inputs[i].dtype}; use float64 for finite differences")

    outputs = _as_tuple(fn(*inputs))
    rng = np.random.default_rng(seed)
    weights = [_C.from_numpy(rng.standard_normal(o.shape).astype(np.float64))._to_device(o.device) for o in outputs]

    def weighted_sum(outs: tuple[Tensor, ...]) -> float:
        return float(sum((o.detach().double() * w).sum().item() for o, w in zip(outs, weights)))

    analytic = autograd_grad(
        [o for o in outputs if o.requires_grad],
        [inputs[i] for i in diff],
        [w for o, w in zip(outputs, weights) if o.requires_grad],
        allow_unused=True,
    )
    for k, i in enumerate(diff):
        x = inputs[i]
        a = np.zeros(x.shape) if analytic[k] is None else analytic[k].cpu().numpy().astype(np.float64)
        numeric = np.zeros(x.shape)
        on_cpu = x.device.type == "cpu"
        # On the CPU, perturb x's own memory in place (through a numpy view), so views and
        # as_strided inside fn see the same storage layout. Elsewhere, perturb a CPU copy and
        # upload it as a fresh input for each evaluation.
        flat = x.detach().numpy() if on_cpu else x.detach().cpu().numpy().copy()

        def evaluate() -> float:
            args = inputs if on_cpu else tuple(
                _C.from_numpy(flat.copy())._to_device(x.device) if j == i else t for j, t in enumerate(inputs))
            return weighted_sum(_as_tuple(fn(*args)))

        with _C_no_grad():
            for idx in np.ndindex(*x.shape):
                old = flat[idx]
                flat[idx] = old + eps
                plus = evaluate()
                flat[idx] = old - eps
                minus = evaluate()
                flat[idx] = old
                numeric[idx] = (plus - minus) / (2 * eps)
        err = np.abs(a - numeric)
        bad = err > atol + rtol * np.abs(numeric)
        if bad.any():
            worst = np.unravel_index(np.argmax(err - rtol * np.abs(numeric)), err.shape) if err.ndim else ()
            msg = (
                f"gradcheck: gradient of input {i} (shape {tuple(x.shape)}) differs from finite differences "
                f"at {tuple(int(j) for j in worst)}: analytic {a[worst]!r} vs numeric {numeric[worst]!r}"
                f" ({int(bad.sum())} of {bad.size} elements off)"
            )
            if raise_exception:
                raise GradcheckError(msg)
            return False
    return True


def _C_no_grad():
    from .grad_mode import no_grad

    return no_grad()
