"""The projection and the read models' lists on one server and on a real Redis Cluster: every
step of a projection is a script of one slot (a cross-slot one fails here, on the cluster), a
game's read model and its shard's indexes in the game's, each seated player's inbox in the
player's; a projection run twice, late or concurrently changes nothing; one that dies between the
inboxes and the game's write is repaired by the next; the lists read across the shards in one
order; ``rebuild`` gives back the very bytes."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import NamedTuple

import msgspec
import pytest
import redis
from redis.cluster import RedisCluster

from services.eventstore import keys, shards
from services.eventstore.store import EventStore
from services.games.commands import CommandService
from services.games.repository import EventStoreRepository
from services.identity.players import Players
from services.readside import readmodels as rm
from services.readside.ratings import Ratings
from services.readside.readmodels import ReadModels
from tests.feeds import id_in
from tests.services.helpers import pick_move, play_out
from tests.workers.helpers import projectors_racing
from workers.projection.projector import Projector
from workers.projection.rebuild import drop, rebuild, snapshot


class Side(NamedTuple):
    client: redis.Redis | RedisCluster
    service: CommandService
    projector: Projector
    models: ReadModels
    players: Players


@pytest.fixture(params=[pytest.param("server", marks=pytest.mark.server),
                        pytest.param("cluster", marks=pytest.mark.cluster)])  # fmt: skip
def side(request: pytest.FixtureRequest) -> Iterator[Side]:
    client = request.getfixturevalue("real_redis" if request.param == "server" else "cluster_redis")
    yield on(client)


def on(client: redis.Redis | RedisCluster) -> Side:
    store = EventStore(client)
    commands = CommandService(EventStoreRepository(store, hooks=[]))
    return Side(client, commands, Projector(store), ReadModels(client), Players(client))


def play(side: Side, game_id: str, count: int, seed: int = 1) -> int:
    """Up to ``count`` random moves (fewer if the game ends); the version after them."""
    rng = random.Random(seed)
    version = side.service.load(game_id).version
    for n in range(count):
        move = pick_move(side.service, game_id, rng)
        if move is None:
            break
        seat, command = move
        version = side.service.handle(
            game_id, seat, msgspec.to_builtins(command), f"m{seed}-{n}"
        ).version
    return version


def seated(side: Side, game_id: str, shard_of_player: list[int]) -> list[str]:
    """Seat a player of each given shard (seat 0 opens the table, public; the others join)."""
    meta = side.service.meta(game_id)
    players = [id_in(shard, 12) for shard in shard_of_player]
    side.players.open_table(game_id, meta.created, range(1, meta.seats), players[0], 0, True)
    for player in players[1:]:
        side.players.join(game_id, player, None)
    return players


def owing_seats(side: Side, game_id: str) -> set[int]:
    loaded = side.service.load(game_id)
    return set(loaded.game.to_act(loaded.state))


def others(shard: int, count: int) -> list[int]:
    """``count`` shards other than ``shard`` (players whose slots are not the game's)."""
    return [(shard + n) % shards.SHARDS for n in range(1, count + 1)]


def inbox_entries(client: redis.Redis | RedisCluster, player_id: str) -> list[dict[bytes, bytes]]:
    feed = keys.inbox_feed_key(shards.of(player_id))
    return [fields for _, fields in client.xrange(feed)]


def test_a_projection_writes_the_game_its_shard_and_each_players_inbox(side: Side) -> None:
    game_id = side.service.create_game("gangsta", 3)
    shard = shards.of(game_id)
    players = seated(side, game_id, others(shard, 2))  # seat 2 stays open: in the lobby
    projected = side.projector.project(game_id)
    assert projected is not None and projected.written
    assert [s.game_id for s in side.models.lobby()] == [game_id]
    assert [s.game_id for s in side.models.games("running")] == [game_id]
    assert side.client.zscore(rm.index_key(rm.LOBBY, shard), game_id) is not None
    for player in players:
        assert inbox_entries(side.client, player) == [
            {b"game": game_id.encode(), b"version": b"%d" % projected.version,
             b"players": player.encode()},
        ]  # fmt: skip

    side.players.join(game_id, id_in(shard, 12), None)  # a player of the game's own shard
    version = play(side, game_id, 6)
    assert side.projector.project(game_id).written  # type: ignore[union-attr]
    assert side.models.lobby() == []
    summary = side.models.summary(game_id)
    assert summary is not None and summary.version == version
    owners = {s.seat: s.player for s in summary.seats}
    for seat, player in owners.items():
        assert player is not None
        inbox = [s.game_id for s in side.models.inbox(player)]
        assert inbox == ([game_id] if seat in summary.to_act else [])
        assert side.models.inbox_changes(player, b"0-0") == {game_id: version}
    assert side.models.due() == sorted(
        [(game_id, seat, since) for seat, since in summary.due.items()], key=lambda d: d[2]
    )


def test_running_twice_late_or_concurrently_changes_nothing(side: Side) -> None:
    game_ids = [side.service.create_game("gangsta", 4), side.service.create_game("famiglia", 2)]
    owners = {
        game_id: dict(enumerate(seated(side, game_id, others(shards.of(game_id), count))))
        for game_id, count in zip(game_ids, (4, 2), strict=True)
    }
    stale = {game_id: side.projector.fold_until(game_id, 2) for game_id in game_ids}
    store = side.service.store
    with projectors_racing(store, game_ids, 3):
        for n, game_id in enumerate(game_ids):
            play(side, game_id, 15, seed=n)
    for game_id in game_ids:
        side.projector.project(game_id)
    raced = snapshot(side.client)
    players = [p for seats in owners.values() for p in seats.values()]
    feeds = {p: inbox_entries(side.client, p) for p in players}

    for game_id in game_ids:
        again = side.projector.project(game_id)
        fresh = Projector(store).project(game_id)  # no cached state
        assert again is not None and not again.written
        assert fresh is not None and not fresh.written
        seating = side.projector.seating(game_id, stale[game_id], owners[game_id], True, 0, {})
        assert not side.projector.write(game_id, stale[game_id], seating)  # late: refused
    assert snapshot(side.client) == raced
    assert {p: inbox_entries(side.client, p) for p in players} == feeds

    drop(side.client)
    for game_id in game_ids:
        Projector(store).project(game_id)
    assert snapshot(side.client) == raced


def test_a_projection_dying_between_the_inboxes_and_the_game_is_repaired(side: Side) -> None:
    game_id = side.service.create_game("famiglia", 2)
    players = seated(side, game_id, others(shards.of(game_id), 2))
    side.projector.project(game_id)
    before = side.models.summary(game_id)
    assert before is not None
    owing = players[before.to_act[0]]
    assert [s.game_id for s in side.models.inbox(owing)] == [game_id]
    version = before.version
    while owing_seats(side, game_id) == set(before.to_act):  # the turn passes
        version = play(side, game_id, 1, seed=version)

    dying = Projector(side.service.store)

    def crash(**_: object) -> None:
        raise RuntimeError("the worker died here")

    dying._write = crash  # type: ignore[assignment]  # the game's own step never runs
    with pytest.raises(RuntimeError):
        dying.project(game_id)
    assert side.models.version(game_id) == before.version  # its checkpoint did not move
    assert side.models.inbox(owing) == []  # the inboxes were written first
    entries = {p: len(inbox_entries(side.client, p)) for p in players}

    repaired = Projector(side.service.store).project(game_id)
    assert repaired is not None and repaired.written
    after = side.models.summary(game_id)
    assert after is not None and after.version == version
    for seat, player in enumerate(players):
        inbox = [s.game_id for s in side.models.inbox(player)]
        assert inbox == ([game_id] if seat in after.to_act else [])
    # The inboxes already written refused the repair: no second feed entry for them.
    assert {p: len(inbox_entries(side.client, p)) for p in players} == entries
    current = snapshot(side.client)
    drop(side.client)
    Projector(side.service.store).project(game_id)
    assert snapshot(side.client) == current


def test_the_lists_read_across_the_shards_in_one_order(side: Side) -> None:
    running = [side.service.create_game("famiglia", 2) for _ in range(6)]
    finished = [side.service.create_game("famiglia", 2) for _ in range(3)]
    for game_id in running:
        seated(side, game_id, [shards.of(game_id)])  # seat 1 open: all in the lobby
    rng = random.Random(3)
    for game_id in finished:
        play_out(side.service, game_id, rng, prefix=game_id[:4])
    for game_id in running + finished:
        side.projector.project(game_id)
    assert len({shards.of(g) for g in running + finished}) > 1

    def created(game_id: str) -> tuple[int, str]:
        return side.service.meta(game_id).created, game_id

    oldest_first = sorted(running, key=created)
    updated = {g: side.models.summary(g).updated for g in finished}  # type: ignore[union-attr]
    assert [s.game_id for s in side.models.games("running")] == oldest_first
    assert [s.game_id for s in side.models.games("running", 2, 3)] == oldest_first[2:5]
    assert [s.game_id for s in side.models.games("running", 5, 3)] == oldest_first[5:]
    assert [s.game_id for s in side.models.games("finished")] == sorted(
        finished, key=lambda g: (updated[g], g), reverse=True
    )
    newest_first = oldest_first[::-1]
    assert [s.game_id for s in side.models.lobby(1, 4)] == newest_first[1:5]
    assert side.models.games("running", 0, 0) == []
    assert side.models.count(rm.RUNNING) == side.models.count(rm.LOBBY) == len(running)
    assert side.models.count(rm.FINISHED) == len(finished)
    due = side.models.due(limit=1000)
    assert due == sorted(due, key=lambda d: (d[2], f"{d[0]}:{d[1]}"))
    assert {g for g, _, _ in due} == set(running)
    assert [d for d in side.models.due(limit=3)] == due[:3]


def test_rebuild_gives_back_the_very_bytes(side: Side) -> None:
    running = side.service.create_game("gangsta", 3)
    seated(side, running, others(shards.of(running), 2))
    play(side, running, 8)
    finished = side.service.create_game("famiglia", 2)
    seated(side, finished, others(shards.of(finished), 2))
    play_out(side.service, finished, random.Random(5))
    for game_id in (running, finished):
        side.projector.project(game_id)
    assert Ratings(side.client).rate(finished) == "rated"
    before = snapshot(side.client)
    assert rm.index_key(rm.FINISHED, shards.of(finished)).encode() in before

    rebuilt = rebuild(side.service.store)
    assert (rebuilt.games, rebuilt.differences) == (2, [])
    assert snapshot(side.client) == before

    # A read model that differs from the log is found (and replaced by the right one).
    side.client.hset(rm.game_key(running), "progress", b"{}")
    side.client.zadd(rm.index_key(rm.LOBBY, shards.of(finished)), {finished: 1})
    lobby = rm.index_key(rm.LOBBY, shards.of(finished))
    assert rebuild(side.service.store).differences == sorted([rm.game_key(running), lobby])
    assert snapshot(side.client) == before


@pytest.mark.server
def test_a_read_model_written_before_the_shards_is_projected_anew(real_redis: redis.Redis) -> None:
    """Its stored index entries name the single lists and the inboxes: the game's script leaves
    those keys alone (the inbox steps keep the inboxes; ``omerta rebuild`` drops the lists)."""
    side = on(real_redis)
    game_id = side.service.create_game("famiglia", 2)
    players = seated(side, game_id, others(shards.of(game_id), 2))
    side.projector.project(game_id)
    summary = side.models.summary(game_id)
    assert summary is not None
    owing = players[summary.to_act[0]]
    key = rm.game_key(game_id)
    before_shards = [[rm.RUNNING, game_id], [rm.DUE, rm.due_member(game_id, summary.to_act[0])],
                     [rm.inbox_key(owing), game_id]]  # fmt: skip
    real_redis.hset(key, mapping={"indexes": msgspec.json.encode(before_shards), "version": 1})
    real_redis.delete(rm.inbox_checkpoints_key(owing))
    real_redis.zadd(rm.RUNNING, {game_id: summary.created})

    assert Projector(side.service.store).project(game_id).written  # type: ignore[union-attr]
    assert [s.game_id for s in side.models.inbox(owing)] == [game_id]
    assert [s.game_id for s in side.models.games("running")] == [game_id]
    assert real_redis.zscore(rm.RUNNING, game_id) == summary.created  # left to the rebuild
