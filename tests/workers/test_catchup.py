"""The catch-up pass on its own: lost enqueues, the feed cursor, young entries, reading helpers."""

from __future__ import annotations

import msgspec
import pytest
import redis
from rq.job import JobStatus

from bootstrap import Container
from services.errors import WrongSeat
from services.eventstore import shards
from services.eventstore.store import now_ms
from services.identity.players import Players
from services.readside import readmodels as rm
from services.readside.readmodels import ReadModels
from tests.services.helpers import tamper
from workers import queues as wq
from workers.projection import catchup
from workers.projection import jobs as project_jobs

pytestmark = pytest.mark.server


def test_the_catch_up_projects_games_whose_jobs_were_never_enqueued(
    container: Container,
    workers_redis: redis.Redis,
    read_models: ReadModels,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(container.commands.repository, "hooks", [])  # every enqueue is lost
    game_ids = [
        container.commands.create_game("famiglia", 2),
        container.commands.create_game("gangsta", 3),
    ]
    assert all(read_models.summary(g) is None for g in game_ids)
    assert container.queues.queue(wq.PROJECTIONS).count == 0

    young = catchup.catch_up(container.context, settle_ms=60_000)
    assert young.projected == 0  # still young: their jobs may be on the way
    done = catchup.catch_up(container.context)
    assert (done.feed_entries, done.projected) == (2, 2)
    for game_id in game_ids:
        summary = read_models.summary(game_id)
        assert summary is not None
        assert summary.version == container.commands.load(game_id).version
    for game_id in game_ids:
        assert workers_redis.get(catchup.cursor_key(shards.of(game_id))) is not None
    again = catchup.catch_up(container.context)
    assert again == catchup.CaughtUp(0, 0, 0)  # the cursor moved past them


def test_a_broken_game_holds_up_no_other_in_the_catch_up(
    container: Container,
    workers_redis: redis.Redis,
    read_models: ReadModels,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(container.commands.repository, "hooks", [])  # every enqueue is lost
    broken = container.commands.create_game("famiglia", 2)
    tamper(workers_redis, broken, 1, lambda data: {**data, "forged": True})  # fails to decode
    fine = container.commands.create_game("gangsta", 2)
    done = catchup.catch_up(container.context)
    assert (done.feed_entries, done.projected) == (2, 2)
    assert read_models.summary(broken) is None
    assert read_models.summary(fine) is not None
    [alone] = container.queues.queue(wq.PROJECTIONS).jobs  # the broken game's own job
    assert (alone.func_name, alone.args) == ("workers.projection.jobs.project", (broken,))
    assert catchup.catch_up(container.context) == catchup.CaughtUp(0, 0, 0)  # moved past it


def test_the_catch_up_revives_an_ai_move_whose_job_was_lost(
    container: Container, workers_redis: redis.Redis, read_models: ReadModels
) -> None:
    game_id = container.commands.create_game("famiglia", 2, ai={0: "greedy", 1: "greedy"})
    for name in wq.QUEUES:
        container.queues.queue(name).empty()  # the projection job (and so the AI move) is lost
    assert catchup.catch_up(container.context).projected == 1
    # The projection enqueued the move; lose that one as well.
    assert container.queues.queue(wq.AI).count == 1
    container.queues.queue(wq.AI).empty()
    revived = catchup.catch_up(container.context, ai_grace_ms=0)
    assert revived.ai_jobs == 1
    (job,) = container.queues.queue(wq.AI).jobs
    assert job.args == (game_id, container.commands.load(game_id).version)
    # While that job waits in the queue, another pass adds nothing.
    assert catchup.catch_up(container.context, ai_grace_ms=0).ai_jobs == 0
    assert catchup.catch_up(container.context, ai_grace_ms=60_000).ai_jobs == 0


def test_reading_helpers(
    container: Container, workers_redis: redis.Redis, read_models: ReadModels
) -> None:
    first = container.commands.create_game("famiglia", 2)
    second = container.commands.create_game("gangsta", 2)
    for game_id in (first, second):
        container.projector.project(game_id)
    assert [s.game_id for s in read_models.games("running")] == [first, second]
    assert read_models.games("finished") == []
    with pytest.raises(ValueError, match="status"):
        read_models.games("lost")
    version = container.commands.load(first).version
    assert read_models.wait_for(first, version, timeout=0.1)
    assert not read_models.wait_for(first, version + 1, timeout=0.05)
    with pytest.raises(WrongSeat):  # no such seat
        container.commands.history(first, 5)
    assert read_models.summary("no-such-game") is None
    container.commands.notify(first, version)
    assert container.queues.queue(wq.PROJECTIONS).count >= 1


def test_the_catch_up_sees_a_seat_taken_whose_projection_was_lost(
    container: Container, workers_redis: redis.Redis, read_models: ReadModels
) -> None:
    players = Players(workers_redis)
    alice, _ = players.create("Alice")
    bob, _ = players.create("Bob")
    game_id = container.commands.create_game("famiglia", 2)
    players.open_table(game_id, 0, [0, 1], alice.id, 0, public=True)
    container.projector.project(game_id)
    catchup.catch_up(container.context)  # the feed so far
    assert [s.game_id for s in read_models.lobby()] == [game_id]
    players.join(game_id, bob.id, None)  # and the API's projection request is lost
    assert [s.game_id for s in read_models.lobby()] == [game_id]
    assert catchup.catch_up(container.context).projected == 1
    assert read_models.lobby() == []
    summary = read_models.summary(game_id)
    assert summary is not None and [s.player for s in summary.seats] == [alice.id, bob.id]


def test_an_ai_job_popped_but_never_started_is_enqueued_again(
    container: Container, workers_redis: redis.Redis, read_models: ReadModels
) -> None:
    """A worker that dies between RQ's pop and the job's start (or whose next write is refused)
    leaves the job "queued" in RQ's records, in no queue: the periodic pass moves it anyway."""
    game_id = container.commands.create_game("famiglia", 2, ai={0: "greedy", 1: "greedy"})
    container.queues.queue(wq.PROJECTIONS).empty()
    project_jobs.project(container.context, game_id)  # the projection enqueues the AI move
    ai = container.queues.queue(wq.AI)
    (job,) = ai.jobs
    workers_redis.lrem(ai.key, 0, job.id)  # popped, and its worker gone
    assert job.get_status(refresh=True) == "queued"
    assert catchup.oldest_ai_due_ms(workers_redis) is not None
    revived = catchup.catch_up(container.context, ai_grace_ms=0, revive_failed=False)
    assert revived.ai_jobs == 1
    (again,) = ai.jobs
    assert again.args == (game_id, container.commands.load(game_id).version)
    # Lost once more (the catch-up's own job): the next pass enqueues it again.
    workers_redis.lrem(ai.key, 0, again.id)
    assert catchup.catch_up(container.context, ai_grace_ms=0).ai_jobs == 1
    assert catchup.catch_up(container.context, ai_grace_ms=0).ai_jobs == 0  # now it waits


def test_the_age_of_the_oldest_due_ai_move(
    container: Container, workers_redis: redis.Redis
) -> None:
    assert catchup.oldest_ai_due_ms(workers_redis) is None
    game_id = container.commands.create_game("famiglia", 2, ai={0: "greedy", 1: "greedy"})
    container.projector.project(game_id)
    since = int(workers_redis.zscore(rm.AI_DUE, game_id) or 0)
    age = catchup.oldest_ai_due_ms(workers_redis)
    assert age is not None and 0 <= age <= now_ms() - since


def test_a_job_failed_for_another_reason_than_its_move_is_moved_again(
    container: Container,
    workers_redis: redis.Redis,
) -> None:
    """RQ marks "failed" a job whose worker died (abandoned) or that was stuck after its pop:
    the periodic pass moves it again; only a move that failed (``ai_error`` at that version)
    is left to the failed registry."""
    game_id = container.commands.create_game("famiglia", 2, ai={0: "greedy", 1: "greedy"})
    container.queues.queue(wq.PROJECTIONS).empty()
    project_jobs.project(container.context, game_id)
    ai = container.queues.queue(wq.AI)

    def fail_the_queued_job() -> None:
        (job,) = ai.jobs
        workers_redis.lrem(ai.key, 0, job.id)
        job.set_status(JobStatus.FAILED)

    fail_the_queued_job()
    assert catchup.catch_up(container.context, revive_failed=False).ai_jobs == 1
    fail_the_queued_job()
    version = container.commands.load(game_id).version
    error = rm.AiError(0, version, "RuntimeError: the bot fell over", now_ms())
    workers_redis.set(rm.ai_error_key(game_id), msgspec.json.encode(error))
    assert catchup.catch_up(container.context, revive_failed=False).ai_jobs == 0
    assert catchup.catch_up(container.context, revive_failed=True).ai_jobs == 1
