"""The store on a real Valkey Cluster: the configuration that picks it, and a master killed in
the middle of appends, after which its replica serves the slot and no acknowledged append is
missing. The store's contract on a cluster (appends that WAIT for a replica on the master of
the game's slot among it) is ``tests/services/eventstore``'s."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import redis
from redis.cluster import RedisCluster

from services.errors import Unavailable
from services.eventstore import keys
from services.eventstore.store import EventStore
from services.platform import config, servers
from tests.cluster import Cluster
from tests.services.eventstore.contract import create, events


def test_a_cluster_needs_rq_on_a_server_of_its_own() -> None:
    with pytest.raises(config.ConfigError, match="RQ_REDIS_URL"):
        config.settings({"REDIS_CLUSTER_URL": "redis://127.0.0.1:7000"})
    with pytest.raises(config.ConfigError, match="not both"):
        config.settings(
            {"REDIS_CLUSTER_URL": "redis://h:1", "REDIS_URL": "redis://h:2", "RQ_REDIS_URL": "x"}
        )
    with pytest.raises(config.ConfigError, match="RQ_REDIS_URL must be a redis"):
        config.settings({"REDIS_CLUSTER_URL": "redis://h:1", "RQ_REDIS_URL": "http://h:2"})
    found = config.settings({"REDIS_CLUSTER_URL": "redis://h:1", "RQ_REDIS_URL": "redis://h:2"})
    assert (found.cluster_url, found.rq_url, found.redis_url) == (
        "redis://h:1",
        "redis://h:2",
        None,
    )


@pytest.mark.cluster
def test_connect_gives_a_cluster_client_and_rq_its_own_server(
    valkey_cluster: Cluster, redis_url: str
) -> None:
    found = config.settings({"REDIS_CLUSTER_URL": valkey_cluster.url, "RQ_REDIS_URL": redis_url})
    store, queues = servers.connect(found), None
    try:
        assert isinstance(store, RedisCluster)
        queues = servers.connect_queues(found, store)
        assert isinstance(queues, redis.Redis) and queues.ping()
        assert queues.connection_pool.connection_kwargs["port"] == urlsplit(redis_url).port
    finally:
        store.close()
        if queues is not None:
            queues.close()


@pytest.mark.cluster
def test_a_killed_master_loses_no_acknowledged_append(tmp_path: Path) -> None:
    """Writers append to games on every master; the master of one game's slot is SIGKILLed in
    the middle. Its replica takes over, the writers go on (their appends to that slot wait for
    the failover, and for a replica again: the killed node restarted), and every append the
    store acknowledged is in the game's stream after."""
    with Cluster(tmp_path) as cluster:
        client = cluster.client()
        store = EventStore(client, min_replicas=1, replica_timeout_ms=2_000)
        games = [create(store) for _ in range(9)]
        acknowledged: dict[str, list[str]] = {g: [] for g in games}
        stop = threading.Event()
        failures: list[BaseException] = []

        def write(game_id: str) -> None:
            n = 0
            while not stop.is_set():
                n += 1
                command_id = f"c{n}"
                try:
                    entries = store.read(game_id)
                    done = store.append(
                        game_id, len(entries), entries[-1].raw, command_id, 0, events(command_id)
                    )
                except Unavailable:
                    n -= 1  # the same command again, as a client retries it
                    time.sleep(0.05)
                    continue
                except BaseException as exc:
                    failures.append(exc)
                    return
                if done.status in ("ok", "duplicate"):
                    acknowledged[game_id].append(command_id)

        writers = [threading.Thread(target=write, args=(g,)) for g in games]
        for writer in writers:
            writer.start()
        time.sleep(1.0)
        victim = games[0]
        killed = cluster.kill_master_of(keys.events_key(victim))
        cluster.wait_promoted(keys.events_key(victim))
        before = len(acknowledged[victim])
        # The new master has no replica to confirm appends (503s) until the killed node is
        # back, as its supervisor restarts it: it rejoins as the new master's replica.
        killed.restart()
        deadline = time.monotonic() + 30
        while len(acknowledged[victim]) < before + 5 and time.monotonic() < deadline:
            time.sleep(0.1)
        stop.set()
        for writer in writers:
            writer.join(30)
        assert not failures
        assert len(acknowledged[victim]) >= before + 5  # the slot's new master took appends
        for game_id, told in acknowledged.items():
            stored = [e.envelope.command_id for e in store.read(game_id)][1:]
            assert set(told) <= set(stored), game_id
            assert stored == [f"c{n}" for n in range(1, len(stored) + 1)]  # no gap, no fork
        client.close()
