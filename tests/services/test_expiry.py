"""Open games nobody joins expire (issue "open games expire"): the setting, the close of the
seats against a join, and the ``expired`` event."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import fakeredis
import pytest
import redis

from services.errors import RuleRejected
from services.eventstore.audit import verify
from services.eventstore.store import EventStore
from services.games.commands import CommandService
from services.games.rematch import Rematches, reserved_key
from services.games.repository import EventStoreRepository
from services.games.seats import GameExpired, invites_key
from services.identity.players import Players
from services.platform.config import ConfigError, settings


@pytest.mark.parametrize(("raw", "days"), [(None, 14.0), ("30", 30.0), ("0.0001", 0.0001)])
def test_the_open_game_days_setting(raw: str | None, days: float) -> None:
    env = {} if raw is None else {"OMERTA_OPEN_GAME_DAYS": raw}
    assert settings(env).open_game_days == days


@pytest.mark.parametrize("raw", ["0", "-1", "soon", "nan", "inf", "400"])
def test_a_bad_open_game_days_setting_is_refused_naming_it(raw: str) -> None:
    with pytest.raises(ConfigError, match="OMERTA_OPEN_GAME_DAYS"):
        settings({"OMERTA_OPEN_GAME_DAYS": raw})


@pytest.fixture
def svc(fake_redis: fakeredis.FakeRedis) -> CommandService:
    return CommandService(EventStoreRepository(EventStore(fake_redis), hooks=[]))


def open_game(svc: CommandService, players: Players, seats: int = 2) -> tuple[str, dict[int, str]]:
    """A public game of ``seats`` people, its creator at seat 0; its invite codes."""
    game_id = svc.create_game("gangsta", seats, {})
    creator, _ = players.create("Ann")
    return game_id, players.open_table(game_id, 1, range(seats), creator.id, 0, public=True)


def snapshot(client: fakeredis.FakeRedis) -> dict[bytes, object]:
    return {key: client.dump(key) for key in client.keys("*")}


def test_an_open_game_nobody_joined_expires_once_and_refuses_joins(
    svc: CommandService, fake_redis: fakeredis.FakeRedis
) -> None:
    players = Players(fake_redis)
    game_id, codes = open_game(svc, players)
    version = svc.load(game_id).version
    assert players.close_unjoined(game_id)
    # No open seat is left to offer: the cap of open public games (api.http.limits) counts them.
    assert fake_redis.hlen(invites_key(game_id)) == 0
    accepted = svc.expire(game_id, 0.5)
    assert (accepted.first, accepted.version) == (version + 1, version + 1)
    assert svc.expire(game_id, 0.5).duplicate  # a copy of the expiry job
    assert players.close_unjoined(game_id)  # closed it stays: the job's retry goes on
    game, state, _, _ = svc.load(game_id)
    result = game.result(state)
    assert result is not None and result.reason == "expired"
    (last,) = svc.history(game_id, None, version)
    assert last.type == "expired" and last.event.days == 0.5
    assert verify(svc.store, game_id) == []  # the secret revealed, the chain whole
    bob, _ = players.create("Bob")
    before = snapshot(fake_redis)
    for invite in (codes[1], None):
        with pytest.raises(GameExpired) as exc:
            players.join(game_id, bob.id, invite)
        assert (exc.value.status, exc.value.code) == (409, "game_expired")
    assert snapshot(fake_redis) == before and players.games_of(bob.id) == []


def test_a_game_somebody_joined_is_not_closed(
    svc: CommandService, fake_redis: fakeredis.FakeRedis
) -> None:
    players = Players(fake_redis)
    game_id, codes = open_game(svc, players, seats=3)
    bob, _ = players.create("Bob")
    assert players.join(game_id, bob.id, codes[1]) == 1
    before = snapshot(fake_redis)
    assert not players.close_unjoined(game_id)  # a seat is still open, but Bob joined
    assert snapshot(fake_redis) == before
    cid, _ = players.create("Cid")
    assert players.join(game_id, cid.id, None) == 2


def test_a_game_without_open_seats_is_not_closed(
    svc: CommandService, fake_redis: fakeredis.FakeRedis
) -> None:
    players = Players(fake_redis)
    game_id = svc.create_game("famiglia", 2, {}, ai={1: 1})
    ann, _ = players.create("Ann")
    players.open_table(game_id, 1, [0], ann.id, 0, public=True)
    assert not players.close_unjoined(game_id)


def test_a_game_already_over_does_not_expire(svc: CommandService) -> None:
    game_id = svc.create_game("famiglia", 2, {})
    svc.handle(game_id, 0, {"type": "concede"}, "c1")
    version = svc.load(game_id).version
    with pytest.raises(RuleRejected) as exc:
        svc.expire(game_id, 14)
    assert exc.value.code == "game_over" and svc.load(game_id).version == version


def race(players: Players, game_id: str, code: str, player_id: str) -> tuple[bool, bool]:
    """A join and a close of the game started at the same moment: (joined, closed)."""
    start = threading.Barrier(2)

    def join() -> bool:
        start.wait()
        try:
            return players.join(game_id, player_id, code) == 1
        except GameExpired:
            return False

    def close() -> bool:
        start.wait()
        return players.close_unjoined(game_id)

    with ThreadPoolExecutor(2) as pool:
        joined, closed = pool.submit(join), pool.submit(close)
        return joined.result(10), closed.result(10)


@pytest.mark.server
def test_of_a_join_and_an_expiry_at_once_exactly_one_wins(real_redis: redis.Redis) -> None:
    svc = CommandService(EventStoreRepository(EventStore(real_redis), hooks=[]))
    players = Players(real_redis)
    bob, _ = players.create("Bob")
    for _ in range(30):
        game_id, codes = open_game(svc, players)
        joined, closed = race(players, game_id, codes[1], bob.id)
        assert joined != closed  # one of the two, never both, never neither


def test_a_seat_a_rematch_kept_is_not_taken_in_an_expired_game(
    svc: CommandService, fake_redis: fakeredis.FakeRedis
) -> None:
    players = Players(fake_redis)
    game_id, _ = open_game(svc, players, seats=3)
    bob, _ = players.create("Bob")
    fake_redis.hset(reserved_key(game_id), "2", bob.id)  # as a rematch keeps Bob's seat
    assert players.close_unjoined(game_id)
    with pytest.raises(GameExpired):
        Rematches(svc, players).take(game_id, bob.id)
    assert players.seats(game_id) == {0: players.seats(game_id)[0]}
