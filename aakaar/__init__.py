"""aakaar: a deep-learning library you can read, built chapter by chapter in the aakaar book.

The compiled core (``aakaar._C``) holds the tensors and every kernel; this
package gives it a PyTorch-like Python surface.
"""

from __future__ import annotations

from . import _C
from ._C import (  # noqa: F401  (re-exported API)
    Generator,
    Tensor,
    arange,
    bernoulli,
    bmm,
    broadcast_shapes,
    cat,
    device,
    dtype,
    empty,
    eye,
    from_dlpack,
    from_numpy,
    full,
    get_num_threads,
    linspace,
    manual_seed,
    matmul,
    mm,
    ones,
    promote_types,
    rand,
    randint,
    randn,
    randperm,
    result_type,
    set_num_threads,
    stack,
    where,
    zeros,
)
from . import autograd, cuda  # noqa: F401
from .autograd import enable_grad, is_grad_enabled, no_grad, set_grad_enabled  # noqa: F401
from ._tensor import install_methods as _install_methods
from .functional_ops import *  # noqa: F401,F403
from .creation import tensor, as_tensor, zeros_like, ones_like, full_like, empty_like, rand_like, randn_like  # noqa: F401
from .serialization import load, save  # noqa: F401

_install_methods()
dtype.__repr__ = dtype.__str__ = lambda self: f"aakaar.{self.name}"

bool = dtype.bool  # noqa: A001  (torch-style names shadow builtins inside the package namespace only)
uint8 = dtype.uint8
int64 = dtype.int64
long = dtype.int64
float32 = dtype.float32
float = dtype.float32  # noqa: A001
float64 = dtype.float64
double = dtype.float64

__version__ = "0.1.0"


def empty_cache() -> None:
    """Returns the CPU allocator's cached blocks to the system (see ``aakaar._C.cpu_allocator_stats``)."""
    _C.empty_cache()


def default_generator() -> Generator:
    """The generator used when no ``generator=`` is given."""
    return _C.default_generator()
