"""Optimizers: the ``torch.optim`` of aakaar.

``Optimizer`` (optimizer.py) keeps PyTorch's interface: ``param_groups``,
per-parameter ``state``, ``zero_grad``, ``step(closure)``, ``state_dict`` /
``load_state_dict``, ``add_param_group`` and the step and state-dict hooks.

SGD, Adam, AdamW, Adagrad, RMSprop, Adamax, NAdam, RAdam and Adadelta (fused.py),
Rprop, ASGD and Adafactor (fused_extra.py), and Lion and LAMB (fused_extra.py; not in
torch.optim: as their papers define them) update all the parameters of a group in
one native call: one fused multi-tensor kernel, vectorised and threaded
(csrc/cpu/fused/optimizer.cpp, optimizer_layerwise.cpp; on "cuda" a multi-tensor launch
per up to 24 parameters, csrc/cuda/optimizer_ops.cu, with the CPU's bits). LBFGS (lbfgs.py) and Muon
(muon.py) are Python over aakaar tensors, as PyTorch's are: their work is dot products
on the flat parameter vector (LBFGS) and matrix products (Muon's Newton–Schulz
iteration), each a native call.

The four flags PyTorch's optimizers take, and what they mean here:

- ``foreach=`` and ``fused=``: accepted wherever PyTorch accepts them, for compatibility, and
  they change nothing. In PyTorch they choose between a Python loop over the parameters (the
  default on the CPU), one multi-tensor ("foreach") kernel per operation, and one fused kernel
  per step; here every step is already one native multi-tensor call (PyTorch's ``fused=True``
  in spirit), doing PyTorch's single-tensor arithmetic in its order of operations. The
  refusals PyTorch makes with ``differentiable=True`` are kept (below).
- ``differentiable=True`` (SGD, Adam, AdamW, Adagrad, RMSprop, Adamax, NAdam, RAdam, Adadelta,
  Rprop, ASGD: those of torch.optim that take it): the step is recorded by autograd, so a loss
  of the updated parameters can be differentiated with respect to earlier parameters and
  gradients, the state, and hyper-parameters given as tensors (``lr``; Adam's ``betas`` and
  ``weight_decay``). The fused native step cannot be recorded, so such a group runs a step
  composed of aakaar's autograd ops, PyTorch's single-tensor code with grad mode on
  (differentiable.py), a Python loop over the parameters: slower, and only when asked for.
  On "cuda" the same ops run on the device (the step counters stay on the host, as PyTorch's
  without capturable=True).
  The parameters are then non-leaf tensors (clones of leaves): a leaf that requires grad cannot
  be updated in place while autograd records (RuntimeError, as in PyTorch). As PyTorch:
  ``fused=True`` with it is a RuntimeError, ``foreach=True`` an AssertionError at the step
  (SGD excepted), and Adagrad, RMSprop, Adamax, Adadelta and Rprop take ``lr`` as a number
  (an ``lr`` tensor that requires grad is a TypeError).
- ``capturable=True`` (where PyTorch takes it: Adam, AdamW, Adamax, NAdam, RAdam, RMSprop,
  Adadelta, Rprop, ASGD): the step must never wait on the host, so that it can be captured in a
  CUDA graph. As in PyTorch, each parameter's ``state["step"]`` is then a 0-d float32 tensor on
  the parameter's device (NAdam's ``mu_product``, ASGD's ``eta`` and ``mu`` too), and the step
  increments it there; the bias corrections and the other numbers that depend on it are worked
  out on the device, per parameter, by the same arithmetic the host uses otherwise
  (csrc/core/optimizer_math.h, csrc/cuda/optimizer_ops.cu), so the results equal the
  non-capturable step's. An ``lr`` tensor on the device is read there. ``load_state_dict``
  moves the counters where the loaded groups' flag says (the device with capturable=True, as
  PyTorch moves ``step``; the CPU without). PyTorch refuses CPU parameters, and counters left
  on the CPU, at the step with an AssertionError, and so does aakaar; capturable=True with
  differentiable=True is a NotImplementedError (the recorded step counts on the host).

float16 and bfloat16 parameters (``model.to(aakaar.bfloat16)``, ``model.half()``) are stepped as
PyTorch steps them: their state is kept in their dtype (``exp_avg`` etc. are made like the
parameter; the step counters stay float32), float32 and 16-bit parameters may share an optimizer and
a group, and ``state_dict`` / ``load_state_dict`` keep the dtypes. The arithmetic follows the
library's rule for 16-bit floats: the op (csrc/ops/optimizer.cpp) hands the float32 kernel float32
copies of the parameter, its gradient and its state, and rounds the results once to the 16-bit dtype,
as PyTorch's fused kernels do (its default loop rounds after every operation: the two differ by a
few units in the last place over a run, tests/optim/test_optimizer_16bit.py). A
``differentiable=True`` step is composed of autograd ops in the parameter's dtype, each rounding as
PyTorch's recorded loop does; LBFGS keeps its scalars in float32 for 16-bit parameters.

Non-finite gradients are applied as PyTorch applies them: a NaN or inf gradient makes
the state and the parameter NaN or inf in the same places (Rprop's sign of NaN is 0,
as torch.sign's).

``aakaar.optim.lr_scheduler`` (lr_scheduler.py) holds PyTorch's learning-rate
schedulers (StepLR, CosineAnnealingLR, OneCycleLR, ReduceLROnPlateau, ...),
written for aakaar; their learning rates equal PyTorch's bit for bit.
"""

from . import lr_scheduler  # noqa: F401
from .fused import SGD, Adadelta, Adagrad, Adam, Adamax, AdamW, NAdam, RAdam, RMSprop  # noqa: F401
from .fused_extra import ASGD, LAMB, Adafactor, Lion, Rprop  # noqa: F401
from .lbfgs import LBFGS  # noqa: F401
from .muon import Muon  # noqa: F401
from .optimizer import Optimizer, register_optimizer_step_post_hook, register_optimizer_step_pre_hook  # noqa: F401

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "Adagrad", "RMSprop", "Adamax", "NAdam", "RAdam", "Adadelta",
           "Rprop", "ASGD", "Adafactor", "LBFGS", "Muon", "Lion", "LAMB",
           "register_optimizer_step_pre_hook", "register_optimizer_step_post_hook", "lr_scheduler"]
