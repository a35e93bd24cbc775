"""Matrix products of integer tensors (``mm``, ``bmm``, ``mv``, ``dot``, ``matmul``, ``@``), which
PyTorch computes on the CPU and aakaar's GEMM (chapter 6, float32/float64 only) does not.

They are composed from the library's own elementwise multiply and sum, a block of the shared
dimension at a time so the products in flight stay small, with PyTorch's arithmetic: products and
sums wrap around in the operands' dtype (the sum is taken in int64 and cast back, which wraps the
same way). No integer GEMM kernel: exact, not fast. Float operands go to the GEMM as before.
"""

from __future__ import annotations

from typing import Any, Callable

from ._C import Tensor

__all__: list[str] = []

_BLOCK_ELEMENTS = 1 << 22  # products held at once (per block of the shared dimension)


def _is_integer(t: Any) -> bool:
    return isinstance(t, Tensor) and not t.dtype.is_floating_point and str(t.dtype) != "aakaar.bool"


def _product(a: Tensor, b: Tensor) -> Tensor:
    """a (..., M, K) @ b (..., K, N), batch dims broadcast, in a's integer dtype."""
    K = a.shape[-1]
    M, N = a.shape[-2], b.shape[-1]
    batch = max(1, a.numel() // max(1, M * K)) * max(1, b.numel() // max(1, K * N))
    step = max(1, _BLOCK_ELEMENTS // max(1, batch * M * N))
    total = None
    for k0 in range(0, K, step):
        k1 = min(K, k0 + step)
        part = (a[..., :, k0:k1].unsqueeze(-1) * b[..., k0:k1, :].unsqueeze(-3)).sum(-2)
        total = part if total is None else total + part
    if total is None:  # K == 0: zeros of the output's shape
        total = (a[..., :, :1].unsqueeze(-1) * b[..., :1, :].unsqueeze(-3)).sum(-2) * 0
    return total.to(a.dtype)


def _check_same_dtype(a: Tensor, b: Tensor, what: str) -> None:
    if a.dtype != b.dtype:
        raise RuntimeError(f"{what}: expected m1 and m2 to have the same dtype, but got: {a.dtype} != {b.dtype}")


def int_matmul(a: Tensor, b: Tensor) -> Tensor:
    """matmul's rules (1-d operands promoted and the added dim removed, batch dims broadcast)."""
    _check_same_dtype(a, b, "matmul")
    if a.ndim == 0 or b.ndim == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {a.ndim}D and {b.ndim}D")
    if a.ndim == 1 and b.ndim == 1:
        return int_dot(a, b)
    a2 = a.unsqueeze(0) if a.ndim == 1 else a
    b2 = b.unsqueeze(-1) if b.ndim == 1 else b
    if a2.shape[-1] != b2.shape[-2]:
        if b.ndim == 1:
            raise RuntimeError(f"size mismatch, got input ({a2.shape[-2]}), mat ({a2.shape[-2]}x{a2.shape[-1]}), "
                               f"vec ({b.shape[0]})")
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a2.shape[-2]}x{a2.shape[-1]} and "
                           f"{b2.shape[-2]}x{b2.shape[-1]})")
    out = _product(a2, b2)
    if a.ndim == 1:
        out = out.squeeze(-2)
    if b.ndim == 1:
        out = out.squeeze(-1)
    return out


def int_dot(a: Tensor, b: Tensor) -> Tensor:
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    if a.shape[0] != b.shape[0]:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src [{b.shape[0]}] to have "
                           "the same number of elements, but got "
                           f"{a.shape[0]} and {b.shape[0]} elements respectively")
    _check_same_dtype(a, b, "dot")
    return (a * b).sum().to(a.dtype)


def int_mm(a: Tensor, b: Tensor) -> Tensor:
    if a.ndim != 2 or b.ndim != 2:
        raise RuntimeError(f"self must be a matrix" if a.ndim != 2 else "mat2 must be a matrix")
    return int_matmul(a, b)


def int_bmm(a: Tensor, b: Tensor) -> Tensor:
    if a.ndim != 3 or b.ndim != 3:
        raise RuntimeError(f"batch1 must be a 3D tensor" if a.ndim != 3 else "batch2 must be a 3D tensor")
    if a.shape[0] != b.shape[0]:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got {a.shape[0]} and {b.shape[0]}")
    return int_matmul(a, b)


def int_mv(a: Tensor, b: Tensor) -> Tensor:
    if a.ndim != 2 or b.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {a.ndim}, {b.ndim}")
    return int_matmul(a, b)


def _routed(original: Callable[..., Tensor], integer: Callable[[Tensor, Tensor], Tensor]) -> Callable[..., Tensor]:
    """original, except that two integer tensors go to the integer product."""

    def product(a: Any, b: Any, *args: Any, **kwargs: Any) -> Tensor:
        if _is_integer(a) and _is_integer(b) and not args and not kwargs:
            return integer(a, b)
        return original(a, b, *args, **kwargs)

    product.__name__ = product.__qualname__ = getattr(original, "__name__", integer.__name__)
    product.__doc__ = original.__doc__
    return product


def install(namespace: dict[str, Any]) -> None:
    """Routes integer operands of the matrix products, in the aakaar namespace and on Tensor."""
    for name, integer in (("matmul", int_matmul), ("mm", int_mm), ("bmm", int_bmm), ("mv", int_mv),
                          ("dot", int_dot)):
        if name in namespace:
            namespace[name] = _routed(namespace[name], integer)
        if hasattr(Tensor, name):
            setattr(Tensor, name, _routed(getattr(Tensor, name), integer))
    Tensor.__matmul__ = _routed(Tensor.__matmul__, int_matmul)
    original_rmatmul = Tensor.__rmatmul__ if hasattr(Tensor, "__rmatmul__") else None
    if original_rmatmul is not None:
        Tensor.__rmatmul__ = _routed(original_rmatmul, lambda a, b: int_matmul(b, a))
