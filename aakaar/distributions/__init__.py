"""Probability distributions with torch.distributions' names, shapes and checks.

Built on aakaar's differentiable ops, so ``log_prob``, ``entropy``, ``rsample`` and
``kl_divergence`` carry gradients back to the parameters through aakaar's autograd.
"""
from . import constraints
from .bernoulli import Bernoulli
from .categorical import Categorical, OneHotCategorical
from .distribution import Distribution
from .exponential import Exponential, Laplace
from .independent import Independent
from .kl import kl_divergence, register_kl
from .multivariate_normal import MultivariateNormal
from .normal import LogNormal, Normal
from .uniform import Uniform

__all__ = ["Bernoulli", "Categorical", "Distribution", "Exponential", "Independent", "Laplace", "LogNormal",
           "MultivariateNormal", "Normal", "OneHotCategorical", "Uniform", "constraints", "kl_divergence",
           "register_kl"]
