"""``omerta run``'s pid file (``<var>/run.pid``): what an earlier run may have left running.

The file holds, as JSON, the supervisor's and each child's pid with the process's start time
(``/proc/<pid>/stat``, clock ticks since boot): a pid names our process only while a process
with that pid and that start time exists, so a pid reused by an unrelated program is never
signalled. A new run reads it first: if the earlier supervisor still runs, it refuses (naming
the pids); otherwise it stops the children still running (the web server and worker first, the
store last, as an orderly stop would) and starts afresh.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path

STOP_SECONDS = 15.0
SUPERVISOR = "supervisor"
STORE = "store"


def start_time(pid: int) -> int | None:
    """The process's start time (clock ticks since boot); None if no such process."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat.rpartition(")")[2].split()[19])  # field 22; the name may hold spaces


class PidFile:
    def __init__(self, path: Path):
        self.path = path
        self._written: dict[str, int] | None = None

    def write(self, children: dict[str, int]) -> None:
        """Record the supervisor (this process) and ``children`` (name -> pid), if changed."""
        if children == self._written:
            return
        processes = {SUPERVISOR: os.getpid(), **children}
        record = {name: [pid, start_time(pid)] for name, pid in processes.items()}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.path.with_suffix(".tmp")
        temporary.write_text(json.dumps(record))
        temporary.replace(self.path)
        self._written = dict(children)

    def remove(self) -> None:
        self.path.unlink(missing_ok=True)

    def alive(self) -> dict[str, int]:
        """The recorded processes that still run (name -> pid), checked by start time."""
        try:
            record = json.loads(self.path.read_text())
        except (OSError, ValueError):
            return {}
        return {
            name: pid
            for name, (pid, began) in record.items()
            if began is not None and start_time(pid) == began
        }

    def clear_leftovers(self, say: Callable[[str], None]) -> str | None:
        """Stop what an earlier run left; a refusal (naming the pids) if that run still goes."""
        alive = self.alive()
        named = ", ".join(f"{name} {pid}" for name, pid in alive.items())
        if SUPERVISOR in alive:
            return (
                f"another omerta run uses {self.path.parent} ({named}): stop it first "
                f"(Ctrl-C in its terminal, or kill {alive[SUPERVISOR]})"
            )
        if not alive:
            return None
        say(f"stopping what an earlier run left running: {named}")
        clients = [pid for name, pid in alive.items() if name != STORE]
        _stop(clients)
        _stop([alive[STORE]] if STORE in alive else [])
        self.remove()
        return None


def _stop(pids: list[int]) -> None:
    """SIGTERM to each process's group (a child leads its own: gunicorn's workers go too),
    SIGKILL to what still runs after ``STOP_SECONDS``."""
    began = {pid: start_time(pid) for pid in pids}
    for pid in pids:
        _signal(pid, signal.SIGTERM)
    deadline = time.monotonic() + STOP_SECONDS
    while time.monotonic() < deadline:
        if all(start_time(pid) != began[pid] for pid in pids):
            return
        time.sleep(0.1)
    for pid in pids:
        if start_time(pid) == began[pid]:
            _signal(pid, signal.SIGKILL)


def _signal(pid: int, signum: int) -> None:
    try:
        os.killpg(pid, signum)
    except OSError:  # not a group leader (or gone already): the process alone
        with contextlib.suppress(OSError):
            os.kill(pid, signum)
