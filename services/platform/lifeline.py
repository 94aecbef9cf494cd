"""No process outlives the one that started it: ``die_with_parent()`` asks the kernel (Linux,
``PR_SET_PDEATHSIG``) to send this process SIGTERM when its parent dies, so a supervisor killed
outright (SIGKILL) leaves no child serving on unsupervised, and a worker killed outright leaves
no RQ scheduler behind. Elsewhere it does nothing: ``omerta run``'s pid file
(``api.serving.leftovers``) still finds what was left.

Call it in the child, between fork and exec (``preexec_fn``) or right after a fork
(``os.register_at_fork``). The signal follows the death of the parent *thread* that forked:
fork from the main thread."""

from __future__ import annotations

import ctypes
import os
import signal
import sys

PR_SET_PDEATHSIG = 1

_libc = ctypes.CDLL(None, use_errno=True) if sys.platform == "linux" else None


def die_with_parent(parent: int) -> None:
    """SIGTERM to this process when its parent dies; at once if ``parent`` (the pid of the
    parent that forked it) is gone already, before the request took effect."""
    if _libc is None:
        return
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != parent:
        os.kill(os.getpid(), signal.SIGTERM)
