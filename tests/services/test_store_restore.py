"""A store that comes back older (restored from a backup, a lagging replica taking over) under
processes that keep going with what they cached, and appends that wait for replicas: against
real valkey-servers."""

from __future__ import annotations

import random
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
import redis
from redis.backoff import ExponentialBackoff
from redis.retry import Retry

from services.errors import Unavailable
from services.eventstore import audit
from services.eventstore.store import EventStore
from services.games.commands import CommandService
from services.games.repository import EventStoreRepository
from services.platform.config import settings
from services.platform.embedded import HOST, EmbeddedServer, free_port, server_binary
from services.readside import readmodels as rm
from tests.services.helpers import pick_move
from tests.services.test_real_server import omerta
from workers.projection.projector import Projector

pytestmark = pytest.mark.server

Factory = Callable[..., EmbeddedServer]
AOF_DIR = "appendonlydir"


def client_of(server: EmbeddedServer) -> redis.Redis:
    """A client that rides out the store's restart, as the service's processes must."""
    return redis.Redis(
        host=HOST,
        port=server.port,
        retry=Retry(ExponentialBackoff(cap=0.5), 20),
        retry_on_error=[redis.ConnectionError, redis.BusyLoadingError],
    )


def play(svc: CommandService, game_id: str, moves: int, rng: random.Random, prefix: str) -> list:
    """``moves`` random commands; each as (seat, plain command, command id)."""
    sent = []
    for i in range(moves):
        found = pick_move(svc, game_id, rng)
        assert found is not None, "the game ended too early for the test"
        seat, command = found
        plain = msgspec.to_builtins(command)
        svc.handle(game_id, seat, plain, f"{prefix}{i}")
        sent.append((seat, plain, f"{prefix}{i}"))
    return sent


def test_a_store_restored_from_an_older_aof_under_warm_caches_keeps_every_chain(
    embedded_server_factory: Factory, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    server = embedded_server_factory(data, port=free_port())
    warm = CommandService(EventStoreRepository(EventStore(client_of(server))))
    projector = Projector(warm.store)
    rng = random.Random(7)
    ahead, replayed = warm.create_game("gangsta", 2, {}), warm.create_game("gangsta", 2, {})
    for game_id in (ahead, replayed):
        play(warm, game_id, 3, rng, "before-")
        projector.project(game_id)
    backup = tmp_path / "backup"
    shutil.copytree(data / AOF_DIR, backup)  # the server fsyncs before it answers: complete
    restored = {g: warm.store.read(g)[-1] for g in (ahead, replayed)}
    play(warm, ahead, 4, rng, "after-")
    lost = play(warm, replayed, 4, rng, "after-")
    for game_id in (ahead, replayed):
        projector.project(game_id)
    cached = {g: warm.load(g).version for g in (ahead, replayed)}

    server.stop()
    shutil.rmtree(data / AOF_DIR)
    shutil.copytree(backup, data / AOF_DIR)
    embedded_server_factory(data, port=server.port)

    # Another process (no cache) plays the lost commands again: the stream is back at the
    # version the warm process cached, with other entries (other times) than it saw.
    other = CommandService(
        EventStoreRepository(
            EventStore(client_of(server), clock=lambda: time.time_ns() // 10**6 + 1)
        )
    )
    for seat, plain, command_id in lost:
        other.handle(replayed, seat, plain, command_id)
    assert other.load(replayed).version == cached[replayed]

    # The warm process goes on in both games: in one the store is behind its cache, in the
    # other at its cached version with another history.
    for game_id in (replayed, ahead):
        play(warm, game_id, 3, rng, "later-")
        assert projector.project(game_id) is not None
        assert audit.verify(warm.store, game_id) == [], game_id
    stream = warm.store.read(ahead)
    head = restored[ahead]
    assert stream[head.envelope.version - 1].raw == head.raw  # the restored head is kept...
    following = stream[head.envelope.version]
    assert following.envelope.prev == head.hash  # ...and the new commands chain onto it
    assert following.envelope.command_id == "later-0"
    for game_id in (ahead, replayed):  # the read models show the store's history, not the cache's
        stream = warm.store.read(game_id)
        summary = rm.ReadModels(warm.store.redis).summary(game_id)
        assert summary is not None
        assert (summary.version, summary.head) == (len(stream), stream[-1].hash.hex())
    verified = omerta(f"redis://{HOST}:{server.port}/0", "verify", "--all")
    assert verified.returncode == 0, verified.stdout + verified.stderr


@pytest.fixture
def replicated(
    embedded_server_factory: Factory, tmp_path: Path
) -> Iterator[tuple[EmbeddedServer, subprocess.Popen[bytes]]]:
    primary = embedded_server_factory(tmp_path / "primary")
    port = free_port()
    (tmp_path / "replica").mkdir()
    command = [
        server_binary(),
        "--port", str(port),
        "--bind", HOST,
        "--dir", str(tmp_path / "replica"),
        "--replicaof", HOST, str(primary.port),
        "--save", "",
        "--logfile", "valkey.log",
    ]  # fmt: skip
    replica = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        client = redis.Redis(host=HOST, port=port)
        deadline = time.monotonic() + 30
        while not _linked(client):
            assert time.monotonic() < deadline, "the replica did not sync"
            time.sleep(0.05)
        client.close()
        yield primary, replica
    finally:
        if replica.poll() is None:
            replica.send_signal(signal.SIGCONT)
            replica.kill()
        replica.wait()


def _linked(client: redis.Redis) -> bool:
    try:
        return client.info("replication").get("master_link_status") == "up"
    except redis.ConnectionError:
        return False


def test_with_min_replicas_an_append_is_acknowledged_only_once_a_replica_has_it(
    replicated: tuple[EmbeddedServer, subprocess.Popen[bytes]],
) -> None:
    primary, replica = replicated
    store = EventStore(primary.client(), min_replicas=1, replica_timeout_ms=300)
    svc = CommandService(EventStoreRepository(store))
    game_id = svc.create_game("famiglia", 2, {})
    rng = random.Random(3)
    play(svc, game_id, 2, rng, "c")

    replica.send_signal(signal.SIGSTOP)  # the replica stops answering
    found: Any = pick_move(svc, game_id, rng)
    started = time.monotonic()
    with pytest.raises(Unavailable) as caught:
        svc.handle(game_id, found[0], msgspec.to_builtins(found[1]), "unconfirmed")
    assert time.monotonic() - started < 10  # bounded by the timeout, not by the replica
    assert caught.value.code == "store_unavailable" and "replicas" in caught.value.message
    stored = store.read(game_id)[-1].envelope.command_id == "unconfirmed"  # the write is done

    replica.send_signal(signal.SIGCONT)
    again = svc.handle(game_id, found[0], msgspec.to_builtins(found[1]), "unconfirmed")
    assert again.duplicate == stored  # the retry is safe: applied once
    assert audit.verify(store, game_id) == []

    replica.kill()
    replica.wait()
    with pytest.raises(Unavailable):
        play(svc, game_id, 1, rng, "alone")


def test_the_replica_settings_come_from_the_environment() -> None:
    config = settings({"OMERTA_MIN_REPLICAS": "2", "OMERTA_REPLICA_TIMEOUT_MS": "250"})
    assert (config.min_replicas, config.replica_timeout_ms) == (2, 250)
    assert (settings({}).min_replicas, settings({}).replica_timeout_ms) == (0, 1000)
