"""``Optimizer``: the base class of every optimizer, as ``torch.optim.Optimizer``.

An optimizer holds ``param_groups`` (a list of dicts: ``"params"`` and the
group's hyper-parameters) and ``state`` (per parameter: step counters and
buffers, all aakaar tensors). Subclasses implement ``step``; the elementwise
ones hand each group to one native call (``_fused_step``), which updates
every parameter of the group in one fused multi-tensor kernel
(csrc/cpu/fused/optimizer.cpp): no Python loop over the parameters.

``state_dict()`` / ``load_state_dict()`` follow PyTorch's format (parameters
named by their index across the groups), so that save, load and resume gives
bit-identical training.
"""

from __future__ import annotations

import copy
import itertools
from collections import OrderedDict
from collections.abc import Iterator, MutableMapping
from typing import Any, Callable, Iterable

from .. import _C
from .._C import Tensor
from ..autograd import enable_grad

__all__ = ["Optimizer", "required", "RemovableHandle", "register_optimizer_step_pre_hook",
           "register_optimizer_step_post_hook"]


class _RequiredParameter:
    """Singleton for a hyper-parameter a group must give (like torch.optim.optimizer.required)."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


class RemovableHandle:
    """What ``register_*_hook`` returns: ``handle.remove()`` unregisters the hook."""

    _ids = itertools.count()

    def __init__(self, hooks: dict) -> None:
        self._hooks = hooks
        self.id = next(RemovableHandle._ids)

    def remove(self) -> None:
        self._hooks.pop(self.id, None)

    def __enter__(self) -> "RemovableHandle":
        return self

    def __exit__(self, *args: Any) -> None:
        self.remove()


_global_step_pre_hooks: dict[int, Callable] = OrderedDict()
_global_step_post_hooks: dict[int, Callable] = OrderedDict()


def register_optimizer_step_pre_hook(hook: Callable) -> RemovableHandle:
    """``hook(optimizer, args, kwargs)`` before every optimizer's step (may return new (args, kwargs))."""
    handle = RemovableHandle(_global_step_pre_hooks)
    _global_step_pre_hooks[handle.id] = hook
    return handle


def register_optimizer_step_post_hook(hook: Callable) -> RemovableHandle:
    """``hook(optimizer, args, kwargs)`` after every optimizer's step."""
    handle = RemovableHandle(_global_step_post_hooks)
    _global_step_post_hooks[handle.id] = hook
    return handle


class _ParamState(MutableMapping):
    """``optimizer.state``: a dict keyed by parameter tensors.

    aakaar tensors compare elementwise and so are unhashable (as numpy arrays);
    this mapping keys them by identity, as PyTorch's tensors hash."""

    def __init__(self) -> None:
        self._data: dict[int, tuple[Tensor, Any]] = {}

    def _default(self, key: Tensor) -> dict:
        self._data[id(key)] = (key, {})
        return self._data[id(key)][1]

    def __getitem__(self, key: Tensor) -> Any:
        entry = self._data.get(id(key))
        if entry is None:  # a defaultdict(dict), as torch's optimizer.state
            return self._default(key)
        return entry[1]

    def __setitem__(self, key: Tensor, value: Any) -> None:
        self._data[id(key)] = (key, value)

    def __delitem__(self, key: Tensor) -> None:
        del self._data[id(key)]

    def __contains__(self, key: object) -> bool:
        return id(key) in self._data

    def __iter__(self) -> Iterator[Tensor]:
        return (k for k, _ in self._data.values())

    def __len__(self) -> int:
        return len(self._data)

    def get(self, key: Tensor, default: Any = None) -> Any:
        entry = self._data.get(id(key))
        return default if entry is None else entry[1]

    def __repr__(self) -> str:
        return "{" + ", ".join(f"<param {tuple(k.shape)}>: {v}" for k, v in self._data.values()) + "}"


def _typename(obj: Any) -> str:
    return type(obj).__module__ + "." + type(obj).__qualname__ if not isinstance(obj, Tensor) else "aakaar.Tensor"


def _clone_state_value(value: Any, param: Tensor, key: Any, capturable: bool = False) -> Any:
    """A loaded state value as the optimizer keeps it: tensors copied, cast to the parameter's
    dtype and device. The counters ('step', NAdam's 'mu_product', ASGD's 'eta' and 'mu') keep their
    dtype: PyTorch keeps 'step' but casts the others to the parameter's dtype, and a resumed
    NAdam or ASGD then drifts from an uninterrupted one; here it resumes bit for bit. They go
    where the group's step reads them: with capturable=True to the parameter's device ('step'
    as float32), as PyTorch moves it, else to the CPU (the host reads them each step)."""
    if isinstance(value, Tensor):
        if key in ("step", "mu_product", "eta", "mu"):
            if not capturable:
                return value.to("cpu").clone()
            value = value.to(param.device)
            return (value.to(_C.dtype.float32) if key == "step" else value).clone()
        return value.to(param.device).to(param.dtype).clone()
    if isinstance(value, dict):
        return {k: _clone_state_value(v, param, k, capturable) for k, v in value.items()}
    if isinstance(value, (list, tuple)):  # LBFGS keeps lists of history vectors
        return type(value)(_clone_state_value(v, param, key, capturable) for v in value)
    return copy.deepcopy(value)


