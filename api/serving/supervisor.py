"""``omerta run``: one process that starts the whole service on this machine, keeps it running
and stops it.

1. The store: ``REDIS_URL`` if set, else the embedded server with its data in ``./var/``
   (``services.platform.servers``; the data stays there across restarts).
2. Children, with ``REDIS_URL`` pointing at that store: ``omerta worker --queues
   projections,clocks,notify,mail`` (RQ: every queue but the AI moves'), ``omerta worker
   --queues ai`` (the AI moves, at a lower CPU priority; ``--ai-workers`` of them, default one),
   ``omerta worker --queues analysis`` (the post-game reviews, at the lowest CPU priority) and
   ``omerta serve`` (gunicorn on http://127.0.0.1:8000). With ``OMERTA_WORKER_METRICS_PORT=P`` the
   workers serve their metrics on 127.0.0.1, the worker on ``P``, the AI workers on ``P+1``,
   ``P+2``..., the analysis worker on the next one.
3. A child that dies once the service has started (the web server answered) is started again
   after a pause: ``RESTART_FIRST`` seconds, doubling up to ``RESTART_MAX``, back to the first
   once a child ran ``RESTART_RESET`` seconds. The embedded store is one of them: it comes back
   on its port from its AOF, and its clients' retries (``services.platform.servers``) wait for it. A
   child that dies before the service has started stops everything with exit status 1, so a
   broken start never looks like a running service. A worker that stops giving signs of life
   (its heartbeat file, ``services.platform.lifeline.Heartbeat``, untouched for
   ``OMERTA_CHILD_STALE_SECONDS``, or for ``START_SECONDS`` at least since its start: stopped,
   frozen) is killed (SIGKILL, its whole group: a stopped process takes no SIGTERM), and so
   started again the same way.
4. Ctrl-C, SIGTERM or SIGHUP (the terminal closed) to the supervisor: an orderly stop. It stops
   the web server and the worker (SIGTERM: gunicorn finishes the requests in flight, the worker
   its job), gives them ``STOP_SECONDS``, kills what is left, and only then shuts the embedded
   server down cleanly (AOF flushed). Every child runs in its own process group, so a signal to
   the supervisor's group (the terminal's Ctrl-C, ``kill -- -PGID``) reaches only the
   supervisor and this order holds.
5. No child outlives the supervisor: on Linux each is started with ``PR_SET_PDEATHSIG``, so a
   supervisor killed outright (SIGKILL) has its children sent SIGTERM by the kernel. The
   children's pids are kept in ``<var>/run.pid`` (``api.serving.leftovers``): a new
   ``omerta run`` on the same data directory stops what an earlier one left running, or refuses
   while that earlier supervisor itself still runs.
"""

from __future__ import annotations

import contextlib
import http.client
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from types import FrameType

from api.serving import leftovers
from services.platform import lifeline
from services.platform.config import Settings
from services.platform.embedded import HOST, EmbeddedServer
from services.platform.servers import start_embedded

STOP_SECONDS = 15.0
RESTART_FIRST = 0.5
RESTART_MAX = 10.0
RESTART_RESET = 30.0
START_SECONDS = 60.0  # a worker's allowance for its first heartbeat
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def own_group_and_lifeline() -> Callable[[], None]:
    """What a child runs between fork and exec: its own process group, and SIGTERM when this
    supervisor dies (``services.platform.lifeline``)."""
    supervisor = os.getpid()

    def preexec() -> None:
        os.setpgid(0, 0)
        lifeline.die_with_parent(supervisor)

    return preexec


