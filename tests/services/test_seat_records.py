"""The seat records as their owners give them to the read side (services.games.seats, rematch,
vacation): queued on one pipeline, each decoded from its own answers in order, and the same
records the owners' own look-ups give."""

from __future__ import annotations

import random

import fakeredis

from api.schemas.games import JoinGame, NewGame
from services.eventstore.serversecret import ServerSecret
from services.eventstore.store import EventStore, now_ms
from services.games import rematch, seats, vacation
from services.games.chat import Chat
from services.games.commands import CommandService
from services.games.rematch import Rematches
from services.games.repository import EventStoreRepository
from services.games.usecases import Tables
from services.identity.players import Players
from tests.services.helpers import play_out


def test_one_round_trip_reads_every_owners_records(fake_redis: fakeredis.FakeRedis) -> None:
    service = CommandService(EventStoreRepository(EventStore(fake_redis), hooks=[]))
    players = Players(fake_redis)
    rematches = Rematches(service, players)
    tables = Tables(
        service, players, rematches, Chat(fake_redis), fake_redis, ServerSecret(fake_redis)
    )
    ann, bob = players.create("Ann")[0].id, players.create("Bob")[0].id
    old = tables.create_game(ann, NewGame("famiglia", 2, public=True), None)
    tables.join_game(old.game_id, bob, JoinGame(old.invites[1]), None)
    play_out(service, old.game_id, random.Random(3))
    offer, _ = tables.rematch(old.game_id, ann)  # Bob's seat is reserved for him
    new = offer.game
    now = now_ms()
    vacation.start(fake_redis, bob, now, 30, days=2)
    vacation.bump(fake_redis, [new])

    pipe = fake_redis.pipeline(transaction=False)
    pipe.ping()  # another owner's answer first: each takes only its own
    reads = (
        seats.read_table(pipe, new),
        seats.read_seats(pipe, old.game_id),
        seats.read_seat_count(pipe, new),
        seats.read_seated_at(pipe, ann, new),
        seats.read_seated_at(pipe, bob, new),  # reserved, not taken yet
        rematch.read_reserved(pipe, new),
        vacation.read_clock_rev(pipe, new),
        vacation.read_clock_rev(pipe, old.game_id),
        vacation.read_periods(pipe, bob),
    )
    found = iter(pipe.execute())
    assert next(found) is True
    table, owners, count, ann_at, bob_at, reserved, rev, old_rev, periods = (
        read(found) for read in reads
    )
    assert next(found, None) is None  # every answer taken
    assert table == seats.Table({0: ann}, public=True)
    assert owners == players.seats(old.game_id) == {0: ann, 1: bob}
    assert count == 1
    assert ann_at is not None and ann_at <= now and bob_at is None
    assert reserved == rematches.reserved(new) == {1: bob}
    assert (rev, old_rev) == (1, 0)
    assert periods == vacation.periods(fake_redis, bob) and len(periods) == 1
