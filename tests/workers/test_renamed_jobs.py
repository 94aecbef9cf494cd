"""Jobs queued under a function's path from before the workers' modules moved into packages
still run (``wq.RENAMED``): RQ stores the dotted path, and a worker of the new release
finds the function at its new place."""

from __future__ import annotations

import pytest
import redis
from rq.job import Job, JobStatus

from bootstrap import Container
from workers import queues as wq
from workers import worker

pytestmark = pytest.mark.server


@pytest.mark.parametrize("old", sorted(wq.RENAMED))
def test_a_job_named_by_its_old_path_runs_the_function_at_its_new_one(
    container: Container, workers_redis: redis.Redis, old: str
) -> None:
    job = wq.OmertaJob.create(old, connection=container.queues_client)
    new = wq.RENAMED[old]
    assert job.func.__module__ + "." + job.func.__name__ == new


def test_a_queued_job_with_an_old_path_is_run_by_a_worker(
    container: Container, workers_redis: redis.Redis
) -> None:
    # An expiry job of a new game: it runs, finds the game not yet due, and arms it again.
    game_id = container.commands.create_game("famiglia", seats=2)
    container.queues.enqueue(wq.CLOCKS, "workers.expiry.expire", args=(game_id,), job_id="old-path")
    worker.make_worker(container.context).work(burst=True, logging_level="WARNING")
    job = Job.fetch("old-path", connection=container.queues_client)
    assert job.get_status() == JobStatus.FINISHED
    assert job.return_value() == "later"