class Child:
    """One supervised process: an ``omerta`` subcommand, or the embedded store."""

    def __init__(
        self,
        name: str,
        args: Sequence[str] = (),
        store: EmbeddedServer | None = None,
        heartbeat: Path | None = None,
    ):
        self.name = name
        self.args = list(args)
        self.store = store
        self.heartbeat = heartbeat  # the file its heartbeat touches (the workers')
        self.proc: subprocess.Popen[bytes] | None = store.process if store else None
        self.began = time.monotonic()
        self.began_at = time.time()
        self.pause = RESTART_FIRST
        self.restart_at: float | None = None

    def start(self, env: dict[str, str]) -> None:
        if self.store is not None:
            self.proc = self.store.restart().process
        else:
            if self.heartbeat is not None:
                self.heartbeat.unlink(missing_ok=True)  # the last one's
                env = {**env, "OMERTA_HEARTBEAT_FILE": str(self.heartbeat)}
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "api", *self.args],
                env=env,
                preexec_fn=own_group_and_lifeline(),
            )
        self.began = time.monotonic()
        self.began_at = time.time()
        self.restart_at = None

    def exited(self) -> int | None:
        """The exit status if the process ended since it was last (re)started."""
        if self.proc is None or self.restart_at is not None:
            return None
        return self.proc.poll()

    def schedule_restart(self) -> float:
        if time.monotonic() - self.began >= RESTART_RESET:
            self.pause = RESTART_FIRST
        pause = self.pause
        self.restart_at = time.monotonic() + pause
        self.pause = min(2 * pause, RESTART_MAX)
        return pause

    def hung(self, stale: float) -> float | None:
        """Seconds without a sign of life, if the running child has been silent past its
        allowance: ``stale`` once it has beaten, ``START_SECONDS`` at least before (importing
        takes seconds on a busy machine). None for a child without a heartbeat."""
        if self.heartbeat is None or self.pid is None:
            return None
        touched = lifeline.touched_at(self.heartbeat)
        if touched is None or touched < self.began_at:
            silent, allowed = time.time() - self.began_at, max(stale, START_SECONDS)
        else:
            silent, allowed = time.time() - touched, stale
        return silent if silent > allowed else None

    def kill_group(self) -> None:
        assert self.proc is not None
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)

    def stop_group(self) -> None:
        """SIGTERM to what is left of the dead child's process group: gunicorn's workers would
        hold the web port for a while, RQ's scheduler its locks. (The group's id is not given
        to a new process while the group has members, so this reaches only them.)"""
        assert self.proc is not None
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGTERM)

    def due(self) -> bool:
        return self.restart_at is not None and time.monotonic() >= self.restart_at

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None and self.proc.poll() is None else None


def store_url(config: Settings) -> tuple[str, EmbeddedServer | None]:
    """The store's URL, and the embedded server if this process started it."""
    if config.cluster_url:  # the children find it (and RQ_REDIS_URL) in the environment
        return config.cluster_url, None
    if config.redis_url:
        return config.redis_url, None
    port, started = start_embedded(config, own_group_and_lifeline())
    return f"redis://{HOST}:{port}/0", started


