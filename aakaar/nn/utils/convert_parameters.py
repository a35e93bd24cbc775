"""Parameters as one flat vector and back (``parameters_to_vector``, ``vector_to_parameters``)."""

from __future__ import annotations

from typing import Iterable

from ... import _C
from ..._C import Tensor
from ...autograd import no_grad


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """All parameters flattened and concatenated, in iteration order (differentiable, as torch's)."""
    return _C.cat([p.reshape(-1) for p in parameters], 0)


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Copies consecutive slices of ``vec`` into the parameters (the inverse of ``parameters_to_vector``)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    offset = 0
    with no_grad():
        for p in parameters:
            n = p.numel()
            p.copy_(vec.narrow(0, offset, n).reshape(list(p.shape)))
            offset += n