class Optimizer:
    """Base class of all optimizers (``torch.optim.Optimizer``'s interface).

    ``params``: an iterable of tensors, or of dicts that each define a parameter
    group (``{"params": [...], "lr": ...}``); ``defaults``: the hyper-parameters a
    group gets when it does not give them."""

    def __init__(self, params: Iterable[Tensor] | Iterable[dict], defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        self._step_pre_hooks: dict[int, Callable] = OrderedDict()
        self._step_post_hooks: dict[int, Callable] = OrderedDict()
        self._state_dict_pre_hooks: dict[int, Callable] = OrderedDict()
        self._state_dict_post_hooks: dict[int, Callable] = OrderedDict()
        self._load_state_dict_pre_hooks: dict[int, Callable] = OrderedDict()
        self._load_state_dict_post_hooks: dict[int, Callable] = OrderedDict()
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, "
                            f"but got {_typename(params)}")
        self.state: _ParamState = _ParamState()
        self.param_groups: list[dict[str, Any]] = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)

    # ---- hooks: every subclass's step runs its hooks around it ------------------------------

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        step = cls.__dict__.get("step")
        if step is not None and not getattr(step, "_with_hooks", False):
            cls.step = _with_step_hooks(step)

    def register_step_pre_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(optimizer, args, kwargs)`` before each step; may return new ``(args, kwargs)``."""
        return self._add_hook(self._step_pre_hooks, hook, False)

    def register_step_post_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(optimizer, args, kwargs)`` after each step."""
        return self._add_hook(self._step_post_hooks, hook, False)

    def register_state_dict_pre_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """``hook(optimizer)`` before ``state_dict()`` builds the dict."""
        return self._add_hook(self._state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """``hook(optimizer, state_dict)`` after; may return a new state_dict."""
        return self._add_hook(self._state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """``hook(optimizer, state_dict)`` before loading; may return the state_dict to load."""
        return self._add_hook(self._load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """``hook(optimizer)`` after loading."""
        return self._add_hook(self._load_state_dict_post_hooks, hook, prepend)

    @staticmethod
    def _add_hook(hooks: dict, hook: Callable, prepend: bool) -> RemovableHandle:
        handle = RemovableHandle(hooks)
        hooks[handle.id] = hook
        if prepend:
            hooks.move_to_end(handle.id, last=False)
        return handle

    # ---- groups -----------------------------------------------------------------------------

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Adds a group (``{"params": ..., hyper-parameters}``); missing hyper-parameters come from defaults."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {_typename(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering "
                            "of tensors in sets will change between runs. Please use a list instead.")
        else:
            param_group["params"] = list(params)
        for p in param_group["params"]:
            if not isinstance(p, Tensor):
                raise TypeError(f"optimizer can only optimize Tensors, but one of the params is {_typename(p)}")
            if not p.is_leaf and not self.defaults.get("differentiable"):
                # differentiable=True updates non-leaf tensors (clones of leaves) so that autograd records the step
                raise ValueError("can't optimize a non-leaf Tensor")
            if not p.dtype.is_floating_point:
                raise TypeError(f"optimizer can only optimize floating-point tensors (float16, bfloat16, float32, "
                                f"float64), but one of the params is {p.dtype}")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            param_group.setdefault(name, default)
        ids = [id(p) for p in param_group["params"]]
        if len(set(ids)) != len(ids):
            raise ValueError("optimizer contains a parameter group with duplicate parameters")
        taken = {id(p) for group in self.param_groups for p in group["params"]}
        if taken & set(ids):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def __repr__(self) -> str:
        lines = [self.__class__.__name__ + " ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            lines += [f"    {k}: {group[k]}" for k in sorted(group) if k != "params"]
        return "\n".join(lines) + "\n)"

    # ---- gradients and steps ------------------------------------------------------------------

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Drops every parameter's gradient (``set_to_none=True``, the default) or sets it to zeros."""
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    g = p.grad
                    if g.grad_fn is not None:
                        g = g.detach()
                        p.grad = g
                    g.zero_()

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One update of every parameter; ``closure`` re-evaluates the model and returns the loss."""
        raise NotImplementedError

    @staticmethod
    def _evaluate(closure: Callable[[], Any] | None) -> Any:
        if closure is None:
            return None
        with enable_grad():
            return closure()

    def _fused_step(self, group: dict[str, Any], step: Any, state_keys: Iterable[str | None],
                    first_step: Callable[[Tensor, dict], None], counted: bool = True, nadam: bool = False,
                    scalar_keys: Iterable[str] = (), capturable: bool = False) -> None:
        """Updates every parameter of ``group`` that has a gradient in one native call.

        ``state_keys``: the state entry of each kernel slot (core/optimizer_math.h), None
        for a slot these options leave unused; ``first_step(p, state)`` creates a
        parameter's state the first time it has a gradient; ``scalar_keys``: the per-parameter
        0-d state tensors the op reads and renews (ASGD's "eta" and "mu"); ``capturable``: the
        counters live on the parameters' device, which renews them (fused._check_capturable)."""
        params, grads = [], []
        for p in group["params"]:
            if p.grad is None:
                continue
            state = self.state[p]
            if len(state) == 0:
                first_step(p, state)
            params.append(p)
            grads.append(p.grad)
        if not params:
            return
        states = [[] if key is None else [self.state[p][key] for p in params] for key in state_keys]
        steps = [self.state[p]["step"] for p in params] if counted else []
        mu_products = [self.state[p]["mu_product"] for p in params] if nadam else []
        scalars = [[self.state[p][key] for p in params] for key in scalar_keys]
        if capturable:
            lr = group["lr"]
            lr = lr if isinstance(lr, Tensor) and lr.device.type != "cpu" else None
            _C._optimizer_step_capturable(step, params, grads, states, steps, mu_products, scalars, lr)
        else:
            _C._optimizer_step(step, params, grads, states, steps, mu_products, scalars)

    # ---- state_dict ---------------------------------------------------------------------------

    def state_dict(self) -> dict[str, Any]:
        """``{"state": {index: {...}}, "param_groups": [{..., "params": [indices]}]}``, PyTorch's
        format: parameters are named by their position across the groups. The state's tensors
        are the optimizer's own (not copies), as in PyTorch; ``aakaar.save`` writes them out."""
        for hook in list(self._state_dict_pre_hooks.values()):
            hook(self)
        index: dict[int, int] = {}
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for p in group["params"]:
                index.setdefault(id(p), len(index))
            packed["params"] = [index[id(p)] for p in group["params"]]
            groups.append(packed)
        state = {index[id(p)]: s for p, s in ((p, self.state.get(p)) for p in self.state) if id(p) in index}
        result = {"state": state, "param_groups": groups}
        for hook in list(self._state_dict_post_hooks.values()):
            out = hook(self, result)
            if out is not None:
                result = out
        return result

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Loads what ``state_dict()`` returned (tensors copied to each parameter's dtype and device)."""
        state_dict = dict(state_dict)
        for hook in list(self._load_state_dict_pre_hooks.values()):
            out = hook(self, state_dict)
            if out is not None:
                state_dict = out
        if "state" not in state_dict or "param_groups" not in state_dict:
            raise ValueError("loaded state dict must have the keys 'state' and 'param_groups'")
        groups = self.param_groups
        saved_groups = copy.deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        for g, sg in zip(groups, saved_groups):
            if len(g["params"]) != len(sg["params"]):
                raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                                 "optimizer's group")
        id_map = dict(zip(itertools.chain.from_iterable(sg["params"] for sg in saved_groups),
                          itertools.chain.from_iterable(g["params"] for g in groups)))
        # As PyTorch, the loaded groups' flags decide where a parameter's step counters go.
        capturable = {k: bool(sg.get("capturable", False)) for sg in saved_groups for k in sg["params"]}
        state = _ParamState()
        for k, v in state_dict["state"].items():
            if k not in id_map:
                raise ValueError(f"loaded state dict holds state for parameter {k!r}, which no group has")
            param = id_map[k]
            state[param] = {key: _clone_state_value(val, param, key, capturable[k]) for key, val in v.items()}
        new_groups = []
        for g, sg in zip(groups, saved_groups):
            sg["params"] = g["params"]
            new_groups.append(sg)
        self.state = state
        self.param_groups = new_groups
        for hook in list(self._load_state_dict_post_hooks.values()):
            hook(self)


def _with_step_hooks(step: Callable) -> Callable:
    """``step`` with the global and the optimizer's pre- and post-hooks run around it."""

    def wrapper(self: Optimizer, *args: Any, **kwargs: Any) -> Any:
        for hook in itertools.chain(list(_global_step_pre_hooks.values()), list(self._step_pre_hooks.values())):
            out = hook(self, args, kwargs)
            if out is not None:
                if not (isinstance(out, tuple) and len(out) == 2):
                    raise RuntimeError(f"{hook} must return None or a tuple of (new_args, new_kwargs), but got {out}.")
                args, kwargs = out
        result = step(self, *args, **kwargs)
        for hook in itertools.chain(list(self._step_post_hooks.values()), list(_global_step_post_hooks.values())):
            hook(self, args, kwargs)
        return result

    wrapper.__name__ = step.__name__
    wrapper.__qualname__ = step.__qualname__
    wrapper.__doc__ = step.__doc__
    wrapper._with_hooks = True  # type: ignore[attr-defined]
    return wrapper


def check_tensor_lr(lr: Any) -> None:
    """A learning rate may be a one-element tensor, as in PyTorch: a scheduler then fills it in place
    and each step reads its value. Any other tensor is a ValueError."""
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
