"""Jobs whose worker was killed in them (SIGKILL), with real RQ on the session's server: RQ
finds them abandoned once their heartbeats stop, and then their retries run them again. A
deadline job must be tried again."""

from __future__ import annotations

import time

import pytest
import redis
from rq import SimpleWorker
from rq.executions import Execution
from rq.job import Job
from rq.registry import FailedJobRegistry, ScheduledJobRegistry, StartedJobRegistry

from services import commands
from services.store import now_ms
from tests.workers.helpers import wait
from tests.workers.test_deadlines import _seated_game as seated_game
from workers import deadlines, runtime, worker

pytestmark = pytest.mark.server


def killed_in(job: Job) -> Execution:
    """A worker takes ``job`` off its queue and starts it, then is killed: RQ's records of the
    job stay as they were at its start (its execution, the started registry)."""
    queue = runtime.queue(job.origin)
    queue.remove(job.id)
    dead = SimpleWorker([queue], connection=queue.connection, name=f"killed-{job.id}")
    execution = dead.prepare_execution(job)
    dead.prepare_job_execution(job)
    return execution


def abandoned(job: Job) -> None:
    """What RQ's maintenance does once the dead worker's heartbeats have stopped long enough:
    the job is abandoned, and retried if it has retries left, else failed."""
    StartedJobRegistry(queue=runtime.queue(job.origin)).cleanup(time.time() + 3600)


def run_retries(job: Job) -> None:
    """Once the job's retry is due, a worker (with RQ's scheduler) runs it, and what it
    queues, until its queues are empty."""
    scheduled = ScheduledJobRegistry(queue=runtime.queue(job.origin))
    assert job.id in scheduled.get_job_ids(), job.get_status(refresh=True)
    wait(lambda: job.id in scheduled.get_jobs_to_schedule(), 10, "the job's retry to be due")
    worker.make_worker().work(burst=True, with_scheduler=True, logging_level="WARNING")


def test_a_deadline_job_whose_worker_was_killed_is_tried_again(
    workers_redis: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    game_id, _ = seated_game(workers_redis, {"type": "per_move", "seconds": 60})
    clocks = runtime.queue(runtime.CLOCKS)
    scheduled = ScheduledJobRegistry(queue=clocks)
    (job_id,) = [j for j in scheduled.get_job_ids() if j.startswith("deadline-")]
    job = Job.fetch(job_id, connection=clocks.connection)
    scheduled.remove(job)
    clocks.enqueue_job(job)  # due: RQ's scheduler moved it to its queue
    killed_in(job)
    abandoned(job)
    version = commands.load(game_id).version
    monkeypatch.setattr(deadlines, "now_ms", lambda: now_ms() + 3_600_000)  # long past it
    run_retries(job)

    assert commands.load(game_id).version > version  # the seat was timed out
    assert job.id not in FailedJobRegistry(queue=clocks).get_job_ids()
