"""``omerta worker``: an RQ worker on the configured server, with RQ's scheduler (retries with
an interval are scheduled jobs) and the catch-up pass (``workers.catchup``) as part of its
maintenance: at start, then every ``interval`` seconds (also while idle).

The worker is RQ's ``SimpleWorker`` (jobs run in the worker process, no fork per job): jobs take
milliseconds, and running them in-process keeps the projector's and the command service's
per-process caches of game states, so a job reads only the new events. Job timeouts still hold
(RQ's SIGALRM death penalty). Several workers can run at once, on one machine or many.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from redis.client import Pipeline
from rq import SimpleWorker

from services.commands import service
from workers import catchup, enqueue, runtime

log = logging.getLogger(__name__)

AI_GRACE_MS = 5_000  # an AI move overdue this long (after the first pass) lost its job
SETTLE_MS = 2_000  # feed entries younger than this still have their projection job running
HEARTBEAT_EVERY = 1.0  # seconds between the worker's own heartbeats (its key lives far longer)


class OmertaWorker(SimpleWorker):
    """An RQ worker whose maintenance also runs the catch-up pass."""

    def __init__(self, *args: Any, interval: int = 5, **kwargs: Any) -> None:
        # RQ runs maintenance when due, between jobs and between idle waits of
        # worker_ttl - 15 s: a worker_ttl of interval + 15 makes the idle wait the interval.
        kwargs.setdefault("maintenance_interval", interval)
        kwargs.setdefault("worker_ttl", interval + 15)
        super().__init__(*args, **kwargs)
        self._first_pass = True
        self._beat_at = float("-inf")

    def heartbeat(self, timeout: int | None = None, pipeline: Pipeline | None = None) -> None:
        """RQ's heartbeat, at most every ``HEARTBEAT_EVERY`` seconds and in one round trip.

        RQ sends one before and after every job, three writes each, to keep the worker's key
        alive for ``worker_ttl`` + 60 s: with jobs of a few milliseconds and every write
        waiting for the store's fsync, that was a third of a job's round trips. Heartbeats
        with their own timeout or pipeline (a job starting: its registry entry) always go."""
        if timeout is not None or pipeline is not None:
            super().heartbeat(timeout, pipeline)
            return
        now = time.monotonic()
        if now - self._beat_at < HEARTBEAT_EVERY:
            return
        self._beat_at = now
        with self.connection.pipeline() as pipe:
            super().heartbeat(pipeline=pipe)
            pipe.execute()

    def set_state(self, state: str, pipeline: Pipeline | None = None) -> None:
        """RQ's, without the write when that state is already stored (RQ marks the worker idle
        twice between two jobs)."""
        if pipeline is None and state == self.get_state():
            return
        super().set_state(state, pipeline)

    def run_maintenance_tasks(self) -> None:
        super().run_maintenance_tasks()
        first, self._first_pass = self._first_pass, False
        try:
            done = catchup.catch_up(
                runtime.projector(),
                settle_ms=0 if first else SETTLE_MS,
                ai_grace_ms=0 if first else AI_GRACE_MS,
                revive_failed=first,
            )
        except Exception:  # the next pass tries again; the worker keeps working
            log.exception("catch-up pass failed")
            return
        if done.projected or done.ai_jobs:
            log.info(
                "catch-up: %d feed entries, %d games projected, %d AI moves re-enqueued",
                *done,
            )


def make_worker(interval: int = 5, name: str | None = None) -> OmertaWorker:
    enqueue.install()  # AI moves append: their projections are enqueued like anyone's
    connection = service().store.redis
    queues = [runtime.queue(n) for n in runtime.QUEUES]
    return OmertaWorker(queues, connection=connection, name=name, interval=interval)


def run(
    burst: bool = False, interval: int = 5, name: str | None = None, log_level: str = "INFO"
) -> int:
    """Work until stopped (SIGTERM/SIGINT: RQ finishes the current job first)."""
    worker = make_worker(interval, name)
    worker.work(burst=burst, with_scheduler=True, logging_level=log_level)
    return 0
