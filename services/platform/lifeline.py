"""Processes tied to their supervisor both ways.

No process outlives the one that started it: ``die_with_parent()`` asks the kernel (Linux,
``PR_SET_PDEATHSIG``) to send this process SIGTERM when its parent dies, so a supervisor killed
outright (SIGKILL) leaves no child serving on unsupervised, and a worker killed outright leaves
no RQ scheduler behind. Elsewhere it does nothing: ``omerta run``'s pid file
(``api.serving.leftovers``) still finds what was left.

Call it in the child, between fork and exec (``preexec_fn``) or right after a fork
(``os.register_at_fork``). The signal follows the death of the parent *thread* that forked:
fork from the main thread.

No hung child goes unnoticed: a ``Heartbeat`` touches a file every second from a thread of its
own, which a stopped or frozen process (SIGSTOP, a machine starved for minutes) stops doing;
``touched_at`` tells its supervisor when it last did (``api.serving.supervisor`` kills and
restarts a child silent past ``OMERTA_CHILD_STALE_SECONDS``)."""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import threading
import time
from pathlib import Path

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


BEAT_EVERY = 1.0  # seconds between a heartbeat's touches of its file


class Heartbeat:
    """Touches ``path`` every ``BEAT_EVERY`` seconds from a daemon thread, from ``start()`` on."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def start(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._touch()
        threading.Thread(target=self._run, name="omerta-heartbeat", daemon=True).start()

    def _run(self) -> None:
        while True:
            time.sleep(BEAT_EVERY)
            self._touch()

    def _touch(self) -> None:
        with contextlib.suppress(OSError):  # a full disk: the supervisor sees silence, restarts
            self.path.touch()


def touched_at(path: Path) -> float | None:
    """When the heartbeat at ``path`` last touched its file (``time.time()``), if ever."""
    try:
        return path.stat().st_mtime
    except FileNotFoundError:
        return None
