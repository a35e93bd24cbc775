"""aakaar: a deep-learning library you can read, built chapter by chapter in the aakaar book.

The compiled core (``aakaar._C``) holds the tensors and every kernel; this
package gives it a PyTorch-like Python surface.
"""

from __future__ import annotations

from typing import Any

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
from .size import Size  # noqa: F401,E402  (the type of Tensor.shape, as torch.Size)
from . import autograd, cuda  # noqa: F401
from .autograd import enable_grad, is_grad_enabled, no_grad, set_grad_enabled  # noqa: F401
from ._tensor import install_methods as _install_methods
from . import functional_ops as _functional_ops  # noqa: E402
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
from . import everyday_ops as _everyday_ops  # noqa: E402
from .everyday_ops import *  # noqa: F401,F403,E402
from . import linalg, special, tensor_api as _tensor_api  # noqa: E402,F401
_everyday_ops.install()
_tensor_api.install()
linalg.install()
globals().update(linalg.TOP_LEVEL)
lu_unpack = linalg.lu_unpack
from . import tensor_extras as _tensor_extras  # noqa: E402
from .tensor_extras import *  # noqa: F401,F403,E402
_tensor_extras.install()
from .tensor_api import empty_strided  # noqa: E402,F401
from ._C import celu, celu_, hardshrink, selu, selu_, threshold, threshold_  # noqa: E402,F401
Tensor.hardshrink = lambda self, lambd=0.5: _C.hardshrink(self, lambd)
Tensor.hardshrink.__doc__ = "x outside [-lambd, lambd], 0 inside."
from .special import mvlgamma  # noqa: E402,F401


def polygamma(n: int, input: Tensor) -> Tensor:
    """The n-th derivative of digamma of ``input`` (torch's argument order: n first)."""
    return input.polygamma(n)


def _mvlgamma_(self: Tensor, p: int) -> Tensor:
    """In-place mvlgamma; returns self."""
    return self.copy_(mvlgamma(self, p))


Tensor.mvlgamma = mvlgamma
Tensor.mvlgamma_ = _mvlgamma_


def is_signed(input: Tensor) -> bool:
    """Whether the dtype holds negative values (False for bool and uint8)."""
    return input.dtype.is_signed


def get_device(input: Tensor) -> int:
    """-1 for a CPU tensor, else the CUDA device's index."""
    return input.get_device()


def adjoint(input: Tensor) -> Tensor:
    """The transpose of the last two dims (aakaar's dtypes are real)."""
    return input.adjoint()


def matrix_rank(input: Tensor, tol: Any = None, symmetric: bool = False) -> Tensor:
    """linalg.matrix_rank (torch's older name)."""
    return linalg.matrix_rank(input, tol=tol, hermitian=symmetric)


def rsub(input: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    """``other - alpha * input``."""
    # other - alpha * input in one subtraction: negating first would wrap unsigned inputs (uint8) and
    # skip torch's refusal of bool subtraction.
    if isinstance(other, Tensor):
        return other.sub(input, alpha=alpha)
    return (input * alpha if alpha != 1 else input).__rsub__(other)


def scalar_tensor(s: Any, *, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """A 0-d tensor holding s (the default floating dtype unless told)."""
    out = full([], s, dtype=dtype or get_default_dtype(), device=device)
    return out.requires_grad_() if requires_grad else out


def get_default_dtype() -> dtype:
    """The default floating dtype: float32 unless :func:`set_default_dtype` changed it."""
    return _C._get_default_dtype()


from .random import get_rng_state, initial_seed, seed, set_rng_state  # noqa: E402,F401


def can_cast(from_: dtype, to: dtype) -> bool:
    """torch.can_cast: False from floating to integral or bool, and from integral to bool."""
    if from_.is_floating_point and not to.is_floating_point:
        return False
    return not (from_ != bool and to == bool)


for _n in ("deg2rad_", "rad2deg_", "gcd_", "lcm_", "ldexp_", "logit_", "sinc_", "xlogy_", "clamp_min_",
           "clamp_max_", "as_strided_", "addmv_", "index_put_", "polygamma_"):
    globals()[_n] = _functional_ops._make(_n)  # aakaar.deg2rad_(t) is t.deg2rad_()
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
from . import backends, distributions, func, random, utils  # noqa: E402,F401
from .autograd import functional as _autograd_functional  # noqa: E402,F401  (aakaar.autograd.functional)
from .autograd.grad_mode import inference_mode, is_inference_mode_enabled  # noqa: E402,F401
from .func import vmap  # noqa: E402,F401
from . import integer_matmul as _integer_matmul  # noqa: E402

_integer_matmul.install(globals())  # integer mm/bmm/mv/dot/matmul, as torch computes them on the CPU
from . import memory_formats as _memory_formats  # noqa: E402
from .memory_formats import (channels_last, channels_last_3d, contiguous_format, memory_format,  # noqa: E402,F401
                            preserve_format)

_memory_formats.install()
from .random import manual_seed  # noqa: E402,F401  (returns the generator, as torch)
from . import testing  # noqa: E402,F401  (torch.testing: assert_close, make_tensor)

# torch's top-level functional forms (torch.conv2d, torch.dropout(input, p, train), torch.batch_norm, ...):
# their own signatures, mapped onto aakaar.nn.functional (so imported after nn).
from .torch_compat_functional import *  # noqa: E402,F401,F403
# torch's global switches (print options, determinism flags, default device, compile, ...) and its
# remaining everyday functions (conj/real of real tensors, asarray, windows, *_copy views, geqrf, ...).
from .torch_compat_config import *  # noqa: E402,F401,F403
from .torch_compat_ops import *  # noqa: E402,F401,F403
# More of torch.Tensor's surface (layout, register_post_accumulate_grad_hook, dim_order, set_, ...).
from . import tensor_compat as _tensor_compat  # noqa: E402
from .tensor_compat import layout, strided  # noqa: E402,F401
_tensor_compat.install()

# torch's constants (torch.pi, torch.e, torch.inf, torch.nan are Python floats; torch.newaxis is None).
# Set last, so that no star import above can shadow them.
import math as _math  # noqa: E402

pi = _math.pi
e = _math.e
inf = _math.inf
nan = _math.nan
newaxis = None

# Automatic mixed precision (torch.autocast, torch.amp, torch.cpu.amp): installed last, so that its
# wrappers reach every module that exports a listed op (aakaar/amp/autocast_lists.py).
from . import amp, cpu  # noqa: E402,F401
from .amp.autocast_mode import (autocast, clear_autocast_cache, get_autocast_cpu_dtype,  # noqa: E402,F401
                                get_autocast_dtype, is_autocast_cache_enabled, is_autocast_cpu_enabled,
                                is_autocast_enabled, set_autocast_cpu_dtype, set_autocast_cpu_enabled,
                                set_autocast_dtype, set_autocast_enabled, autocast_increment_nesting,
                                autocast_decrement_nesting)
from .amp import autocast_lists as _autocast_lists  # noqa: E402

_autocast_lists.install()

# torch's out= on the top-level functions; last, so it wraps each function's final form.
from . import out_arg as _out_arg  # noqa: E402

_out_arg.install(globals())
