"""A worker process killed (SIGKILL) in the middle of a job, its queued jobs lost too: a new
worker's catch-up brings the read models up to date and the AI game goes on to its end. An AI
job lost between RQ's pop and its start (still "queued" in RQ's records, in no queue): the
running worker's periodic catch-up makes that move."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest
import redis
from rq.registry import StartedJobRegistry

from bootstrap import Container
from services.readside.readmodels import ReadModels
from tests.workers.helpers import assert_read_models_current, start_worker, wait
from workers import queues as wq
from workers.projection import jobs as project_jobs

pytestmark = pytest.mark.server


def test_a_killed_worker_loses_nothing(
    container: Container,
    workers_redis: redis.Redis,
    redis_url: str,
    read_models: ReadModels,
    tmp_path: Path,
) -> None:
    game_id = container.commands.create_game("famiglia", 2, ai={0: "greedy", 1: "random"})
    log = tmp_path / "worker.log"
    first = start_worker(redis_url, log)
    try:
        wait(lambda: read_models.version(game_id) >= 40, 60, "the game to get going")
        # Keep the worker busy in a job of ours, then kill it in the middle of that job.
        busy = container.queues.queue(wq.PROJECTIONS).enqueue(
            "tests.workers.slow.block", 30, at_front=True
        )
        started = StartedJobRegistry(queue=container.queues.queue(wq.PROJECTIONS))
        wait(lambda: busy.id in started.get_job_ids(), 30, "the worker to take the job")
        first.send_signal(signal.SIGKILL)
        first.wait(10)
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    assert busy.get_status(refresh=True) == "started"  # it never finished
    # Whatever was queued is lost as well.
    for name in wq.QUEUES:
        container.queues.queue(name).empty()
    stopped_at = container.commands.load(game_id).version
    time.sleep(0.3)
    assert container.commands.load(game_id).version == stopped_at  # nothing moves without a worker
    summary = read_models.summary(game_id)
    assert summary is not None and summary.status == "running"

    second = start_worker(redis_url, log)
    try:
        wait(
            lambda: (s := read_models.summary(game_id)) is not None and s.status == "finished",
            120,
            "the game to end",
        )
    finally:
        second.send_signal(signal.SIGTERM)
        second.wait(30)
    assert assert_read_models_current(container, read_models, game_id) is not None


def test_an_ai_job_lost_after_its_pop_does_not_hang_the_game(
    container: Container,
    workers_redis: redis.Redis,
    redis_url: str,
    read_models: ReadModels,
    tmp_path: Path,
) -> None:
    worker = start_worker(redis_url, tmp_path / "worker.log")
    try:
        # Keep the worker in a job of ours, so nothing takes the AI job before it is lost.
        busy = container.queues.queue(wq.PROJECTIONS).enqueue("tests.workers.slow.block", 2)
        started = StartedJobRegistry(queue=container.queues.queue(wq.PROJECTIONS))
        wait(lambda: busy.id in started.get_job_ids(), 30, "the worker to take the job")
        game_id = container.commands.create_game("famiglia", 2, ai={0: "greedy", 1: "random"})
        project_jobs.project(
            container.context, game_id
        )  # the projection, and with it the first AI move's job
        ai = container.queues.queue(wq.AI)
        (job,) = ai.jobs
        assert workers_redis.lrem(ai.key, 0, job.id) == 1  # popped, never started
        assert job.get_status(refresh=True) == "queued"
        wait(
            lambda: (s := read_models.summary(game_id)) is not None and s.status == "finished",
            120,
            "the game to end",
        )
    finally:
        worker.send_signal(signal.SIGTERM)
        worker.wait(30)
    assert assert_read_models_current(container, read_models, game_id) is not None
