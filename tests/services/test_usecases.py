"""The table's use cases (services.games.usecases): creating, joining and rematching a game are
one call each, with the keyed creation, the table's opening, the cap on open public games and
the workers' wake-up inside; a refused call changes nothing."""

from __future__ import annotations

import random

import fakeredis
import pytest
import redis

from api.schemas.games import JoinGame, NewGame
from services.errors import BadRequest, UnknownGame
from services.eventstore import idempotency, keys, shards
from services.eventstore.serversecret import ServerSecret
from services.eventstore.store import EventStore
from services.games.chat import Chat
from services.games.commands import CommandService
from services.games.rematch import Rematches
from services.games.repository import EventStoreRepository
from services.games.usecases import Tables, TooManyOpenGames
from services.identity.players import Players
from tests.services.helpers import play_out

Woken = list[tuple[str, int]]


def tables_on(client: redis.Redis, woken: Woken, open_games: int = 0) -> Tables:
    def hook(game_id: str, version: int, woke: bool) -> None:
        woken.append((game_id, version))

    service = CommandService(EventStoreRepository(EventStore(client), hooks=[hook]))
    players = Players(client)
    rematches = Rematches(service, players)
    return Tables(
        service, players, rematches, Chat(client), client, ServerSecret(client), open_games
    )


@pytest.fixture
def woken() -> Woken:
    return []


@pytest.fixture
def tables(fake_redis: fakeredis.FakeRedis, woken: Woken) -> Tables:
    return tables_on(fake_redis, woken)


def person(tables: Tables, name: str) -> str:
    return tables.players.create(name)[0].id


def snapshot(client: redis.Redis) -> dict[bytes, object]:
    return {key: client.dump(key) for key in client.keys("*")}


def test_creating_opens_the_table_and_wakes_the_workers(tables: Tables, woken: Woken) -> None:
    ann = person(tables, "Ann")
    opened = tables.create_game(ann, NewGame("gangsta", 4, ai={1: 2}), None)
    assert opened.seat == 0  # the lowest seat no AI plays
    assert sorted(opened.invites) == [2, 3]  # the other people's seats; none for the AI's
    assert tables.players.seats(opened.game_id) == {0: ann}
    assert opened.version == tables.commands.load(opened.game_id).version
    assert woken[-1] == (opened.game_id, opened.version)


def test_a_keyed_creation_retried_is_the_first_one_again(tables: Tables) -> None:
    ann = person(tables, "Ann")
    new = NewGame("gangsta", 3, seat=1, public=True)
    first = tables.create_game(ann, new, "key-1")
    again = tables.create_game(ann, new, "key-1")
    assert again == first  # the same game, seat, version and invite codes
    assert tables.players.games_of(ann) == [first.game_id]
    with pytest.raises(idempotency.KeyReused):
        tables.create_game(ann, NewGame("famiglia", 2), "key-1")


def test_a_failed_keyed_creation_gives_its_key_back_for_the_retry(
    tables: Tables, monkeypatch: pytest.MonkeyPatch
) -> None:
    ann = person(tables, "Ann")
    new = NewGame("famiglia", 2)

    def lost(*args: object, **kwargs: object) -> dict[int, str]:
        raise ConnectionError("the store went away after the append")

    with monkeypatch.context() as patch:
        patch.setattr(tables.players, "open_table", lost)
        with pytest.raises(ConnectionError):
            tables.create_game(ann, new, "key-1")
    retried = tables.create_game(ann, new, "key-1")  # no 409: the pending record went
    assert tables.players.games_of(ann) == [retried.game_id]
    fingerprint = idempotency.fingerprint(new)
    assert retried.game_id == idempotency.game_id(tables.secret.key(), ann, "key-1", fingerprint)


