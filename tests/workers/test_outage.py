"""Store outages: a client from ``services.platform.servers.connect()`` waits out a short one
(~2.5 s) with retries; a worker process waits out a long one (longer than the client's retries) and
writes refused for a while (``maxmemory`` reached: RQ's work loop ends on the first), and its AI
game goes on to the end."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from bootstrap import Container, bootstrap
from services.platform import config, servers
from services.platform.embedded import EmbeddedServer, free_port
from services.readside.readmodels import ReadModels
from tests.workers.helpers import start_worker, wait
from workers.projection import jobs as project_jobs

pytestmark = pytest.mark.server


def outage(server: EmbeddedServer, seconds: float) -> threading.Thread:
    """SIGKILL the server now; start it again from its AOF, on its port, ``seconds`` later."""
    server.kill()
    back = threading.Thread(target=lambda: (time.sleep(seconds), server.restart()))
    back.start()
    return back


def test_a_client_waits_out_a_short_outage(
    embedded_server_factory: Callable[..., EmbeddedServer],
) -> None:
    server = embedded_server_factory(port=free_port())
    client = servers.connect(config.settings({"REDIS_URL": server.url}))
    client.set("before", 1)
    back = outage(server, 2.5)
    try:
        assert client.incr("before") == 2  # answered once the server is back: nothing lost
    finally:
        back.join()


@pytest.fixture
def worker_store(embedded_server_factory: Callable[..., EmbeddedServer]) -> EmbeddedServer:
    """A private server on a fixed port (it is killed and restarted) as this process's store."""
    return embedded_server_factory(port=free_port())


@pytest.fixture
def outage_container(worker_store: EmbeddedServer) -> Container:
    """This process's objects on that server, without the hook (the worker process projects)."""
    return bootstrap(config.settings({**os.environ, "REDIS_URL": worker_store.url}), hooks=[])


def play_through(
    container: Container, server: EmbeddedServer, log: Path, fault: Callable[[], None]
) -> str:
    """An AI game played by a worker process, ``fault`` in the middle: the worker lives through
    it and the game ends. The worker's log."""
    read_models = ReadModels(server.client())
    worker = start_worker(server.url, log)
    try:
        game_id = container.commands.create_game("famiglia", 2, ai={0: "greedy", 1: "random"})
        project_jobs.project(container.context, game_id)  # and with it the first AI move's job
        wait(lambda: read_models.version(game_id) >= 5, 60, "the game to get going")
        fault()
        assert worker.poll() is None, "the worker quit"
        wait(
            lambda: (s := read_models.summary(game_id)) is not None and s.status == "finished",
            120,
            "the game to end",
        )
    finally:
        worker.send_signal(signal.SIGTERM)
        worker.wait(30)
    assert worker.returncode == 0
    return log.read_text()


def test_a_worker_waits_out_a_long_outage(
    outage_container: Container, worker_store: EmbeddedServer, tmp_path: Path
) -> None:
    def long_outage() -> None:
        outage(worker_store, servers.RETRY_SECONDS + 3).join()

    play_through(outage_container, worker_store, tmp_path / "worker.log", long_outage)


def test_a_worker_lives_through_refused_writes(
    outage_container: Container, worker_store: EmbeddedServer, tmp_path: Path
) -> None:
    admin = worker_store.client()

    def refused_writes() -> None:
        admin.config_set("maxmemory", 1)  # every write: OOM, the first one ends RQ's loop
        time.sleep(4)
        admin.config_set("maxmemory", 0)

    log = play_through(outage_container, worker_store, tmp_path / "worker.log", refused_writes)
    assert "starting again" in log  # the work loop ended and was started again
