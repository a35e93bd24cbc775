"""Optimizers: the ``torch.optim`` of aakaar.

``Optimizer`` (optimizer.py) keeps PyTorch's interface: ``param_groups``,
per-parameter ``state``, ``zero_grad``, ``step(closure)``, ``state_dict`` /
``load_state_dict``, ``add_param_group`` and the step and state-dict hooks.
SGD, Adam, AdamW, Adagrad, RMSprop, Adamax, NAdam, RAdam and Adadelta
(fused.py) update all the parameters of a group in one native call: one fused
multi-tensor kernel, vectorised and threaded (csrc/cpu/fused/optimizer.cpp).

``aakaar.optim.lr_scheduler`` (lr_scheduler.py) holds PyTorch's learning-rate
schedulers (StepLR, CosineAnnealingLR, OneCycleLR, ReduceLROnPlateau, ...),
written for aakaar; their learning rates equal PyTorch's bit for bit.
"""

from . import lr_scheduler  # noqa: F401
from .fused import SGD, Adadelta, Adagrad, Adam, Adamax, AdamW, NAdam, RAdam, RMSprop  # noqa: F401
from .fused_extra import ASGD, LAMB, Adafactor, Lion, Rprop  # noqa: F401
from .lbfgs import LBFGS  # noqa: F401
from .optimizer import Optimizer, register_optimizer_step_post_hook, register_optimizer_step_pre_hook  # noqa: F401

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "Adagrad", "RMSprop", "Adamax", "NAdam", "RAdam", "Adadelta",
           "Rprop", "ASGD", "Adafactor", "LBFGS", "Lion", "LAMB",
           "register_optimizer_step_pre_hook", "register_optimizer_step_post_hook", "lr_scheduler"]
