"""``services.eventstore.audit.verify`` finds every kind of tampering, on real games (fakeredis)."""

from __future__ import annotations

import random
from typing import Any

import fakeredis
import msgspec
import pytest
from msgspec.structs import replace

from domain.core import Secret
from services.eventstore import audit, keys
from services.eventstore.store import EventStore
from services.games.commands import CommandService
from services.games.repository import EventStoreRepository
from tests.services.helpers import play_out, tamper


@pytest.fixture
def svc(fake_redis: fakeredis.FakeRedis) -> CommandService:
    return CommandService(EventStoreRepository(EventStore(fake_redis)))


def finished(svc: CommandService, name: str, seats: int) -> str:
    game_id = svc.create_game(name, seats, {})
    play_out(svc, game_id, random.Random(seats))
    return game_id


def version_of(svc: CommandService, game_id: str, type: str) -> int:
    return next(r.version for r in svc.events(game_id) if r.type == type)


@pytest.mark.parametrize(("name", "seats"), [("famiglia", 2), ("gangsta", 2), ("gangsta", 4)])
def test_sound_games_verify(svc: CommandService, name: str, seats: int) -> None:
    running = svc.create_game(name, seats, {})
    assert audit.verify(svc.store, running) == []
    assert audit.verify(svc.store, finished(svc, name, seats)) == []


def test_an_altered_event_breaks_the_chain(
    svc: CommandService, fake_redis: fakeredis.FakeRedis
) -> None:
    game_id = finished(svc, "gangsta", 3)
    tamper(fake_redis, game_id, 5, lambda data: {**data, "forged": True})
    assert audit.verify(svc.store, game_id) == [
        "version 6: hash chain broken (prev does not match entry before)"
    ]


def reveal_other_card(data: dict[str, Any]) -> dict[str, Any]:
    cards = list(data["cards"])
    cards[0] = "green-4" if cards[0] != "green-4" else "red-4"
    return {**data, "cards": cards}


def test_a_rechained_forgery_fails_the_replay(
    svc: CommandService, fake_redis: fakeredis.FakeRedis
) -> None:
    game_id = finished(svc, "famiglia", 2)
    version = version_of(svc, game_id, "street_revealed")
    tamper(fake_redis, game_id, version, reveal_other_card, rechain=True)
    problems = audit.verify(svc.store, game_id)
    assert len(problems) == 1
    assert problems[0].startswith(f"version {version}: replay fails")
    assert "revealed cards do not match" in problems[0]


def test_a_forged_seed_reveal_is_caught(
    svc: CommandService, fake_redis: fakeredis.FakeRedis
) -> None:
    game_id = finished(svc, "gangsta", 2)
    last = svc.load(game_id).version

    def other_seed(data: dict[str, Any]) -> dict[str, Any]:
        secret = data["secret"]
        return {**data, "secret": {**secret, "seed": bytes(32)}}

    tamper(fake_redis, game_id, last, other_seed, rechain=True)
    problems = audit.verify(svc.store, game_id)
    assert len(problems) == 1 and "the revealed secret" in problems[0]


@pytest.mark.parametrize(("name", "seats"), [("famiglia", 2), ("gangsta", 3)])
def test_the_reveal_must_match_the_commitment_and_the_start(
    svc: CommandService, name: str, seats: int
) -> None:
    events = [r.event for r in svc.events(finished(svc, name, seats))]
    assert audit.reveal_problems(events) == []
    secret = events[-1].secret
    forged = msgspec.structs.replace(secret, seed=bytes(32))
    assert audit.reveal_problems([*events[:-1], replace(events[-1], secret=forged)]) == [
        "the revealed secret does not match the commitment published at the start"
    ]
    assert audit.reveal_problems([*events[:-1], replace(events[-1], secret=None)]) == [
        "the game is over but its last event reveals no secret"
    ]
    started = replace(events[0], secret=Secret(seed=bytes(32), salt=bytes(16)))
    assert audit.reveal_problems([started, *events[1:]]) == [
        "the revealed secret is not the one the game started with"
    ]


def test_command_records_must_match_the_events(
    svc: CommandService, fake_redis: fakeredis.FakeRedis
) -> None:
    game_id = finished(svc, "famiglia", 2)
    seat_of = {r.command_id: r.actor for r in svc.events(game_id)}
    fake_redis.hdel(keys.commands_key(game_id, seat_of["c0"]), "c0")
    c1 = keys.commands_key(game_id, seat_of["c1"])
    fake_redis.hset(c1, "ghost", fake_redis.hget(c1, "c1"))
    other_seat = keys.commands_key(game_id, 1 - seat_of["c1"])
    fake_redis.hset(other_seat, "c1", fake_redis.hget(c1, "c1"))  # c1 is not that seat's
    problems = audit.verify(svc.store, game_id)
    assert any(
        f"carry seat {seat_of['c0']}'s command id 'c0' with no record" in p for p in problems
    )
    assert any("'ghost'" in p for p in problems)
    assert f"command 'c1' recorded for seat {1 - seat_of['c1']} but has no event" in problems


def test_missing_or_truncated_streams_are_reported(
    svc: CommandService, fake_redis: fakeredis.FakeRedis
) -> None:
    game_id = finished(svc, "gangsta", 2)
    fake_redis.xdel(keys.events_key(game_id), "3-0")
    assert audit.verify(svc.store, game_id)[0].startswith("version 3: unexpected entry")
    fake_redis.delete(keys.meta_key(game_id))
    assert audit.verify(svc.store, game_id) == ["no metadata record"]