def supervise(
    children: dict[str, list[str]],
    env: dict[str, str],
    bind: str,
    stale: int,
    store: EmbeddedServer | None = None,
    pid_file: leftovers.PidFile | None = None,
    heartbeats: Path | None = None,
) -> int:
    """Run ``children`` (name -> omerta arguments) and the store until a signal; restart
    whatever dies once the web server at ``bind`` has answered, and kill a worker whose
    heartbeat (a file in ``heartbeats``) is ``stale`` seconds old."""
    stopping = False

    def stop(signum: int, frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True

    previous = {s: signal.signal(s, stop) for s in STOP_SIGNALS}
    running = [
        Child(name, args, heartbeat=_heartbeat(heartbeats, name, args))
        for name, args in children.items()
    ]
    for proc in running:
        proc.start(env)
    supervised = running + ([Child("store", store=store)] if store is not None else [])
    started = False
    try:
        while not stopping:
            _record(pid_file, supervised)
            started = started or _answers(bind)
            for proc in supervised:
                code = proc.exited()
                if code is not None:
                    proc.stop_group()
                    if not started:
                        _say(f"{proc.name} exited ({code}) while starting: stopping")
                        return 1
                    _say(f"{proc.name} exited ({code}): restarting in {proc.schedule_restart()} s")
                elif proc.due():
                    _restart(proc, env)
                elif (silent := proc.hung(stale)) is not None:
                    _say(f"{proc.name} gave no sign of life for {silent:.0f} s: killed")
                    proc.kill_group()  # seen exited at the next turn, and started again
            time.sleep(0.2)
        return 0
    finally:
        _stop_all([p for p in supervised if p.store is None])
        if store is not None:
            store.stop()
        if pid_file is not None:
            pid_file.remove()
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _heartbeat(heartbeats: Path | None, name: str, args: list[str]) -> Path | None:
    """The heartbeat file of a worker child (the web server has gunicorn's own watch)."""
    return heartbeats / name if heartbeats is not None and args[0] == "worker" else None


def _restart(proc: Child, env: dict[str, str]) -> None:
    try:
        proc.start(env)
    except (OSError, RuntimeError) as exc:  # the store did not come up: try again later
        _say(f"{proc.name} did not start ({exc}): again in {proc.schedule_restart()} s")
        return
    _say(f"{proc.name} restarted (pid {proc.pid})")


def _record(pid_file: leftovers.PidFile | None, supervised: list[Child]) -> None:
    if pid_file is not None:
        pid_file.write({p.name: p.pid for p in supervised if p.pid is not None})


def _answers(bind: str) -> bool:
    """Whether the web server at ``bind`` answers HTTP (a socket that only accepts, such as
    another program on the port, does not count)."""
    host, _, port = bind.rpartition(":")
    if not port.isdigit():  # a unix socket: no check, it counts as started
        return True
    host = HOST if host in ("", "0.0.0.0", "[::]") else host.strip("[]")
    conn = http.client.HTTPConnection(host, int(port), timeout=1)
    try:
        conn.request("GET", "/healthz")
        return conn.getresponse().status == 200
    except (OSError, http.client.HTTPException):
        return False
    finally:
        conn.close()


def _stop_all(running: list[Child]) -> None:
    procs = [p.proc for p in running if p.pid is not None and p.proc is not None]
    for proc in procs:
        proc.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + STOP_SECONDS
    for proc in procs:
        try:
            proc.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _say(message: str) -> None:
    print(f"omerta run: {message}", file=sys.stderr, flush=True)


def run(
    settings: Settings,
    bind: str,
    web_workers: int | None,
    verbose: bool = False,
    ai_workers: int = 1,
) -> int:
    pid_file = leftovers.PidFile(settings.var / "run.pid")
    refusal = pid_file.clear_leftovers(_say)
    if refusal:
        _say(refusal)
        return 1
    url, store = store_url(settings)
    # The worker too: its notification mails link to the web server's default public URL.
    env = {**os.environ, "OMERTA_BIND": bind}
    if "REDIS_CLUSTER_URL" not in env:
        env["REDIS_URL"] = url
    if verbose:  # every job (the worker) and every request (gunicorn's access log)
        env["OMERTA_LOG_LEVEL"] = "DEBUG"
        env.setdefault("OMERTA_ACCESS_LOG", "-")
    serve = ["serve", "--bind", bind]
    if web_workers:
        serve += ["--workers", str(web_workers)]
    _say(f"store {url}, web http://{bind}/ (Ctrl-C stops everything)")
    # The AI workers are supervised: the worker never needs to take their moves over.
    children = {"worker": ["worker", "--queues", "projections,clocks,notify,mail"]}
    for n in range(ai_workers):
        ai_name = f"ai-worker-{n + 1}" if ai_workers > 1 else "ai-worker"
        children[ai_name] = ["worker", "--queues", "ai"]
    # Reviews take minutes: a worker of their own, at the lowest priority, so no move waits.
    children["analysis-worker"] = ["worker", "--queues", "analysis"]
    first_port = settings.worker_metrics_port
    if first_port:  # one port each, from OMERTA_WORKER_METRICS_PORT on, in this order
        for n, args in enumerate(children.values()):
            args += ["--metrics-port", str(first_port + n)]
    children["web"] = serve
    stale, heartbeats = settings.child_stale_seconds, settings.var / "heartbeats"
    status = supervise(children, env, bind, stale, store, pid_file, heartbeats)
    _say("stopped")
    return status
