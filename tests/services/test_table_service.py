"""The table through the command service: time-outs appended at exactly a version,
once per deadline; a person's command for a seat a bot took over refused, changing nothing;
the bot levels every AI question asks (services.games.seating)."""

from __future__ import annotations

import fakeredis
import pytest
import redis

from domain.table import bots, table_view
from services.errors import Conflict, SeatTakenOver
from services.eventstore.audit import verify
from services.eventstore.store import EventStore
from services.games.commandinput import AI_COMMAND_PREFIX
from services.games.commands import CommandService
from services.games.repository import EventStoreRepository
from services.games.seating import ai_levels
from tests.services.test_real_server import omerta


@pytest.fixture
def svc(fake_redis: fakeredis.FakeRedis) -> CommandService:
    return CommandService(EventStoreRepository(EventStore(fake_redis), hooks=[]))


def snapshot(client: fakeredis.FakeRedis) -> dict[bytes, object]:
    return {key: client.dump(key) for key in client.keys("*")}


def test_a_forfeit_time_out_ends_a_2_player_game_once(svc: CommandService) -> None:
    game_id = svc.create_game("famiglia", 2, {})
    version = svc.load(game_id).version
    with pytest.raises(Conflict):
        svc.time_out(game_id, version - 1, 0, forfeit=True)  # a stale deadline
    accepted = svc.time_out(game_id, version, 0, forfeit=True)
    assert accepted.command_id == f"{AI_COMMAND_PREFIX}timeout-{version}-0"
    assert (accepted.first, accepted.version) == (version + 1, version + 1)
    again = svc.time_out(game_id, version, 0, forfeit=True)  # a copy of the deadline job
    assert again.duplicate and again.version == accepted.version
    game, state, _, _ = svc.load(game_id)
    result = game.result(state)
    assert result is not None and (result.winners, result.reason) == ([1], "timed_out")
    (last,) = svc.history(game_id, None, version)
    assert last.type == "timed_out" and last.event.secret is not None
    assert verify(svc.store, game_id) == []  # the secret revealed, the chain whole


def test_a_taken_over_seat_is_played_by_bots_and_refuses_its_person(
    svc: CommandService, fake_redis: fakeredis.FakeRedis
) -> None:
    for _ in range(50):  # a game whose first player is a person (seat 2 is an AI seat)
        game_id = svc.create_game("gangsta", 3, {}, ai={2: "random"})
        game, state, version, meta = svc.load(game_id)
        seat = min(game.to_act(state))
        if seat != 2:
            break
    svc.time_out(game_id, version, seat, forfeit=False)  # the takeover policy
    game, state, version, meta = svc.load(game_id)
    assert bots(state) == {seat} and table_view(state, None).unrated == []
    assert ai_levels(meta, state) == {seat: "greedy", 2: "random"}
    before = snapshot(fake_redis)
    for command in (game.legal(state, seat)[0], {"type": "concede"}, {"type": "undo"}):
        with pytest.raises(SeatTakenOver) as exc:
            svc.handle(game_id, seat, command, f"person-{command!r}")
        assert (exc.value.status, exc.value.code) == (409, "seat_taken_over")
    assert snapshot(fake_redis) == before
    # The bot's own command (its ai- id) is the seat's move.
    accepted = svc.handle(
        game_id, seat, game.legal(state, seat)[0], f"{AI_COMMAND_PREFIX}{version}-{seat}"
    )
    assert accepted.version > version


@pytest.mark.server
def test_omerta_events_and_verify_show_the_tables_events(
    real_redis: redis.Redis, redis_url: str
) -> None:
    svc = CommandService(EventStoreRepository(EventStore(real_redis)))
    drawn, conceded = svc.create_game("famiglia", 2), svc.create_game("gangsta", 3)
    svc.handle(drawn, 0, {"type": "offer_draw"}, "offer")
    svc.handle(drawn, 1, {"type": "accept_draw"}, "accept")
    svc.handle(conceded, 2, {"type": "concede"}, "concede")
    verified = omerta(redis_url, "verify", "--all")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert sorted(verified.stdout.split()) == sorted(["ok", "ok", drawn, conceded])
    shown = omerta(redis_url, "events", drawn).stdout.splitlines()
    assert "draw_offered" in shown[-2] and "draw_agreed" in shown[-1]
    assert "conceded" in omerta(redis_url, "events", conceded, "--seat", "0").stdout
