"""``nn.AdaptiveLogSoftmaxWithLoss``: the softmax of a large vocabulary, cheap for the frequent classes.

The classes are split by ``cutoffs`` into a shortlist (classes ``[0, cutoffs[0])``) and clusters. The
head scores the shortlist plus one entry per cluster; cluster ``i`` has a small two-layer tail (a
projection to ``in_features // div_value ** (i + 1)``, then to the cluster's classes). A class in a
cluster has log-probability ``head[cluster] + tail_i[class]``. The parameter layout (``head.weight``,
``tail.0.0.weight``, ``tail.0.1.weight``, ...) is PyTorch's, so torch weights load as they are.

Instead of PyTorch's in-place ``index_copy_`` into a zero vector, each cluster's log-probabilities are
scattered with ``scatter_add`` (a recorded op), so the whole computation differentiates.
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any, Sequence

import numpy as np

from .. import _C
from .._C import Tensor
from ..creation import tensor
from . import functional as F
from .containers import ModuleList, Sequential
from .layers import Linear
from .module import Module

__all__ = ["AdaptiveLogSoftmaxWithLoss"]

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    """``forward(input, target)`` -> (output, loss): each row's log-probability of its target and
    their negated mean; ``log_prob(input)`` the full (N, n_classes) log-probabilities; ``predict(input)``
    the most likely class of each row."""

    def __init__(self, in_features: int, n_classes: int, cutoffs: Sequence[int], div_value: float = 4.0,
                 head_bias: bool = False, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if (cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > (n_classes - 1)
                or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs)):
            raise ValueError("cutoffs should be a sequence of unique, positive integers sorted in an increasing "
                             "order, where each value is between 1 and n_classes-1")
        kw = {"dtype": dtype}
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, **kw)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hsz = int(in_features // (div_value ** (i + 1)))
            osz = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(Sequential(Linear(in_features, hsz, bias=False, **kw),
                                        Linear(hsz, osz, bias=False, **kw)))
        if device is not None:
            self.to(device)

    def reset_parameters(self) -> None:
        self.head.reset_parameters()
        for i2h, h2o in self.tail:
            i2h.reset_parameters()
            h2o.reset_parameters()

    def forward(self, input_: Tensor, target_: Tensor) -> _ASMoutput:
        targ_dim = target_.ndim
        if targ_dim == 1:
            if input_.shape[0] != target_.shape[0]:
                raise RuntimeError("Input and target should have the same size in the batch dimension.")
            if input_.ndim != 2:
                raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs with size "
                                   f"{list(input_.shape)}")
        elif targ_dim == 0:
            if input_.ndim != 1:
                raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with size "
                                   f"{list(input_.shape)}")
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        is_batched = targ_dim > 0
        input = input_ if is_batched else input_.unsqueeze(0)
        target = np.asarray(target_.detach().cpu().numpy()).reshape(-1).astype(np.int64)
        batch_size = target.shape[0]
        bounds = [0] + self.cutoffs
        if batch_size and (target.min() < 0 or target.max() >= self.n_classes):
            raise RuntimeError(f"Target values should be in [0, {self.n_classes - 1}], but values in range "
                               f"[{target.min()}, {target.max()}] were found. ")
        # The head's column for each row: the target itself in the shortlist, else its cluster's entry.
        cluster = np.searchsorted(np.asarray(self.cutoffs), target, side="right")
        head_column = np.where(cluster == 0, target, self.shortlist_size + cluster - 1)
        output = _C.zeros([batch_size], dtype=input.dtype, device=input.device)
        for i in range(1, len(bounds) - 1):
            rows = np.nonzero(cluster == i)[0]
            if rows.size == 0:
                continue
            rows_t = self._index(rows, input)
            cluster_logprob = F.log_softmax(self.tail[i - 1](input.index_select(0, rows_t)), dim=1)
            local = cluster_logprob.gather(1, self._index(target[rows] - bounds[i], input).unsqueeze(1))
            output = output.scatter_add(0, rows_t, local.squeeze(1))
        head_logprob = F.log_softmax(self.head(input), dim=1)
        output = output + head_logprob.gather(1, self._index(head_column, input).unsqueeze(1)).squeeze(1)
        loss = (-output).mean()
        if not is_batched:
            output = output.squeeze(0)
        return _ASMoutput(output, loss)

    @staticmethod
    def _index(values: np.ndarray, like: Tensor) -> Tensor:
        return tensor(np.ascontiguousarray(values, dtype=np.int64), device=like.device)

    def _get_full_log_prob(self, input: Tensor, head_output: Tensor) -> Tensor:
        head_logprob = F.log_softmax(head_output, dim=1)
        parts = [head_logprob[:, :self.shortlist_size]]
        for i in range(self.n_clusters):
            cluster_logprob = F.log_softmax(self.tail[i](input), dim=1)
            parts.append(cluster_logprob + head_logprob[:, self.shortlist_size + i].unsqueeze(1))
        return _C.cat(parts, 1)

    def log_prob(self, input: Tensor) -> Tensor:
        """The log-probability of every class, (N, n_classes)."""
        return self._get_full_log_prob(input, self.head(input))

    def predict(self, input: Tensor) -> Tensor:
        """The most likely class of each row (the tails are run only for rows whose head's best entry
        is a cluster)."""
        head_output = self.head(input)
        output = head_output.argmax(dim=1)
        not_in_shortlist = output.cpu().numpy() >= self.shortlist_size
        if not not_in_shortlist.any():
            return output
        if not_in_shortlist.all():
            return self.log_prob(input).argmax(dim=1)
        rows = self._index(np.nonzero(not_in_shortlist)[0], input)
        best = self._get_full_log_prob(input.index_select(0, rows), head_output.index_select(0, rows)).argmax(dim=1)
        return output.scatter(0, rows, best)
