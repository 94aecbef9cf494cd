"""The API on a real server (the session's embedded valkey, emptied per test), through the Flask
test client, with the workers' projection applied after every append. The client keeps no
cookies: each call authenticates with the bearer token it is given, or not at all."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator

import pytest
import redis
from flask import Flask

from api.app import create_app
from bootstrap import Container
from services.eventstore.store import EventStore
from services.games.commands import CommandService
from services.games.repository import EventStoreRepository
from tests.api.helpers import Api, container_of
from workers.projection.projector import Projector


@pytest.fixture
def service(real_redis: redis.Redis) -> CommandService:
    store = EventStore(real_redis)
    projector = Projector(store)
    return CommandService(
        EventStoreRepository(store, hooks=[lambda game_id, *_: projector.project(game_id)])
    )


@pytest.fixture
def app(service: CommandService, real_redis: redis.Redis) -> Flask:
    return create_app(container_of(service), stream_seconds=0.5)


@pytest.fixture
def api(app: Flask) -> Iterator[Api]:
    with app.test_client(use_cookies=False) as client:
        yield Api(client)


@pytest.fixture
def worker_process(
    request: pytest.FixtureRequest, redis_url: str
) -> Iterator[subprocess.Popen[bytes]]:
    """``omerta worker`` as ``omerta run`` starts it, on the session's server."""
    request.getfixturevalue("workers_redis")
    env = {**os.environ, "REDIS_URL": redis_url}
    proc = subprocess.Popen(
        [sys.executable, "-m", "api", "worker", "--interval", "2"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    yield proc
    proc.terminate()
    try:  # a warm shutdown ends the job at hand first: on a loaded machine, that takes a while
        proc.wait(60)
    except subprocess.TimeoutExpired:  # killed, so that it takes no job of the tests after
        proc.kill()
        proc.wait()
        raise


@pytest.fixture
def live_api(container: Container) -> Iterator[Api]:
    """The app as ``omerta serve`` builds it (``create_app(bootstrap())``), on that service."""
    with create_app(container).test_client(use_cookies=False) as client:
        yield Api(client)


@pytest.fixture(params=["server", pytest.param("cluster", marks=pytest.mark.cluster)])
def store_api(request: pytest.FixtureRequest) -> Iterator[tuple[Api, redis.Redis]]:
    """The API and its store: the session's server (``api``), or the real cluster, where every
    script and transaction of a request must touch one slot."""
    if request.param == "server":
        yield request.getfixturevalue("api"), request.getfixturevalue("real_redis")
        return
    cluster = request.getfixturevalue("cluster_redis")
    app = create_app(
        container_of(CommandService(EventStoreRepository(EventStore(cluster)))), stream_seconds=0.5
    )
    with app.test_client(use_cookies=False) as client:
        yield Api(client), cluster
