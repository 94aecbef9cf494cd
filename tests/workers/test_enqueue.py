"""Asking for projections: at most one waiting job per game (coalescing), and nothing lost."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import redis
from rq import Queue

from services import commands
from services.readmodels import ReadModels
from tests.workers.helpers import assert_read_models_current
from tests.workers.test_projection import human_moves
from workers import enqueue, runtime
from workers.projection import pending_key

pytestmark = pytest.mark.server


def waiting() -> int:
    return runtime.queue(runtime.PROJECTIONS).count


def test_appends_share_one_waiting_projection_job(
    workers_redis: redis.Redis, read_models: ReadModels, drain: Callable[[], None]
) -> None:
    game_id = commands.create_game("gangsta", 3)
    assert waiting() == 1 and workers_redis.exists(pending_key(game_id))
    human_moves(game_id, 6)
    assert waiting() == 1  # the creation's job, still waiting, will read these moves too
    other = commands.create_game("famiglia", 2)
    assert waiting() == 2  # one per game
    drain()
    for game in (game_id, other):
        assert_read_models_current(read_models, game)
        assert not workers_redis.exists(pending_key(game))
    human_moves(game_id, 1, seed=2)
    assert waiting() == 1  # nothing waits any more: a new change gets a new job
    drain()
    assert_read_models_current(read_models, game_id)


def test_a_change_after_the_projection_read_gets_a_job_of_its_own(
    workers_redis: redis.Redis, read_models: ReadModels, drain: Callable[[], None]
) -> None:
    game_id = commands.create_game("famiglia", 2)
    assert waiting() == 1
    runtime.projector().project(game_id)  # a projection has read the game (and cleared the flag)
    human_moves(game_id, 1)
    assert waiting() == 2  # this move must not wait for the job that already ran
    drain()
    assert_read_models_current(read_models, game_id)


def test_seat_changes_ask_the_same_way(workers_redis: redis.Redis) -> None:
    game_id = commands.create_game("famiglia", 2)
    assert not enqueue.request_projection(game_id)  # the creation's job is still waiting
    runtime.projector().project(game_id)
    assert enqueue.request_projection(game_id)
    assert waiting() == 2


def test_a_failed_enqueue_leaves_no_flag_behind(
    workers_redis: redis.Redis, read_models: ReadModels, monkeypatch: pytest.MonkeyPatch
) -> None:
    game_id = commands.create_game("famiglia", 2)
    runtime.projector().project(game_id)
    runtime.queue(runtime.PROJECTIONS).empty()

    def refused(*args: object, **kwargs: object) -> None:
        raise redis.ResponseError("OOM command not allowed")

    with monkeypatch.context() as patched:
        patched.setattr(Queue, "enqueue_call", refused)
        with pytest.raises(redis.ResponseError):
            enqueue.request_projection(game_id)
        human_moves(game_id, 1)  # the hook's failure is logged; the move is stored
    assert not workers_redis.exists(pending_key(game_id))
    assert waiting() == 0
    assert enqueue.request_projection(game_id)  # the next change asks again
    runtime.projector().project(game_id)
    assert_read_models_current(read_models, game_id)
