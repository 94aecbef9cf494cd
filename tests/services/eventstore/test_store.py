"""The event store's contract (``contract.StoreContract``) on each backend: fakeredis (the same
Lua script runs there through lupa: ``make check`` runs it), the session's real server, and the
session's real cluster (one slot per script: the game's keys and its shard's are in one slot).
The servers are the session's (``tests/conftest.py``), emptied before each test."""

from __future__ import annotations

import fakeredis
import pytest
import redis
from redis.cluster import RedisCluster

from services.eventstore import keys
from services.eventstore.store import EventStore
from tests.services.eventstore.contract import META, StoreContract, Unsupported, events


class TestStoreOnFakeredis(StoreContract):
    replicas = 0

    @pytest.fixture
    def client(self, fake_redis: fakeredis.FakeRedis) -> fakeredis.FakeRedis:
        return fake_redis

    test_an_append_waits_for_the_replicas_it_needs = Unsupported(
        "fakeredis has no WAIT command (unknown command 'wait')"
    )


class TestStoreOnServer(StoreContract):
    replicas = 0

    @pytest.fixture
    def client(self, real_redis: redis.Redis) -> redis.Redis:
        return real_redis


class TestStoreOnCluster(StoreContract):
    replicas = 1  # tests/cluster.py: 3 masters, one replica each

    @pytest.fixture
    def client(self, cluster_redis: RedisCluster) -> RedisCluster:
        return cluster_redis

    def test_an_id_the_service_never_drew_is_no_game(self, cluster_redis: RedisCluster) -> None:
        """Its keys and its shard's would be in two slots: no game of a cluster has it."""
        store = EventStore(cluster_redis)
        assert store.append("not-a-drawn-id", 0, b"", "c1", 0, events("a")).status == "unknown"
        assert store.append("x", 0, b"", "", None, events("a"), meta=META).status == "unknown"


def test_keys_share_the_game_hash_tag() -> None:
    for key in (
        keys.events_key("abc"),
        keys.meta_key("abc"),
        keys.commands_key("abc"),
        keys.commands_key("abc", 3),
    ):
        assert key.startswith("game:{abc}:")
