"""Events stored with an older schema are upcast on read; stored bytes stay as they were."""

from __future__ import annotations

import random
from typing import Any

import fakeredis
import msgspec
import pytest

from services.eventstore import audit
from services.eventstore.store import EventStore, NewEvent
from services.eventstore.upcasting import Upcasters
from services.games.commands import CommandService
from services.games.repository import EventStoreRepository
from tests.services.helpers import play_out


def old_turn_started(data: dict[str, Any]) -> dict[str, Any]:
    """Schema 1 of famiglia's turn_started, as if it had called the seat ``player``."""
    seat = data.pop("seat")
    return {**data, "player": seat}


def test_registry_steps_and_current_schema() -> None:
    registry = Upcasters()
    assert registry.current("g", "t") == 1
    registry.register("g", "t", 1)(lambda d: {**d, "b": 1})
    registry.register("g", "t", 2)(lambda d: {**d, "c": d["b"] + 1})
    assert registry.current("g", "t") == 3
    assert registry.apply("g", "t", 1, {"a": 0}) == {"a": 0, "b": 1, "c": 2}
    assert registry.apply("g", "t", 2, {"b": 5}) == {"b": 5, "c": 6}
    assert registry.apply("g", "t", 3, {"x": 1}) == {"x": 1}
    with pytest.raises(ValueError, match="already registered"):
        registry.register("g", "t", 1)(lambda d: d)


def test_old_events_are_upcast_on_read(fake_redis: fakeredis.FakeRedis) -> None:
    writer = CommandService(EventStoreRepository(EventStore(fake_redis)))
    original = writer.create_game("famiglia", 2, {})
    play_out(writer, original, random.Random(4))
    old_events = []
    for record in writer.events(original):
        data = msgspec.to_builtins(record.event, builtin_types=(bytes,))
        if record.type == "turn_started":
            data = old_turn_started(data)
        old_events.append(NewEvent(record.type, 1, msgspec.msgpack.encode(data)))
    meta = writer.store.meta(original)
    assert meta is not None
    assert writer.store.append("old", 0, b"", "", None, old_events, meta=meta).status == "ok"

    with pytest.raises(msgspec.ValidationError):
        writer.load("old")  # today's shape cannot read schema 1 without the step

    registry = Upcasters()

    @registry.register("famiglia", "turn_started", 1)
    def rename(data: dict[str, Any]) -> dict[str, Any]:
        player = data.pop("player")
        return {**data, "seat": player}

    reader = CommandService(EventStoreRepository(EventStore(fake_redis), upcasters=registry))
    assert reader.load("old").state == writer.load(original).state
    assert [r.event for r in reader.events("old")] == [r.event for r in writer.events(original)]
    assert audit.verify(reader.store, "old", upcasters=registry) == []

    fresh = reader.create_game("famiglia", 2, {})
    schemas = {r.type: r.schema for r in reader.events(fresh)}
    assert schemas["turn_started"] == 2 and schemas["game_started"] == 1
