"""Jobs whose worker was killed in them (SIGKILL), with real RQ on the session's server: RQ
finds them abandoned once their heartbeats stop, and then their retries run them again. A
projection job that then runs must end finished, though the dead worker's execution is gone
from the store while its entry in the job's executions lives on; a deadline job must be tried
again too. The catch-up settles the projection jobs that failed for good."""

from __future__ import annotations

import time

import pytest
import redis
from rq import SimpleWorker
from rq.executions import Execution
from rq.job import Job
from rq.registry import FailedJobRegistry, ScheduledJobRegistry, StartedJobRegistry

from bootstrap import Container
from services.eventstore import keys, shards
from services.eventstore.store import now_ms
from services.readside.readmodels import ReadModels
from tests.workers.helpers import wait
from tests.workers.test_deadlines import _seated_game as seated_game
from workers import queues as wq
from workers import worker
from workers.clocks import deadlines
from workers.projection import catchup

pytestmark = pytest.mark.server


def killed_in(container: Container, job: Job) -> Execution:
    """A worker takes ``job`` off its queue and starts it, then is killed: RQ's records of the
    job stay as they were at its start (its execution, the started registry)."""
    queue = container.queues.queue(job.origin)
    queue.remove(job.id)
    dead = SimpleWorker([queue], connection=queue.connection, name=f"killed-{job.id}")
    execution = dead.prepare_execution(job)
    dead.prepare_job_execution(job)
    return execution


def abandoned(container: Container, job: Job) -> None:
    """What RQ's maintenance does once the dead worker's heartbeats have stopped long enough:
    the job is abandoned, and retried if it has retries left, else failed."""
    StartedJobRegistry(queue=container.queues.queue(job.origin)).cleanup(time.time() + 3600)


def run_retries(container: Container, job: Job) -> None:
    """Once the job's retry is due, a worker (with RQ's scheduler) runs it, and what it
    queues, until its queues are empty."""
    scheduled = ScheduledJobRegistry(queue=container.queues.queue(job.origin))
    assert job.id in scheduled.get_job_ids(), job.get_status(refresh=True)
    wait(lambda: job.id in scheduled.get_jobs_to_schedule(), 10, "the job's retry to be due")
    worker.make_worker(container.context).work(
        burst=True, with_scheduler=True, logging_level="WARNING"
    )


def test_a_projection_job_run_again_after_its_worker_was_killed_ends_finished(
    container: Container, workers_redis: redis.Redis, read_models: ReadModels
) -> None:
    game_id = container.commands.create_game("famiglia", 2)
    projections = container.queues.queue(wq.PROJECTIONS)
    projections.empty()
    container.context.wake.project_alone(game_id)
    (job,) = projections.jobs
    execution = killed_in(container, job)
    # The dead worker's execution expires with its heartbeats, 60 s before its entry in the
    # job's executions does: RQ's cleanup of the job after its next run reads that entry.
    workers_redis.delete(execution.key)
    assert execution.id in job.execution_registry.get_execution_ids()
    abandoned(container, job)
    run_retries(container, job)

    assert job.id not in FailedJobRegistry(queue=projections).get_job_ids()
    assert not Job.exists(job.id, connection=projections.connection)  # finished: no result kept
    summary = read_models.summary(game_id)
    assert summary is not None and summary.version == container.commands.load(game_id).version


def test_a_deadline_job_whose_worker_was_killed_is_tried_again(
    container: Container, workers_redis: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    game_id, _ = seated_game(container, workers_redis, {"type": "per_move", "seconds": 60})
    clocks = container.queues.queue(wq.CLOCKS)
    scheduled = ScheduledJobRegistry(queue=clocks)
    (job_id,) = [j for j in scheduled.get_job_ids() if j.startswith("deadline-")]
    job = Job.fetch(job_id, connection=clocks.connection)
    scheduled.remove(job)
    clocks.enqueue_job(job)  # due: RQ's scheduler moved it to its queue
    killed_in(container, job)
    abandoned(container, job)
    version = container.commands.load(game_id).version
    monkeypatch.setattr(deadlines, "now_ms", lambda: now_ms() + 3_600_000)  # long past it
    run_retries(container, job)

    assert container.commands.load(game_id).version > version  # the seat was timed out
    assert job.id not in FailedJobRegistry(queue=clocks).get_job_ids()


def failed_for_good(container: Container, job: Job) -> None:
    """The job's worker was killed in it with no retry left: RQ marks it failed."""
    job.retries_left = 0
    job.save()
    killed_in(container, job)
    abandoned(container, job)
    assert job.id in FailedJobRegistry(queue=container.queues.queue(job.origin)).get_job_ids()


def test_the_catch_up_settles_failed_projection_jobs(
    container: Container,
    workers_redis: redis.Redis,
    read_models: ReadModels,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(container.commands.repository, "hooks", [])  # no job but ours
    broken, changed = (
        container.commands.create_game("famiglia", 2),
        container.commands.create_game("gangsta", 3),
    )
    workers_redis.srem(keys.changed_key(shards.of(broken)), broken)  # its own job's, alone
    projections = container.queues.queue(wq.PROJECTIONS)
    container.context.wake.project_alone(broken)
    container.context.wake.wake(shards.of(changed))
    alone, whole_shard = projections.jobs
    for job in (alone, whole_shard):
        failed_for_good(container, job)
    failed = FailedJobRegistry(queue=projections)
    young = 60_000  # the feed's entries are left to their jobs: those jobs' work is the pass's

    periodic = catchup.catch_up(container.context, settle_ms=young, revive_failed=False)
    assert periodic.settled == 1  # the shard's changed games projected: its job is done
    assert failed.get_job_ids() == [alone.id]  # a game behind: it may fail again
    assert read_models.summary(changed) is not None and read_models.summary(broken) is None
    assert not Job.exists(whole_shard.id, connection=projections.connection)

    at_start = catchup.catch_up(container.context, settle_ms=young, revive_failed=True)
    assert at_start.settled == 1 and failed.get_job_ids() == []
    summary = read_models.summary(broken)
    assert summary is not None and summary.version == container.commands.load(broken).version
    assert not Job.exists(alone.id, connection=projections.connection)
