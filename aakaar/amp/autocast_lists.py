"""The ops autocast casts, as torch's CPU lists (aten/src/ATen/autocast_mode.cpp), and the
installation of their wrappers (autocast_mode._wrap) over every aakaar module that exports them.

lower: cast to the region's dtype (bfloat16/float16); fp32: cast to float32; promote: to the
widest floating input; off: no cast, and none inside either -- for ops torch leaves in their own
dtype (mv, dot, ...) that aakaar computes with a listed one (matmul); lower_open: a module's
forward whose inputs are cast and whose inner ops then cast the weights (nn.LSTM: torch's
mkldnn_rnn_layer is on its list; its RNN and GRU follow from their linears, as here). Names aakaar
does not have are skipped.
"""

from __future__ import annotations

import sys
from typing import Any, Callable

from .._C import Tensor
from .autocast_mode import _wrap

_CONV = ("conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d")
_MATMUL = ("mm", "bmm", "matmul", "addmm", "baddbmm", "addbmm")
_LOSSES = ("mse_loss", "cross_entropy", "nll_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "kl_div",
           "binary_cross_entropy", "binary_cross_entropy_with_logits", "cosine_embedding_loss",
           "margin_ranking_loss", "soft_margin_loss", "hinge_embedding_loss", "poisson_nll_loss",
           "triplet_margin_loss", "multi_margin_loss", "multilabel_margin_loss", "ctc_loss")
_LINALG_FP32 = ("inv", "inv_ex", "cholesky", "cholesky_ex", "svd", "svdvals", "eig", "eigvals", "eigh", "eigvalsh",
                "qr", "solve", "lstsq", "cond", "pinv", "householder_product", "tensorinv", "tensorsolve")
_TOP_FP32 = ("prod", "trace", "cdist", "quantile", "nanquantile", "inverse", "cholesky", "cholesky_inverse",
             "cholesky_solve", "pinverse", "polar", "stft", "lu_solve", "orgqr", "ormqr")


def _pad_in_fp32(input: Any, pad: Any = (), mode: str = "constant", *args: Any, **kwargs: Any) -> bool:
    # reflection_pad1d/2d and replication_pad1d/2d/3d are on torch's float32 list; constant and
    # circular padding are not.
    mode = kwargs.get("mode", mode)
    return mode == "replicate" or (mode == "reflect" and len(pad) <= 4)


def _contracts(equation: Any, *operands: Any) -> bool:
    # torch's einsum reaches bmm (on the list) only when it multiplies two or more operands.
    ops = operands[0] if len(operands) == 1 and isinstance(operands[0], (list, tuple)) else operands
    return len(ops) >= 2


# (module, names, policy, condition)
_LISTS: tuple[tuple[str, tuple[str, ...], str, Callable[..., bool] | None], ...] = (
    ("aakaar", _MATMUL + _CONV + ("prelu",), "lower", None),
    ("aakaar.linalg", ("vecdot", "matmul"), "lower", None),
    ("aakaar.nn.functional", ("linear", "linear_relu", "prelu", "scaled_dot_product_attention") + _CONV, "lower", None),
    ("aakaar.nn.functional", _LOSSES + ("avg_pool3d", "max_pool3d", "adaptive_avg_pool3d", "grid_sample",
                                        "embedding_bag"), "fp32", None),
    ("aakaar.nn.functional", ("pad",), "fp32", _pad_in_fp32),
    ("aakaar", _TOP_FP32, "fp32", None),
    ("aakaar.linalg", _LINALG_FP32, "fp32", None),
    ("aakaar", ("cat", "concat", "concatenate", "stack"), "promote", None),
    ("aakaar", ("einsum",), "lower", _contracts),
    ("aakaar", ("mv", "dot", "vdot", "addmv", "addr"), "off", None),
)
_TENSOR_METHODS = (
    (_MATMUL + ("__matmul__", "__rmatmul__"), "lower"),
    (("prod", "trace", "quantile", "nanquantile", "inverse", "cholesky", "pinverse", "cholesky_inverse",
      "cholesky_solve"), "fp32"),
    (("index_copy",), "promote"),
    (("mv", "dot", "vdot", "addmv", "addr"), "off"),
)

# (module, class, method, policy)
_MODULE_METHODS = (("aakaar.nn", "LSTM", "forward", "lower_open"),)

_installed = False


def install() -> None:
    """Wraps the listed ops wherever aakaar's modules export them (once; later calls do nothing)."""
    global _installed
    if _installed:
        return
    _installed = True
    modules = [m for name, m in list(sys.modules.items())
               if m is not None and (name == "aakaar" or name.startswith("aakaar.")) and not name.startswith("aakaar.amp")]
    # Where each function object is exported: id -> [(module, attribute)].
    exported: dict[int, list[tuple[Any, str]]] = {}
    for m in modules:
        for key, value in list(vars(m).items()):
            if callable(value) and not isinstance(value, type):
                exported.setdefault(id(value), []).append((m, key))
    for modname, names, policy, when in _LISTS:
        module = sys.modules.get(modname)
        if module is None:
            continue
        for name in names:
            original = getattr(module, name, None)
            if original is None or getattr(original, "_autocast_policy", None):
                continue
            wrapper = _wrap(original, policy, when)
            for m, key in exported.get(id(original), [(module, name)]):
                setattr(m, key, wrapper)
    for modname, cls_name, method, policy in _MODULE_METHODS:
        cls = getattr(sys.modules.get(modname), cls_name, None)
        original = getattr(cls, method, None)
        if original is not None and not getattr(original, "_autocast_policy", None):
            setattr(cls, method, _wrap(original, policy))
    for names, policy in _TENSOR_METHODS:
        for name in names:
            original = getattr(Tensor, name, None)
            if original is not None and not getattr(original, "_autocast_policy", None):
                setattr(Tensor, name, _wrap(original, policy))
