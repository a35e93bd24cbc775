"""Probability distributions with torch.distributions' names, shapes and checks.

Built on aakaar's differentiable ops, so ``log_prob``, ``entropy``, ``rsample`` and
``kl_divergence`` carry gradients back to the parameters through aakaar's autograd.
"""
from . import constraints
from .bernoulli import Bernoulli
from .categorical import Categorical, OneHotCategorical
from .distribution import Distribution
from .normal import LogNormal, Normal
from .uniform import Uniform

__all__ = ["Bernoulli", "Categorical", "Distribution", "LogNormal", "Normal", "OneHotCategorical",
           "Uniform", "constraints"]
