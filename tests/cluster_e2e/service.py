"""The whole service on a real Valkey Cluster, as processes: the cluster (``tests.cluster``),
RQ's own server (an embedded one: ``RQ_REDIS_URL``), two web processes (``omerta serve``, one
gevent worker each, on free ports), two default workers (``omerta worker``) and an AI worker
(``omerta worker --queues ai``), all with ``REDIS_CLUSTER_URL``, ``RQ_REDIS_URL`` and
``OMERTA_MIN_REPLICAS=1`` (an append is acknowledged once a replica has it).

Every process runs in a process group of its own and gets SIGTERM if the test process dies
(``services.platform.lifeline``); ``stop()`` ends each group, then RQ's server. Logs go to files in
the directory given, which a failing test names.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from redis.cluster import RedisCluster

from api.serving.supervisor import own_group_and_lifeline
from services.platform.embedded import EmbeddedServer, free_port
from tests.api.omerta_run import call
from tests.cluster import Cluster

ROOT = Path(__file__).resolve().parents[2]
STORE_VARIABLES = ("REDIS_URL", "REDIS_CLUSTER_URL", "RQ_REDIS_URL", "OMERTA_VAR")


class Process:
    """One ``omerta`` subcommand, logging to ``log``."""

    def __init__(self, name: str, args: list[str], env: dict[str, str], log: Path) -> None:
        self.name, self.args, self.env, self.log = name, args, env, log
        self.proc: subprocess.Popen[bytes] | None = None
        self.terminated = False  # a second SIGTERM would make an RQ worker quit mid-job

    def start(self) -> Process:
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "api", *self.args],
                cwd=ROOT,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                preexec_fn=own_group_and_lifeline(),
            )
        return self

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def signal(self, signum: int) -> None:
        """``signum`` to the whole process group (SIGSTOP, SIGCONT: a stall)."""
        assert self.proc is not None
        _signal_group(self.proc.pid, signum)

    def terminate(self) -> None:
        if self.alive() and not self.terminated:
            assert self.proc is not None
            _signal_group(self.proc.pid, signal.SIGTERM)
            self.terminated = True

    def stop(self, timeout: float = 20.0) -> None:
        """SIGTERM (unless sent already), a wait, then SIGKILL to what is left of the group."""
        if self.proc is None:
            return
        self.terminate()
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        _signal_group(self.proc.pid, signal.SIGKILL)  # a gunicorn worker left behind


def _signal_group(pgid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, signum)


class ClusterService:
    def __init__(self, directory: Path, cluster: Cluster, webs: int = 2, workers: int = 2) -> None:
        self.directory = Path(directory)
        self.cluster = cluster
        self.rq = EmbeddedServer(self.directory / "rq")
        self.webs: list[Process] = []
        self.ports: list[int] = []
        self.workers: list[Process] = []
        self._counts = (webs, workers)

    @property
    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in STORE_VARIABLES}
        return {
            **env,
            "REDIS_CLUSTER_URL": self.cluster.url,
            "RQ_REDIS_URL": self.rq.url,
            "OMERTA_MIN_REPLICAS": "1",
            "OMERTA_RATE_LIMITS": "off",
            "OMERTA_VAR": str(self.directory / "var"),  # the maildir; never a store here
        }

    @property
    def bases(self) -> list[str]:
        return [f"http://127.0.0.1:{port}" for port in self.ports]

    def start(self) -> ClusterService:
        self.rq.start()
        env = self.env
        webs, workers = self._counts
        try:
            for n in range(webs):
                port = free_port()
                bind = ("--bind", f"127.0.0.1:{port}", "--workers", "1")
                self.webs.append(self._process(f"web-{n}", ["serve", *bind], env).start())
                self.ports.append(port)
            for n in range(workers):
                args = ["worker", "--interval", "1", "--verbose", "--name", f"worker-{n}"]
                self.workers.append(self._process(f"worker-{n}", args, env).start())
            args = ["worker", "--interval", "1", "--verbose", "--queues", "ai", "--name", "ai"]
            self.workers.append(self._process("ai-worker", args, env).start())
            for web, base in zip(self.webs, self.bases, strict=True):
                self._wait_ready(web, base)
        except BaseException:
            self.stop()
            raise
        return self

    def _process(self, name: str, args: list[str], env: dict[str, str]) -> Process:
        return Process(name, args, env, self.directory / f"{name}.log")

    def _wait_ready(self, web: Process, base: str, timeout: float = 180.0) -> None:
        deadline = time.monotonic() + timeout
        while True:
            assert web.alive(), f"{web.name} exited while starting: see {web.log}"
            assert time.monotonic() < deadline, f"{web.name} never got ready: see {web.log}"
            try:
                if call(base, "GET", "/readyz")[0] == 200:
                    return
            except OSError:
                pass
            time.sleep(0.2)

    def processes(self) -> list[Process]:
        return [*self.webs, *self.workers]

    def dead(self) -> list[str]:
        """The processes that quit (none should)."""
        return [p.name for p in self.processes() if not p.alive()]

    def store(self) -> RedisCluster:
        return self.cluster.client()

    def omerta(self, *args: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
        """An ``omerta`` command (``verify``, ``rebuild``...) with the processes' settings."""
        return subprocess.run(
            [sys.executable, "-m", "api", *args],
            cwd=ROOT, env=self.env, capture_output=True, text=True, timeout=timeout,
        )  # fmt: skip

    def logs(self) -> str:
        return "\n".join(
            f"--- {p.name}\n{p.log.read_text(errors='replace')[-3000:]}"
            for p in self.processes()
            if p.log.exists()
        )

    def stop(self) -> None:
        for process in self.processes():  # all at once: each finishes what it was doing
            process.terminate()
        for process in self.processes():
            process.stop()
        self.rq.stop()
