"""``torch.random``: the default generator's seed and state, and ``fork_rng`` (a block whose random
draws leave the default generator as it was)."""

from __future__ import annotations

import contextlib
from typing import Any, Iterator

from . import _C

__all__ = ["manual_seed", "seed", "initial_seed", "get_rng_state", "set_rng_state", "fork_rng"]


def manual_seed(seed: int) -> _C.Generator:
    """Seeds the default generator (and each CUDA device's, as torch.manual_seed) and returns it."""
    _C.manual_seed(int(seed))
    return _C.default_generator()


def seed() -> int:
    """Seeds the default generator with a non-deterministic number, and returns it."""
    import random as _random

    s = _random.SystemRandom().getrandbits(63)
    manual_seed(s)
    return s


def initial_seed() -> int:
    """The seed of the default generator."""
    return _C.default_generator().initial_seed()


def get_rng_state() -> Any:
    """The default generator's state (for set_rng_state)."""
    return _C.default_generator().get_state()


def set_rng_state(new_state: Any) -> None:
    """Restores the default generator's state (from get_rng_state)."""
    _C.default_generator().set_state(new_state)


@contextlib.contextmanager
def fork_rng(devices: Any = None, enabled: bool = True, _caller: str = "fork_rng",
             _devices_kw: str = "devices", device_type: str = "cuda") -> Iterator[None]:
    """Inside the block, random draws use and advance the default generator as usual; on exit its
    state is restored, so the code after the block draws what it would have drawn without it."""
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)
