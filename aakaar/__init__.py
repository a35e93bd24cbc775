"""aakaar: a deep-learning library you can read, built chapter by chapter in the aakaar book.

The compiled core (``aakaar._C``) holds the tensors and every kernel; this
package gives it a PyTorch-like Python surface.
"""

from __future__ import annotations

from . import _C
from ._C import (  # noqa: F401  (re-exported API)
    ArgumentError,
    DTypeError,
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
from .creation import (  # noqa: F401
    as_tensor, empty_like, full_like, ones_like, rand_like, randint_like, randn_like, tensor, zeros_like,
)
from .serialization import load, save  # noqa: F401
from . import _arg_aliases, _math_ops

_install_methods()
from . import shape_ops as _shape_ops  # noqa: E402
from .shape_ops import *  # noqa: F401,F403,E402
_shape_ops.install()
from .contraction_ops import *  # noqa: F401,F403,E402
from . import shape_extras as _shape_extras  # noqa: E402
from .shape_extras import *  # noqa: F401,F403,E402
_shape_extras.install()
_math_ops.install()
_arg_aliases.install()  # after _install_methods: max and min are Python methods
cat = _arg_aliases.accept_numpy_names(cat)
stack = _arg_aliases.accept_numpy_names(stack)
dtype.__repr__ = dtype.__str__ = lambda self: f"aakaar.{self.name}"

bool = dtype.bool  # noqa: A001  (torch-style names shadow builtins inside the package namespace only)
uint8 = dtype.uint8
int8 = dtype.int8
int16 = dtype.int16
short = dtype.int16
int32 = dtype.int32
int = dtype.int32  # noqa: A001  (torch.int is int32, as here)
int64 = dtype.int64
long = dtype.int64
float16 = dtype.float16
half = dtype.float16
bfloat16 = dtype.bfloat16
float32 = dtype.float32
float = dtype.float32  # noqa: A001
float64 = dtype.float64
double = dtype.float64

from ._dtype_info import finfo, iinfo  # noqa: E402,F401

# PyTorch names of dtypes aakaar does not have: asking for one says so.
_MISSING_DTYPES = {
    "cfloat": "complex64", "complex64": "complex64", "cdouble": "complex128", "complex128": "complex128",
    "chalf": "complex32", "complex32": "complex32", "uint16": "uint16", "uint32": "uint32", "uint64": "uint64",
}


def __getattr__(name: str):
    if name in _MISSING_DTYPES:
        raise AttributeError(
            f"module 'aakaar' has no attribute '{name}': aakaar has no {_MISSING_DTYPES[name]} dtype yet "
            "(its dtypes are bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32 and float64)"
        )
    raise AttributeError(f"module 'aakaar' has no attribute '{name}'")

__version__ = "0.1.0"


def empty_cache() -> None:
    """Returns the CPU allocator's cached blocks to the system (see ``aakaar._C.cpu_allocator_stats``)."""
    _C.empty_cache()


def default_generator() -> Generator:
    """The generator used when no ``generator=`` is given."""
    return _C.default_generator()


# The subpackages, reachable after `import aakaar` as torch.nn is after `import
# torch`. Imported last: each of them imports from the names defined above.
# (aakaar.nn imports aakaar.nn.functional and aakaar.nn.init.)
from . import data, nn, optim, profiler  # noqa: E402,F401