@pytest.mark.parametrize("new", [NewGame("famiglia", 2, ai={0: 1}, seat=0), NewGame("x", 2)])
def test_a_refused_creation_changes_nothing(
    tables: Tables, fake_redis: fakeredis.FakeRedis, woken: Woken, new: NewGame
) -> None:
    ann = person(tables, "Ann")
    tables.secret.key()  # the deployment's, made by its first keyed creation
    before = snapshot(fake_redis)
    with pytest.raises(BadRequest) as refused:
        tables.create_game(ann, new, "key-1")
    assert refused.value.code in ("bad_seats", "unknown_game_name")
    assert snapshot(fake_redis) == before and woken == []


def test_the_cap_refuses_one_public_game_too_many(
    fake_redis: fakeredis.FakeRedis, woken: Woken
) -> None:
    tables = tables_on(fake_redis, woken, open_games=1)
    ann = person(tables, "Ann")
    public = NewGame("famiglia", 2, public=True)
    tables.create_game(ann, public, None)
    before = snapshot(fake_redis)
    with pytest.raises(TooManyOpenGames) as refused:
        tables.create_game(ann, public, "key-1")
    assert refused.value.params == {"max": 1}
    assert snapshot(fake_redis) == before
    tables.create_game(ann, NewGame("famiglia", 2), None)  # a private game is not capped


def test_joining_takes_the_invites_seat_once_per_key(tables: Tables, woken: Woken) -> None:
    ann = person(tables, "Ann")
    bob = person(tables, "Bob")
    opened = tables.create_game(ann, NewGame("gangsta", 3), None)
    sent = JoinGame(invite=opened.invites[2])
    assert tables.join_game(opened.game_id, bob, sent, "join-1") == 2
    assert tables.join_game(opened.game_id, bob, sent, "join-1") == 2  # the retry
    assert tables.players.seats(opened.game_id) == {0: ann, 2: bob}
    assert woken[-1] == (opened.game_id, opened.version)


def test_joining_an_unknown_game_changes_nothing(
    tables: Tables, fake_redis: fakeredis.FakeRedis, woken: Woken
) -> None:
    bob = person(tables, "Bob")
    before = snapshot(fake_redis)
    with pytest.raises(UnknownGame):
        tables.join_game(shards.new_id(16), bob, JoinGame(), "join-1")
    assert snapshot(fake_redis) == before and woken == []


def test_a_rematch_seats_its_players_and_tells_the_old_games_pages(
    tables: Tables, fake_redis: fakeredis.FakeRedis
) -> None:
    ann = person(tables, "Ann")
    bob = person(tables, "Bob")
    opened = tables.create_game(ann, NewGame("famiglia", 2), None)
    tables.join_game(opened.game_id, bob, JoinGame(opened.invites[1]), None)
    play_out(tables.commands, opened.game_id, random.Random(1))
    offer, seat = tables.rematch(opened.game_id, bob)
    assert (offer.by, seat) == (bob, 1)
    side_feed = keys.side_feed_key(shards.of(opened.game_id))
    assert [f[b"game"] for _, f in fake_redis.xrange(side_feed)] == [opened.game_id.encode()]
    assert tables.join_game(offer.game, ann, JoinGame(), None) == 0  # the seat kept for Ann


@pytest.mark.server
def test_a_twin_of_a_keyed_creation_under_way_is_told_to_retry(
    real_redis: redis.Redis, woken: Woken
) -> None:
    tables = tables_on(real_redis, woken)
    ann = person(tables, "Ann")
    new = NewGame("famiglia", 2)
    fingerprint = idempotency.fingerprint(new)
    assert idempotency.begin_game(real_redis, ann, "key-1", fingerprint) is None  # the first
    with pytest.raises(idempotency.KeyInUse):
        tables.create_game(ann, new, "key-1")
    assert tables.players.games_of(ann) == [] and woken == []
    record = idempotency.games_key(ann, "key-1")
    assert 0 < real_redis.pttl(record) <= idempotency.PENDING_MS  # the twin left it pending
    idempotency.release_game(real_redis, ann, "key-1", fingerprint)
    assert tables.create_game(ann, new, "key-1").game_id in tables.players.games_of(ann)
