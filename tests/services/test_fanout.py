"""The fan-out (``services.readside.fanout``): one reader follows the store's feeds (on a cluster:
one per shard watched) and wakes the waits on a game that passes their version, and only those;
nothing appended after ``watch()`` is missed; the reader holds one connection however many wait,
stops once nothing is watched, a store that fails ends the waits (``Unavailable``) until it answers
again, and closing it (the process stops) ends every wait, begun or to come (``Closing``)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest
import redis
from redis.cluster import RedisCluster

from services.errors import Unavailable
from services.eventstore import keys, shards
from services.eventstore.store import EventStore
from services.games.chat import Chat
from services.games.commands import CommandService
from services.games.repository import EventStoreRepository
from services.platform.embedded import EmbeddedServer
from services.readside.fanout import BLOCK_MS, Closing, Fanout
from tests.feeds import id_in

pytestmark = pytest.mark.server

LONG = 30.0  # a wait that must be woken long before this


def appended(client: redis.Redis | RedisCluster, game_id: str, version: int) -> None:
    """What every append adds to the feed (``services.eventstore.store.APPEND``)."""
    client.xadd(keys.feed_key(game_id), {"game": game_id, "version": version})


def waiting(target: Callable[[], object]) -> tuple[threading.Thread, list[object]]:
    out: list[object] = []

    def run() -> None:
        try:
            out.append(target())
        except Exception as exc:  # the test looks at it
            out.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, out


def test_a_wait_wakes_on_its_game_passing_its_version_only(real_redis: redis.Redis) -> None:
    fanout = Fanout(real_redis)
    watch = fanout.watch("g1")
    thread, out = waiting(lambda: watch.wait(5, LONG))
    appended(real_redis, "g2", 9)  # another game
    appended(real_redis, "g1", 5)  # not after the version the stream has sent
    time.sleep(0.3)
    assert out == [] and thread.is_alive()
    begun = time.monotonic()
    appended(real_redis, "g1", 6)
    thread.join(LONG)
    assert out == [True]
    assert time.monotonic() - begun < LONG / 2
    assert watch.wait(5, 0) is True  # the version stays known
    assert watch.wait(6, 0.1) is False  # nothing after 6: the wait times out
    watch.close()


def test_closing_ends_every_wait_begun_or_to_come(real_redis: redis.Redis) -> None:
    fanout = Fanout(real_redis)
    game, player = fanout.watch("g1"), fanout.watch_player("p1")
    waits = [waiting(lambda: game.wait(0, LONG)), waiting(lambda: player.wait(0, LONG))]
    fanout.close()
    for thread, out in waits:
        thread.join(LONG)
        assert not thread.is_alive() and isinstance(out[0], Closing), out
    later = fanout.watch("g2")
    with pytest.raises(Closing):
        later.wait(0, LONG)


def test_an_append_between_watch_and_wait_is_not_missed(real_redis: redis.Redis) -> None:
    service = CommandService(EventStoreRepository(EventStore(real_redis)))
    game_id = service.create_game("famiglia", seats=2, options={}, ai={})
    fanout = Fanout(real_redis)
    watch = fanout.watch(game_id)
    version = service.load(game_id).version  # the stream reads its records...
    game, state, _, _ = service.load(game_id)
    seat = min(game.to_act(state))
    service.handle(game_id, seat, game.legal(state, seat)[0], "c1")  # ...a move
    assert watch.wait(version, LONG) is True  # ...then waits: woken by the move all the same
    watch.close()


def test_many_waits_share_one_connection_and_all_wake(
    embedded_server_factory: Callable[..., EmbeddedServer],
) -> None:
    store = embedded_server_factory()
    client = store.client()
    fanout = Fanout(client)
    games = [f"g{i}" for i in range(20)]
    watches = [fanout.watch(g) for g in games for _ in range(10)]
    waits = [waiting(lambda w=w: w.wait(0, LONG)) for w in watches]
    time.sleep(0.3)
    assert store.client().info("clients")["connected_clients"] <= 3  # reader, the test's two
    for game_id in games:
        appended(client, game_id, 1)
    for thread, _ in waits:
        thread.join(LONG)
    assert [out for _, out in waits] == [[True]] * len(watches)
    for watch in watches:
        watch.close()
    assert fanout.watched() == 0


def test_the_reader_stops_when_nothing_is_watched(real_redis: redis.Redis) -> None:
    fanout = Fanout(real_redis)
    watch = fanout.watch("g1")
    assert [t for t in threading.enumerate() if t.name == "omerta-fanout"]
    watch.close()
    deadline = time.monotonic() + LONG
    while fanout.running:
        assert time.monotonic() < deadline, "the reader still runs with nothing watched"
        time.sleep(BLOCK_MS / 1000 / 4)
    again = fanout.watch("g1")  # a new watch starts a reader again, and is woken
    appended(real_redis, "g1", 1)
    assert again.wait(0, LONG) is True
    again.close()


def test_a_failing_store_ends_the_waits_until_it_answers(
    embedded_server_factory: Callable[..., EmbeddedServer],
) -> None:
    store = embedded_server_factory()
    client = store.client()
    fanout = Fanout(client)
    watch = fanout.watch("g1")
    thread, out = waiting(lambda: watch.wait(0, LONG))
    time.sleep(0.3)
    store.kill()
    thread.join(LONG)
    assert len(out) == 1 and isinstance(out[0], Unavailable)
    with pytest.raises(Unavailable):  # while the store is down, a wait ends at once
        watch.wait(0, LONG)
    embedded_server_factory(store.directory, port=store.port)  # back, with its data
    deadline = time.monotonic() + LONG
    while True:
        try:
            assert watch.wait(0, 0.1) is False
            break
        except Unavailable:
            assert time.monotonic() < deadline, "the reader never got the store back"
    appended(client, "g1", 1)
    assert watch.wait(0, LONG) is True
    watch.close()


def test_streams_woken_together_share_a_read_until_the_game_moves(
    real_redis: redis.Redis,
) -> None:
    fanout = Fanout(real_redis)
    first, second = fanout.watch("g1"), fanout.watch("g1")
    reads: list[str] = []

    def read(label: str) -> Callable[[], str]:
        return lambda: reads.append(label) or label

    assert first.read((None, 0), read("a")) == "a"
    assert second.read((None, 0), read("b")) == "a"  # the same seat and version: shared
    assert second.read((1, 0), read("c")) == "c"  # another seat reads for itself
    appended(real_redis, "g1", 1)
    assert first.wait(0, LONG) is True
    assert second.read((None, 0), read("d")) == "d"  # the game moved: read again
    assert reads == ["a", "c", "d"]
    first.close()
    second.close()


def projected(client: redis.Redis | RedisCluster, game_id: str, version: int, players: str) -> None:
    """What a projection's writes add to the inbox feeds of the players' shards
    (``workers.projection.projector``): one entry per player."""
    for player_id in players.split(","):
        client.xadd(
            keys.inbox_feed_key(shards.of(player_id)),
            {"game": game_id, "version": version, "players": player_id},
        )


def test_a_player_watch_wakes_on_inbox_feed_entries_naming_the_player(
    real_redis: redis.Redis,
) -> None:
    fanout = Fanout(real_redis)
    ann = fanout.watch_player("ann")
    game = fanout.watch("g1")  # one reader follows both feeds
    thread, out = waiting(lambda: ann.wait(ann.start, LONG))
    projected(real_redis, "g1", 3, "bob,cy")  # others' inboxes
    appended(real_redis, "g1", 4)
    assert game.wait(3, LONG) is True
    assert out == [] and thread.is_alive()
    projected(real_redis, "g1", 4, "ann,bob")
    projected(real_redis, "g2", 7, "ann")
    thread.join(LONG)
    assert out == [True]
    deadline = time.monotonic() + LONG
    while ann.changes(ann.start)[0] < ann.start + 2:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    version, last, changed = ann.changes(ann.start)
    assert changed == {"g1": 4, "g2": 7}
    assert last == real_redis.xrevrange(keys.inbox_feed_key(shards.of("ann")), count=1)[0][0]
    assert ann.changes(version) == (version, None, {})
    # The count is read once per change by the streams of one player.
    reads: list[int] = []
    for _ in range(3):
        assert ann.read(version, lambda: reads.append(1) or len(reads)) == 1
    ann.close()
    game.close()
    deadline = time.monotonic() + LONG
    while fanout.running:  # nothing watched: the reader stops
        assert time.monotonic() < deadline
        time.sleep(0.05)


@pytest.fixture(params=["server", "cluster"])
def either(request: pytest.FixtureRequest) -> redis.Redis | RedisCluster:
    """A single server or a real cluster: one reader for every shard, or one per shard."""
    if request.param == "cluster":
        request.applymarker(pytest.mark.cluster)
        return request.getfixturevalue("cluster_redis")
    return request.getfixturevalue("real_redis")


def test_watches_in_many_shards_and_a_player_all_wake(either: redis.Redis | RedisCluster) -> None:
    fanout = Fanout(either)
    games = [id_in(shard) for shard in (0, 7, 21, 42, 63)]
    player = id_in(33, 12)
    watches = [fanout.watch(g) for g in games]
    chatty = fanout.watch(games[1])  # also follows the chat beside the events
    ann = fanout.watch_player(player)
    # One reader on a server; on a cluster one per shard watched (one slot per XREAD).
    assert fanout.running == (6 if isinstance(either, RedisCluster) else 1)
    waits = [waiting(lambda w=w: w.wait(0, LONG)) for w in watches]
    side = waiting(lambda: chatty.wait(5, LONG, side=chatty.side))
    inbox = waiting(lambda: ann.wait(ann.start, LONG))
    for game_id in games:
        appended(either, game_id, 1)
    Chat(either).post(games[1], 0, "hello")  # the side feed of its game's shard
    projected(either, games[3], 2, player)  # the inbox feed of the player's shard
    for thread, _ in [*waits, side, inbox]:
        thread.join(LONG)
    assert [out for _, out in [*waits, side, inbox]] == [[True]] * (len(games) + 2)
    _, last, changed = ann.changes(ann.start)
    assert changed == {games[3]: 2}
    assert last == either.xrevrange(keys.inbox_feed_key(33), count=1)[0][0]
    for watch in [*watches, chatty, ann]:
        watch.close()
    deadline = time.monotonic() + LONG
    while fanout.running:  # nothing watched: every reader stops
        assert time.monotonic() < deadline
        time.sleep(0.05)


def test_a_new_watch_in_a_followed_shard_misses_nothing(
    either: redis.Redis | RedisCluster,
) -> None:
    fanout = Fanout(either)
    first, second = id_in(5), id_in(5)
    held = fanout.watch(first)
    appended(either, first, 1)
    assert held.wait(0, LONG) is True
    watch = fanout.watch(second)  # the shard's reader runs already
    appended(either, second, 3)
    assert watch.wait(2, LONG) is True
    held.close()
    watch.close()
