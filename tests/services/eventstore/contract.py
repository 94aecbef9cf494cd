"""The event store's contract (``services.eventstore.store``), written once and run against every
backend, as pyeventsourcing's ``ApplicationRecorderTestCase`` is for its recorders:
``StoreContract`` holds the tests, and each backend's subclass (``test_store.py``) gives the
``client`` fixture and the number of replicas each master of that backend has.

A backend that cannot run a test says so in its class: ``test_x = Unsupported("why")``
replaces the test there, so it is neither run nor counted as passed, and the reason stands
beside the backend (the real servers' subclasses run every test).
"""

from __future__ import annotations

from typing import ClassVar
from unittest.mock import ANY

import msgspec
import pytest
import redis
from redis.cluster import RedisCluster

from services.errors import Unavailable
from services.eventstore import keys, shards
from services.eventstore.records import GENESIS, GameMeta, chain_hash, decode_envelope
from services.eventstore.store import EventStore, NewEvent
from tests.feeds import feed_length, id_in

META = GameMeta(game="famiglia", seats=2, options={}, ai={1: 2}, created=1)
GAME, OTHER = id_in(3), id_in(9)  # ids as the service draws them (``shards.new_id``)


def events(*names: str) -> list[NewEvent]:
    return [NewEvent(n, 1, msgspec.msgpack.encode({"type": n})) for n in names]


def head(store: EventStore, game_id: str) -> bytes:
    return store.read(game_id)[-1].raw


def create(store: EventStore) -> str:
    game_id = shards.new_id(16)
    assert store.append(game_id, 0, b"", "", None, events("game_started"), meta=META).status == "ok"
    return game_id


class Unsupported:
    """Stands in a backend's class for a contract test the backend cannot run (not a function:
    pytest collects nothing from it)."""

    def __init__(self, reason: str) -> None:
        self.reason = reason


