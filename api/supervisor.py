"""``omerta run``: one process that starts the whole service on this machine and stops it.

1. The store: ``REDIS_URL`` if set, else the embedded server with its data in ``./var/``
   (``services.config``; the data stays there across restarts).
2. Children, with ``REDIS_URL`` pointing at that store: ``omerta worker`` (RQ: projections
   and AI moves) and ``omerta serve`` (gunicorn on http://127.0.0.1:8000).
3. Ctrl-C or SIGTERM to the supervisor: it stops the children in order (SIGTERM: gunicorn
   finishes the requests in flight, the worker its job), gives them ``STOP_SECONDS``, kills what
   is left, and only then shuts the embedded server down cleanly (AOF flushed). The children
   run in their own process groups and the server with SIGINT blocked, so the terminal's
   Ctrl-C (sent to the whole foreground group) reaches only the supervisor and this order
   holds. If a child dies by itself, the others are stopped too and the exit status is 1, so a
   broken start never looks like a running service.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from types import FrameType

from services.config import embedded_port, settings
from services.embedded import HOST

STOP_SECONDS = 15.0


def store_url() -> str:
    config = settings()
    if config.redis_url:
        return config.redis_url
    # The server inherits the blocked SIGINT (it shuts down on SIGINT otherwise); it is stopped
    # with SHUTDOWN when this process exits (services.config).
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        port = embedded_port(config)
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    return f"redis://{HOST}:{port}/0"


def child(args: Sequence[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "api", *args], env=env, process_group=0)


def supervise(children: dict[str, list[str]], env: dict[str, str]) -> int:
    """Run ``children`` (name -> omerta arguments) until a signal or one of them exits."""
    stopping = False

    def stop(signum: int, frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True

    previous = {s: signal.signal(s, stop) for s in (signal.SIGINT, signal.SIGTERM)}
    running = {name: child(args, env) for name, args in children.items()}
    status = 0
    try:
        while not stopping:
            died = [name for name, proc in running.items() if proc.poll() is not None]
            if died:
                for name in died:
                    print(
                        f"omerta run: {name} exited ({running[name].returncode})", file=sys.stderr
                    )
                status = 1
                break
            time.sleep(0.2)
    finally:
        _stop_all(running)
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    return status


def _stop_all(running: dict[str, subprocess.Popen[bytes]]) -> None:
    for proc in running.values():
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + STOP_SECONDS
    for proc in running.values():
        try:
            proc.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def run(bind: str, web_workers: int | None) -> int:
    url = store_url()
    env = {**os.environ, "REDIS_URL": url}
    serve = ["serve", "--bind", bind]
    if web_workers:
        serve += ["--workers", str(web_workers)]
    print(f"omerta run: store {url}, web http://{bind}/ (Ctrl-C stops everything)", file=sys.stderr)
    return supervise({"worker": ["worker"], "web": serve}, env)
