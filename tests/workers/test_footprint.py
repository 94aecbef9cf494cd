"""What the store carries beyond the games: RQ's records of finished jobs, read-model writes
that rewrite what did not change, the feed behind its readers; no game's read model keeps views."""

from __future__ import annotations

from collections.abc import Callable

import fakeredis
import msgspec
import pytest
import redis

from bootstrap import Container
from services.errors import WrongSeat
from services.eventstore import keys
from services.readside import readmodels as rm
from services.readside.readmodels import ReadModels
from tests.feeds import changed, woken
from tests.workers.helpers import assert_read_models_current, served_view
from tests.workers.test_projection import human_moves
from workers import ai
from workers import queues as wq
from workers.projection import catchup
from workers.projection import jobs as project_jobs
from workers.projection.projector import Seating, trim_feed

pytestmark = pytest.mark.server


def test_jobs_that_succeed_leave_no_records_behind(
    container: Container,
    workers_redis: redis.Redis,
    read_models: ReadModels,
    drain: Callable[[], None],
) -> None:
    game_id = container.commands.create_game(
        "gangsta", 3, {}, ai={0: "random", 1: "greedy", 2: "random"}
    )
    drain()
    assert assert_read_models_current(container, read_models, game_id) is not None, (
        "the game did not end"
    )
    left = sorted(k.decode() for k in workers_redis.scan_iter(match="rq:*"))
    assert not [k for k in left if k.startswith(("rq:job:", "rq:results:", "rq:finished:"))]


def calls(client: redis.Redis, command: str) -> int:
    return int(client.info("commandstats").get(f"cmdstat_{command}", {}).get("calls", 0))


def test_a_projection_writes_only_what_changed(
    container: Container, workers_redis: redis.Redis
) -> None:
    game_id = container.commands.create_game("famiglia", 2)
    human_moves(container, game_id, 3)
    projector = container.projector
    assert projector.project(game_id) is not None
    folded = projector._cache.get(game_id)
    assert folded is not None
    workers_redis.config_resetstat()
    # A later checkpoint with the same state: the summary's progress (its version) and the
    # checkpoint change; the rest of the summary, the views, the seat count and the index
    # entries do not.
    assert projector.write(game_id, folded._replace(version=folded.version + 1), Seating({}, False))
    assert calls(workers_redis, "hset") == 2
    assert calls(workers_redis, "zrem") == 0


def test_the_feed_is_trimmed_behind_the_catch_up_cursor(
    container: Container, workers_redis: redis.Redis, one_shard: int
) -> None:
    feed, cursor = keys.shard_feed_key(one_shard), catchup.cursor_key(one_shard)
    old = int(workers_redis.time()[0]) * 1000 - 2 * 60_000
    for n in range(5):  # entries from long ago: the catch-up has been past them for long
        workers_redis.xadd(feed, {"game": "gone", "version": 1}, id=f"{old}-{n + 1}")
    workers_redis.set(cursor, f"{old - 1}-0")
    container.commands.create_game("famiglia", 2)
    [recent] = workers_redis.xrange(feed, f"({old}-5", "+")
    catchup.catch_up(container.context)
    assert workers_redis.xrange(feed) == [recent]
    assert workers_redis.get(cursor) == recent[0]


def test_trim_feed_keeps_what_is_recent_enough_behind_the_cursor() -> None:
    client = fakeredis.FakeRedis()
    for ms in (1_000, 5_000, 9_000, 10_000, 12_000):
        client.xadd(keys.shard_feed_key(5), {"game": "g", "version": 1}, id=f"{ms}-0")
    assert trim_feed(client, 5, "12000-0", keep_ms=3_000) == 2
    got = [i for i, _ in client.xrange(keys.shard_feed_key(5))]
    assert got == [b"9000-0", b"10000-0", b"12000-0"]
    assert trim_feed(client, 5, "2000-0", keep_ms=3_000) == 0


def test_a_finished_game_keeps_no_view_and_its_views_are_served(
    container: Container,
    workers_redis: redis.Redis,
    read_models: ReadModels,
    drain: Callable[[], None],
) -> None:
    """The views are built from the command service's state when asked for: a game's read
    model (kept for good once it is over) holds none."""
    ai = {s: "random" for s in range(4)}
    game_id = container.commands.create_game("gangsta", 4, {}, ai=ai)
    drain()
    assert (
        assert_read_models_current(container, read_models, game_id) is not None
    )  # every seat's view
    assert set(workers_redis.hkeys(rm.game_key(game_id))) == {
        b"version",
        b"seated",
        b"summary",
        b"progress",
        b"indexes",
    }
    for seat in (4, -1):  # a seat the game does not have: nothing is served as it
        with pytest.raises(WrongSeat):
            container.commands.history(game_id, seat)
    assert msgspec.json.decode(served_view(container.commands, game_id, None)[1])["seat"] is None


def test_a_move_rewrites_only_the_summary_s_progress_and_old_summaries_still_read(
    container: Container, workers_redis: redis.Redis, read_models: ReadModels
) -> None:
    game_id = container.commands.create_game("gangsta", 3)
    container.projector.project(game_id)
    key = rm.game_key(game_id)
    before = workers_redis.hget(key, "summary")
    human_moves(container, game_id, 2)
    container.projector.project(game_id)
    assert workers_redis.hget(key, "summary") == before
    summary = read_models.summary(game_id)
    assert summary is not None and summary.version == container.commands.load(game_id).version
    # A read model written before the split: the whole summary in one field.
    workers_redis.hdel(key, "progress")
    workers_redis.hset(key, "summary", msgspec.json.encode(summary))
    assert read_models.summary(game_id) == summary
    assert read_models.summaries([game_id]) == [summary]


def test_an_ai_job_wakes_no_projection_job_for_its_own_moves(
    container: Container, workers_redis: redis.Redis, read_models: ReadModels, one_shard: int
) -> None:
    """The AI job projects its game after each move, and the changed games at its end, so its
    appends need no ``project_changed`` job of their own (a job is most of what RQ writes)."""
    game_id = container.commands.create_game("famiglia", 2, {}, ai={1: "random"})
    project_jobs.project_changed(container.context, one_shard)
    while 1 not in container.commands.load(game_id).game.to_act(
        container.commands.load(game_id).state
    ):
        human_moves(container, game_id, 1, seed=container.commands.load(game_id).version)
        project_jobs.project_changed(container.context, one_shard)
    other = container.commands.create_game(
        "gangsta", 2
    )  # a change elsewhere, while the flag is set
    for name in wq.QUEUES:
        container.queues.queue(name).empty()
    workers_redis.delete(keys.wake_key(one_shard))
    ai.ai_move(container.context, game_id, container.commands.load(game_id).version)
    assert len(container.queues.queue(wq.PROJECTIONS)) == 0
    assert not changed(workers_redis) and not woken(workers_redis)
    for game in (game_id, other):
        assert_read_models_current(container, read_models, game)
