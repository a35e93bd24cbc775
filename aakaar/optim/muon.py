"""Muon (K. Jordan et al., "Muon: An optimizer for hidden layers in neural networks"), as
``torch.optim.Muon``: SGD momentum (Nesterov by default) whose update matrix is replaced by an
approximately orthogonal one (U V^T of its SVD, roughly) by a few Newton–Schulz iterations,
with decoupled weight decay and a learning rate adjusted to the matrix's shape.

Muon is for 2-D parameters only (the hidden layers' weight matrices); biases, embeddings and
the output layer belong to another optimizer (AdamW), and a parameter of another rank is a
ValueError, as in PyTorch (here also when it comes through ``add_param_group``).

Written in Python over aakaar tensors, as PyTorch's is: the work is the iteration's matrix
products (native GEMMs), a handful per parameter. For a wide matrix (the long side at least twice
the short one, as the MLP's 256 x 784) the iteration runs in the Gram matrix's space: the same
polynomial of X X^T applied to X, with every product but two of size m x m (about a third fewer
multiply-adds for 256 x 784, and GEMMs that fit the caches better). One difference: PyTorch runs the
iteration in bfloat16, which aakaar does not have; here it runs in the parameter's dtype
(float32 or float64), which is more exact, so the two differ by about bfloat16's rounding
(tests/optim/test_muon.py measures it) and agree closely when PyTorch's is run in the same dtype.
"""

from __future__ import annotations

import math
from typing import Any, Callable

from .._C import Tensor
from ..autograd import no_grad
from ..creation import zeros_like
from .fused import Params
from .optimizer import Optimizer, check_tensor_lr

__all__ = ["Muon"]

EPS = 1e-7
DEFAULT_A, DEFAULT_B, DEFAULT_C = 3.4445, -4.7750, 2.0315
DEFAULT_NS_STEPS = 5


