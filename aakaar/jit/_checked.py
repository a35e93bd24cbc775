"""Running a learner's first calls in a forked copy of the process, so that a crash or a hang in
their C++ is reported in the notebook instead of killing the kernel silently."""
from __future__ import annotations

import faulthandler
import functools
import os
import signal
import sys
from typing import Callable

from ._build import JitError

DEFAULT_CHECKED_CALLS = 10


class CrashError(JitError):
    """The compiled function crashed (a signal such as SIGSEGV) in the checked copy of the process."""


def checked(fn: Callable, name: str, calls: int = DEFAULT_CHECKED_CALLS) -> Callable:
    """``fn`` whose first ``calls`` calls run first in a forked child: if the child dies by a signal
    (a segfault, an abort), :class:`CrashError` says so and the notebook lives on; if the child
    finishes, the call runs again for real in this process (so writes into tensors happen here).
    While the child runs, Ctrl-C (KeyboardInterrupt) stops it, so an endless loop can be interrupted.
    Without fork (Windows) calls run directly."""
    if not hasattr(os, "fork") or calls <= 0:
        return fn
    left = [calls]

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if left[0] > 0:
            _run_in_child(fn, name, args, kwargs)
            left[0] -= 1
        return fn(*args, **kwargs)

    wrapper.__wrapped__ = fn
    return wrapper


def _run_in_child(fn: Callable, name: str, args: tuple, kwargs: dict) -> None:
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the child: its output is dropped (the real call prints it), its errors too
        try:
            faulthandler.disable()  # the parent reports the crash; no dump of the child's stack
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            os.dup2(devnull, 2)
            fn(*args, **kwargs)
        except BaseException:
            pass  # a Python exception is raised again by the real call
        os._exit(0)
    try:
        _, status = os.waitpid(pid, 0)
    except BaseException:  # KeyboardInterrupt: the learner stops an endless loop
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        raise
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        raise CrashError(
            f"aakaar.jit: {name}(...) crashed with {signal.Signals(sig).name} ({signal.strsignal(sig)}) in a "
            f"checked copy of this process; the notebook is unharmed. The usual causes: an index out of "
            f"the tensor's range (check every stride and bound), a null or dangling pointer, a stack "
            f"overflow from deep recursion.") from None
