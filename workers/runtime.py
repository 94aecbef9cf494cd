"""The worker process's shared objects, built on first use from the command service's store
(``services.platform.config.connect()``): the RQ queues and the projector.

RQ's queues are on ``queues_client()``: ``RQ_REDIS_URL``'s server, else the store itself (one
server). Everything RQ keeps (queues, jobs, registries, workers) is there; everything else
(games, read models, leases, the changed sets) is in the store.

Queues: ``omerta-projections`` (projection jobs) is listed before ``omerta-ai`` (AI moves), so a
busy worker keeps read models fresh first; ``omerta-clocks`` (deadlines, scheduled by RQ's
scheduler: ``workers.clocks.deadlines``) follows; ``omerta-notify`` (notifications,
``workers.notify.notices``)
and ``omerta-mail`` (mails of links, ``workers.mailer``) come last. ``NAMES`` are their short
names (``omerta worker --queues``).

RQ's jobs here are ``OmertaJob``s (the queues' and the workers' job class): RQ's own, but for
the executions that a worker killed in a job left behind (see its docstring).

``serves_projections``: whether this process's worker takes projection jobs (off in a worker of
the AI queue alone: its AI jobs then leave the changed games to the projection workers).
"""

from __future__ import annotations

import threading
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import redis
from rq import Queue
from rq.executions import Execution, ExecutionRegistry
from rq.job import Job
from rq.utils import import_attribute

from services.platform.config import connect_queues, settings

if TYPE_CHECKING:  # imported where used: ``omerta status`` needs only the queues, quickly
    from services.readside.readmodels import ReadModels
    from workers.projection.projector import Projector

PROJECTIONS = "omerta-projections"
AI = "omerta-ai"
CLOCKS = (
    "omerta-clocks"  # deadlines, "time running low", expiries (workers.clocks.deadlines, .expiry)
)
NOTIFY = "omerta-notify"  # notifications (workers.notify.notices): after the games' own work
MAIL = "omerta-mail"  # mails of links (workers.mailer)
QUEUES = (PROJECTIONS, AI, CLOCKS, NOTIFY, MAIL)
NAMES = {"projections": PROJECTIONS, "ai": AI, "clocks": CLOCKS, "notify": NOTIFY, "mail": MAIL}

serves_projections = True


class LiveExecutions(ExecutionRegistry):
    """A job's executions, less those whose record is gone (``get_executions``)."""

    def get_executions(self, start: int = 0, end: int = -1) -> list[Execution]:
        """RQ's, skipping an execution whose record expired with the heartbeats of the worker
        killed in it: its entry here outlives it by 60 s, and RQ's read of it ("Execution …
        not found") made the cleanup of the job's next run fail, so a job that had run stayed
        failed."""
        found = []
        for execution_id in self.get_execution_ids(start, end):
            try:
                found.append(Execution.fetch(execution_id, self.job_id, self.connection))
            except ValueError:  # RQ's "not found in Redis"
                continue
        return found


# RQ stores a job's function by its dotted path: jobs queued before the workers' modules moved
# into packages (December 2026) still run. Remove after one release.
RENAMED = MappingProxyType(
    {
        "workers.deadlines.deadline": "workers.clocks.deadlines.deadline",
        "workers.deadlines.low_time": "workers.clocks.deadlines.low_time",
        "workers.expiry.expire": "workers.clocks.expiry.expire",
        "workers.notify.fan_out": "workers.notify.notices.fan_out",
        "workers.notify.deliver_webhook": "workers.notify.webhooks.deliver_webhook",
        "workers.notify.notices.deliver_webhook": "workers.notify.webhooks.deliver_webhook",
        "workers.notify_push.deliver_push": "workers.notify.push.deliver_push",
        "workers.notify_mail.deliver_mail": "workers.notify.mail.deliver_mail",
        "workers.notify_mail.send_digest": "workers.notify.mail.send_digest",
    }
)


class OmertaJob(Job):
    """RQ's job, whose executions tolerate the records a killed worker lost, and whose function
    may be named by its path before a move (``RENAMED``)."""

    @property
    def func(self) -> Any:
        renamed = RENAMED.get(self.func_name or "")
        return import_attribute(renamed) if renamed else super().func

    @property
    def execution_registry(self) -> ExecutionRegistry:
        return LiveExecutions(self.id, connection=self.connection)


_lock = threading.Lock()
_projector: Projector | None = None
_queues: dict[str, Queue] = {}
_queues_client: redis.Redis | None = None


def queues_client() -> redis.Redis:
    """The client of RQ's server (``services.platform.config.connect_queues``)."""
    global _queues_client
    with _lock:
        if _queues_client is None:
            from services.games.commands import service

            _queues_client = connect_queues(settings(), service().store.redis)
        return _queues_client


def projector() -> Projector:
    global _projector
    with _lock:
        if _projector is None:
            from services.games.commands import service
            from workers import ratings

            # They enqueue through this module.
            from workers.clocks import deadlines, expiry
            from workers.notify import notices as notify
            from workers.projection.projector import Projector

            _projector = Projector(service().store)

            _projector.on_change = notify.on_change
            _projector.on_deadlines = deadlines.on_deadlines
            _projector.on_unjoined = expiry.on_unjoined
            _projector.on_finished = ratings.on_finished
        return _projector


def queue(name: str) -> Queue:
    connection = queues_client()
    with _lock:
        found = _queues.get(name)
        if found is None:
            found = _queues[name] = Queue(name, connection=connection, job_class=OmertaJob)
        return found


def enqueue(name: str, func: str, **options: Any) -> None:
    """Enqueue a job on queue ``name`` in one round trip: RQ's writes for it (the queue set, the
    job, its status, the push) go in one pipeline, which RQ runs as one transaction."""
    found = queue(name)
    pipe = found.connection.pipeline()
    found.enqueue_call(func, pipeline=pipe, **options)
    pipe.execute()


def read_models() -> ReadModels:
    from services.games.commands import service
    from services.readside.readmodels import ReadModels

    return ReadModels(service().store.redis)


def reset() -> None:
    """Forget the shared objects (after the configuration changed: tests, benchmarks)."""
    global _projector, _queues_client
    with _lock:
        _projector = None
        _queues.clear()
        _queues_client = None