# [[book:muon_newton_schulz]]
def zeropower_via_newtonschulz(grad: Tensor, ns_coefficients: tuple[float, float, float], ns_steps: int,
                               eps: float) -> Tensor:
    """An approximately orthogonal matrix with the row and column spaces of ``grad``: ``ns_steps``
    iterations of X <- a X + (b A + c A^2) X with A = X X^T, from X = grad / ||grad||_F. The
    quintic's coefficients push every singular value towards 1 fast (to about 0.7..1.2, not
    exactly 1, which does not hurt training). A tall matrix is iterated transposed, so that A
    is the smaller Gram matrix."""
    if ns_steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if grad.dim() != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(ns_coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = ns_coefficients
    tall = grad.shape[0] > grad.shape[1]
    x = grad.T if tall else grad
    x = x / (x * x).sum().sqrt().clamp(min=eps)
    m, n = x.shape
    if n >= 2 * m and ns_steps > 1:
        return _newtonschulz_in_gram_space(x, a, b, c, ns_steps, tall)
    for _ in range(ns_steps):
        gram = x @ x.T
        # torch.addmm(gram, gram, gram, beta=b, alpha=c), then torch.addmm(x, gram_update, x, beta=a):
        # each product's fresh result is scaled and accumulated in place, so an iteration allocates
        # three matrices (the products) and makes two elementwise passes, not eight and four.
        gram_update = (gram @ gram).mul_(c).add_(gram, alpha=b)
        x = (gram_update @ x).add_(x, alpha=a)
    return x.T if tall else x
# [[/book:muon_newton_schulz]]


def _newtonschulz_in_gram_space(x0: Tensor, a: float, b: float, c: float, ns_steps: int, tall: bool) -> Tensor:
    """The same iteration for a wide X (m x n, n >= 2m), with every product m x m but the first and last.

    Each step multiplies X by P = a I + b A + c A^2, a polynomial in A = X X^T, so X_k = Q_k X_0 with
    Q_{k+1} = P_k Q_k, and, P_k commuting with A_k, A_{k+1} = P_k A_k P_k^T = A_k P_k^2. One m x m x n
    product gives A_0, one gives X_0's final image Q X_0; in between each step costs four m^3
    products (A^2, P Q, P^2, A P^2; fewer in the first and last) instead of 4 m^2 n + 2 m^3.
    The same polynomial as the plain iteration in exact arithmetic; only the rounding differs."""
    m = x0.shape[0]
    gram = x0 @ x0.T
    q = None
    for k in range(ns_steps):
        poly = (gram @ gram).mul_(c).add_(gram, alpha=b)
        poly.diagonal().add_(a)
        q = poly if q is None else poly @ q
        if k + 1 < ns_steps:
            gram = gram @ (poly @ poly)
    x = q @ x0
    return x.T if tall else x


def adjust_lr(lr: float, adjust_lr_fn: str | None, param_shape: Any) -> float:
    """The learning rate for a matrix of this shape (A, B): "original" (Keller Jordan's) scales by
    sqrt(max(1, A / B)); "match_rms_adamw" (Moonshot's) by 0.2 sqrt(max(A, B)), which gives the
    update AdamW's RMS so that AdamW's lr and weight decay carry over."""
    A, B = param_shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        ratio = math.sqrt(max(1, A / B))
    elif adjust_lr_fn == "match_rms_adamw":
        ratio = 0.2 * math.sqrt(max(A, B))
    else:
        ratio = 1.0
    return lr * ratio


class Muon(Optimizer):
    """Muon with PyTorch's arguments and defaults: ``lr=1e-3``, ``weight_decay=0.1`` (decoupled),
    ``momentum=0.95``, ``nesterov=True``, ``ns_coefficients=(3.4445, -4.7750, 2.0315)``,
    ``eps=1e-7``, ``ns_steps=5``, ``adjust_lr_fn=None`` ("original") or "match_rms_adamw"."""

    def __init__(self, params: Params, lr: float = 1e-3, weight_decay: float = 0.1, momentum: float = 0.95,
                 nesterov: bool = True,
                 ns_coefficients: tuple[float, float, float] = (DEFAULT_A, DEFAULT_B, DEFAULT_C),
                 eps: float = EPS, ns_steps: int = DEFAULT_NS_STEPS, adjust_lr_fn: str | None = None) -> None:
        check_tensor_lr(lr)
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn is not None and adjust_lr_fn not in ["original", "match_rms_adamw"]:
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = dict(lr=lr, weight_decay=weight_decay, momentum=momentum, nesterov=nesterov,
                        ns_coefficients=ns_coefficients, eps=eps, ns_steps=ns_steps, adjust_lr_fn=adjust_lr_fn)
        super().__init__(params, defaults)

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        super().add_param_group(param_group)
        for p in self.param_groups[-1]["params"]:
            if p.dim() != 2:
                self.param_groups.pop()
                raise ValueError("Muon only supports 2D parameters whereas we found a parameter with size: "
                                 f"{tuple(p.shape)}")

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One Muon update of every parameter that has a gradient; returns the closure's loss."""
        loss = self._evaluate(closure)
        with no_grad():
            for group in self.param_groups:
                self._update_group(group)
        return loss

    def _update_group(self, group: dict[str, Any]) -> None:
        lr, weight_decay, momentum = float(group["lr"]), float(group["weight_decay"]), float(group["momentum"])
        for p in group["params"]:
            if p.grad is None:
                continue
            grad = p.grad
            if grad.dim() != 2:
                raise ValueError("Param gradient must be a 2D matrix")
            state = self.state[p]
            if "momentum_buffer" not in state:
                state["momentum_buffer"] = zeros_like(grad)
            buf = state["momentum_buffer"]
            buf.lerp_(grad, 1 - momentum)
            update = grad.lerp(buf, momentum) if group["nesterov"] else buf
            update = zeropower_via_newtonschulz(update, group["ns_coefficients"], group["ns_steps"], group["eps"])
            adjusted_lr = adjust_lr(lr, group["adjust_lr_fn"], tuple(p.shape))
            p.mul_(1 - lr * weight_decay)
            p.add_(update, alpha=-adjusted_lr)