class StoreContract:
    """Not collected itself (no ``Test`` prefix): its subclasses are, once per backend."""

    replicas: ClassVar[int]
    """Replicas of each master: what ``WAIT`` can confirm at most."""

    def __init_subclass__(cls) -> None:
        super().__init_subclass__()
        for name, value in vars(cls).items():
            if isinstance(value, Unsupported) and not callable(getattr(StoreContract, name, None)):
                raise TypeError(f"{cls.__name__}.{name}: no such test in the contract")

    @pytest.fixture
    def client(self) -> redis.Redis | RedisCluster:
        raise NotImplementedError("each backend's subclass gives its client")

    @pytest.fixture
    def store(self, client: redis.Redis | RedisCluster) -> EventStore:
        return EventStore(client, clock=lambda: 1_700_000_000_000)

    @pytest.fixture
    def created(self, store: EventStore) -> str:
        appended = store.append(GAME, 0, b"", "", None, events("game_started", "dealt"), meta=META)
        assert appended.status == "ok"
        return GAME

    def test_creation_writes_events_meta_record_and_feed(
        self, store: EventStore, created: str
    ) -> None:
        assert store.meta(created) == META
        assert store.version(created) == 2
        rows = store.rows(created)
        assert [entry_id for entry_id, _ in rows] == [b"1-0", b"2-0"]
        first = decode_envelope(rows[0][1][b"e"])
        assert (first.game_id, first.version, first.type, first.actor, first.command_id) == (
            GAME,
            1,
            "game_started",
            None,
            "",
        )
        assert (first.time, first.schema, first.prev) == (1_700_000_000_000, 1, GENESIS)
        assert msgspec.msgpack.decode(first.data) == {"type": "game_started"}
        feed = store.redis.xrange(keys.feed_key(GAME))
        assert [fields for _, fields in feed] == [{b"game": GAME.encode(), b"version": b"2"}]
        assert feed_length(store.redis) == 1
        assert store.command_records(created, 2) == {None: {"": ANY}, 0: {}, 1: {}}

    def test_each_envelope_chains_to_the_one_before(self, store: EventStore, created: str) -> None:
        store.append(created, 2, head(store, created), "c1", 0, events("a", "b"), digest=b"d")
        entries = store.read(created)
        assert [e.envelope.version for e in entries] == [1, 2, 3, 4]
        prev = GENESIS
        for entry in entries:
            assert entry.envelope.prev == prev
            assert entry.hash == chain_hash(entry.raw)
            prev = entry.hash

    def test_append_at_a_stale_version_is_a_conflict_and_writes_nothing(
        self, store: EventStore, created: str
    ) -> None:
        before = store.redis.dump(keys.events_key(created)), feed_length(store.redis)
        appended = store.append(created, 1, b"", "c1", 0, events("a"))
        assert (appended.status, appended.version) == ("conflict", 2)
        assert (store.redis.dump(keys.events_key(created)), feed_length(store.redis)) == before
        assert all("c1" not in scoped for scoped in store.command_records(created, 2).values())

    def test_a_retried_command_id_appends_nothing_and_returns_the_first_result(
        self, store: EventStore, created: str
    ) -> None:
        first = store.append(created, 2, head(store, created), "c1", 0, events("a", "b"), b"d")
        assert (first.status, first.version) == ("ok", 4)
        again = store.append(created, 4, head(store, created), "c1", 0, events("a", "b"), b"d")
        assert (again.status, again.version) == ("duplicate", 4)
        assert again.record is not None and (again.record.first, again.record.last) == (3, 4)
        assert again.record.digest == b"d"
        assert store.version(created) == 4
        assert feed_length(store.redis) == 2

    def test_appending_to_a_game_that_does_not_exist_is_refused(self, store: EventStore) -> None:
        appended = store.append("nope", 0, b"", "c1", 0, events("a"))
        assert appended.status == "unknown"
        assert store.redis.keys("*") == []

    def test_read_after_a_version_and_with_the_command_record(
        self, store: EventStore, created: str
    ) -> None:
        store.append(created, 2, head(store, created), "c1", 1, events("a"), b"d")
        assert [e.envelope.type for e in store.read(created, after=2)] == ["a"]
        assert store.read(created, after=3) == []
        entries, record = store.read_with_record(created, 1, 1, "c1")
        assert [e.envelope.version for e in entries] == [2, 3]
        assert record is not None and (record.first, record.last) == (3, 3)
        assert store.read_with_record(created, 3, 1, "c2") == ([], None)
        assert store.read_with_record(created, 3, 0, "c1") == ([], None)  # seat 1's id, not 0's

    def test_a_command_id_of_one_seat_is_free_for_another(
        self, store: EventStore, created: str
    ) -> None:
        first = store.append(created, 2, head(store, created), "c1", 0, events("a"), b"d")
        other = store.append(created, 3, head(store, created), "c1", 1, events("b"), b"e")
        assert (first.status, other.status) == ("ok", "ok")
        again = store.append(created, 4, head(store, created), "c1", 1, events("b"), b"e")
        assert again.status == "duplicate" and again.record is not None and again.record.first == 4

    def test_an_unscoped_record_of_a_game_stored_before_scoping_holds_for_every_seat(
        self, store: EventStore, created: str
    ) -> None:
        store.append(created, 2, head(store, created), "c1", 0, events("a"), b"d")
        old = keys.commands_key(created)
        store.redis.hset(old, "c1", store.redis.hget(keys.commands_key(created, 0), "c1"))
        store.redis.delete(keys.commands_key(created, 0))
        for seat in (0, 1):
            again = store.append(created, 3, head(store, created), "c1", seat, events("x"), b"x")
            assert again.status == "duplicate" and again.record is not None
            assert again.record.digest == b"d"
        assert store.version(created) == 3

    def test_game_ids_lists_every_game(self, store: EventStore, created: str) -> None:
        store.append(OTHER, 0, b"", "", None, events("game_started"), meta=META)
        assert sorted(store.game_ids()) == sorted([GAME, OTHER])

    def test_append_onto_another_head_at_the_right_version_is_refused_and_writes_nothing(
        self, store: EventStore, created: str
    ) -> None:
        """A caller whose head is from a history the store no longer has (restored from a
        backup) must not chain onto the entry that now stands at that version."""
        gone = store.read(created)[-1].raw + b"x"
        before = store.redis.dump(keys.events_key(created)), feed_length(store.redis)
        appended = store.append(created, 2, gone, "c1", 0, events("a"))
        assert (appended.status, appended.version) == ("forked", 2)
        assert (store.redis.dump(keys.events_key(created)), feed_length(store.redis)) == before
        assert all("c1" not in scoped for scoped in store.command_records(created, 2).values())

    def test_an_append_waits_for_the_replicas_it_needs(
        self, client: redis.Redis | RedisCluster
    ) -> None:
        """``min_replicas``: acknowledged once that many replicas of the game's master confirm
        (``WAIT``), else ``Unavailable`` naming how many did."""
        store = EventStore(client, min_replicas=self.replicas, replica_timeout_ms=5_000)
        games = [create(store) for _ in range(12)]  # on a cluster: slots on every master
        for game_id in games:
            last = head(store, game_id)
            assert store.append(game_id, 1, last, "c1", 0, events("moved")).status == "ok"
        # One replica more than each master has can never confirm, and the append says so.
        wanted = self.replicas + 1
        strict = EventStore(client, min_replicas=wanted, replica_timeout_ms=100)
        with pytest.raises(Unavailable, match=f"{self.replicas} of the {wanted} replicas"):
            create(strict)
