"""Waking the read side: one waiting projection job for every change in every game of a shard
(coalescing), a job of its own for a change after a job took the changed games, a game whose
projection fails set apart, and nothing lost."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import redis
from rq import Queue

from bootstrap import Container
from services.eventstore import shards
from services.readside.readmodels import ReadModels
from tests.feeds import changed, id_in, woken
from tests.workers.helpers import assert_read_models_current
from tests.workers.test_projection import human_moves
from workers import queues as wq
from workers.projection import jobs as project_jobs
from workers.projection.projector import Projector

pytestmark = pytest.mark.server


def waiting(container: Container) -> list[str]:
    """The functions of the waiting projection jobs."""
    queue = container.queues.queue(wq.PROJECTIONS)
    return [job.func_name for job in queue.jobs]


def test_changes_in_every_game_of_a_shard_share_one_waiting_job(
    container: Container,
    workers_redis: redis.Redis,
    read_models: ReadModels,
    drain: Callable[[], None],
    one_shard: int,
) -> None:
    game_id = container.commands.create_game("gangsta", 3)
    assert waiting(container) == ["workers.projection.jobs.project_changed"]
    human_moves(container, game_id, 6)
    other = container.commands.create_game("famiglia", 2)
    assert len(waiting(container)) == 1  # the waiting job will take these changes too
    assert changed(workers_redis) == {game_id.encode(), other.encode()}
    drain()
    for game in (game_id, other):
        assert_read_models_current(container, read_models, game)
    assert not changed(workers_redis) and not woken(workers_redis)
    human_moves(container, game_id, 1, seed=2)
    assert len(waiting(container)) == 1  # nothing waited any more: a new change wakes a new job
    drain()
    assert_read_models_current(container, read_models, game_id)


def test_each_shard_wakes_a_job_of_its_own(container: Container,
    workers_redis: redis.Redis, read_models: ReadModels, drain: Callable[[], None],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    made = iter([id_in(3), id_in(40)])
    monkeypatch.setattr(shards, "new_id", lambda nbytes: next(made))
    first, second = (
        container.commands.create_game("famiglia", 2),
        container.commands.create_game("gangsta", 2),
    )
    assert [job.args for job in container.queues.queue(wq.PROJECTIONS).jobs] == [(3,), (40,)]
    assert woken(workers_redis) == [3, 40]
    drain()
    for game in (first, second):
        assert_read_models_current(container, read_models, game)


def test_a_change_after_the_job_took_the_games_gets_a_job_of_its_own(
    container: Container,
    workers_redis: redis.Redis,
    read_models: ReadModels,
    drain: Callable[[], None],
) -> None:
    game_id = container.commands.create_game("famiglia", 2)
    assert (
        project_jobs.project_changed(container.context, shards.of(game_id)) == 1
    )  # a job ran (cleared the flag, took the game)
    assert len(waiting(container)) == 1  # the creation's own job, not run yet
    container.queues.queue(wq.PROJECTIONS).empty()
    human_moves(container, game_id, 1)
    assert len(waiting(container)) == 1  # this move must not wait for the job that already ran
    drain()
    assert_read_models_current(container, read_models, game_id)


def test_seat_changes_ask_the_same_way(container: Container, workers_redis: redis.Redis) -> None:
    game_id = container.commands.create_game("famiglia", 2)
    svc = container.commands
    svc.notify(game_id, 1)  # the creation's job is still waiting
    assert len(waiting(container)) == 1
    project_jobs.project_changed(container.context, shards.of(game_id))
    svc.notify(game_id, 1)
    assert len(waiting(container)) == 2
    assert changed(workers_redis) == {game_id.encode()}


def test_a_failed_enqueue_leaves_no_flag_behind(
    container: Container,
    workers_redis: redis.Redis,
    read_models: ReadModels,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    game_id = container.commands.create_game("famiglia", 2)
    project_jobs.project_changed(container.context, shards.of(game_id))
    container.queues.queue(wq.PROJECTIONS).empty()

    def refused(*args: object, **kwargs: object) -> None:
        raise redis.ResponseError("OOM command not allowed")

    with monkeypatch.context() as patched:
        patched.setattr(Queue, "enqueue_call", refused)
        human_moves(container, game_id, 1)  # the hook's failure is logged; the move is stored
    assert not woken(workers_redis)
    assert waiting(container) == []
    human_moves(container, game_id, 1, seed=3)  # the next change asks again
    assert len(waiting(container)) == 1
    assert project_jobs.project_changed(container.context, shards.of(game_id)) == 1
    assert_read_models_current(container, read_models, game_id)


def test_a_game_whose_projection_fails_gets_a_job_of_its_own(container: Container,
    workers_redis: redis.Redis, read_models: ReadModels, monkeypatch: pytest.MonkeyPatch,
    one_shard: int,
) -> None:  # fmt: skip
    broken, fine = (
        container.commands.create_game("famiglia", 2),
        container.commands.create_game("gangsta", 2),
    )
    container.queues.queue(wq.PROJECTIONS).empty()
    real = Projector.project

    def project(self: Projector, game_id: str) -> object:
        if game_id == broken:
            raise ValueError("a bug in this game's projection")
        return real(self, game_id)

    with monkeypatch.context() as patched:
        patched.setattr(Projector, "project", project)
        assert project_jobs.project_changed(container.context, one_shard) == 2
    assert_read_models_current(container, read_models, fine)
    assert read_models.summary(broken) is None
    [alone] = container.queues.queue(wq.PROJECTIONS).jobs
    assert (alone.func_name, alone.args) == ("workers.projection.jobs.project", (broken,))
    assert alone.retries_left == 3
    assert (
        project_jobs.project(container.context, broken) == container.commands.load(broken).version
    )
    assert_read_models_current(container, read_models, broken)
