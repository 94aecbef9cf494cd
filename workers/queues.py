"""RQ's queues of the service, its job class, and the jobs' binding to the worker's objects.

RQ's queues are on RQ's server: ``RQ_REDIS_URL``'s, else the store itself (one server). Everything
RQ keeps (queues, jobs, registries, workers) is there; everything else (games, read models,
leases, the changed sets) is in the store.

Queues: ``omerta-projections`` (projection jobs) is listed before ``omerta-ai`` (AI moves), so a
busy worker keeps read models fresh first; ``omerta-clocks`` (deadlines, scheduled by RQ's
scheduler: ``workers.clocks.deadlines``) follows; ``omerta-notify`` (notifications,
``workers.notify.notices``) and ``omerta-mail`` (mails of links, ``workers.mailer``) follow;
``omerta-analysis`` (post-game reviews, ``workers.review``: minutes of search, no player waits
for them) is last, served by a worker of its own (``omerta worker --queues analysis``) or, while
none is alive, by a default worker.
``NAMES`` are their short names (``omerta worker --queues``).

RQ's jobs here are ``OmertaJob``s (the queues' and the workers' job class): RQ's own, but for
the executions that a worker killed in a job left behind (see its docstring), for the request
id it carries (``services.platform.logs``), for functions named by their path before a move
(``RENAMED``), and for the worker's context: RQ imports a job's function by its dotted path, so a
function marked ``@job`` takes the worker's context (``workers.context.Context``) as its first
argument, given by the job class the worker was made with (``bound``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from types import MappingProxyType
from typing import Any, ClassVar, TypeVar

import redis
from rq import Queue
from rq.executions import Execution, ExecutionRegistry
from rq.job import Job
from rq.utils import import_attribute

from services.platform import logs

PROJECTIONS = "omerta-projections"
AI = "omerta-ai"
CLOCKS = (
    "omerta-clocks"  # deadlines, "time running low", expiries (workers.clocks.deadlines, .expiry)
)
NOTIFY = "omerta-notify"  # notifications (workers.notify.notices): after the games' own work
MAIL = "omerta-mail"  # mails of links (workers.mailer)
ANALYSIS = "omerta-analysis"  # post-game reviews (workers.review): last, never before a move
QUEUES = (PROJECTIONS, AI, CLOCKS, NOTIFY, MAIL, ANALYSIS)
NAMES = {
    "projections": PROJECTIONS,
    "ai": AI,
    "clocks": CLOCKS,
    "notify": NOTIFY,
    "mail": MAIL,
    "analysis": ANALYSIS,
}

F = TypeVar("F", bound=Callable[..., Any])
TAKES_CONTEXT = "omerta_takes_context"


def job(func: F) -> F:
    """Mark a job function whose first parameter is the worker's context (``bound``)."""
    setattr(func, TAKES_CONTEXT, True)
    return func


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
        "workers.jobs.project": "workers.projection.jobs.project",
        "workers.jobs.project_changed": "workers.projection.jobs.project_changed",
        "workers.jobs.ai_move": "workers.ai.ai_move",
        "workers.ratings.rate": "workers.projection.ratings.rate",
    }
)


def current_name(func_name: str | None) -> str:
    """A job's function path as it is now (``RENAMED``)."""
    return RENAMED.get(func_name or "", func_name or "")


class OmertaJob(Job):
    """RQ's job, whose executions tolerate the records a killed worker lost, whose function
    may be named by its path before a move (``RENAMED``), and whose ``@job`` functions get the
    worker's context (a class made by ``bound``)."""

    worker_context: ClassVar[object | None] = None

    @classmethod
    def create(cls, *args: Any, **kwargs: Any) -> Any:
        """RQ's job, carrying the request id of the request or job that enqueues it
        (``services.platform.logs``) in its meta: every job of a command's road logs it."""
        request_id = logs.REQUEST_ID.get()
        if request_id is not None:
            kwargs["meta"] = {**(kwargs.get("meta") or {}), logs.META_KEY: request_id}
        return super().create(*args, **kwargs)

    @property
    def request_id(self) -> str | None:
        return self.meta.get(logs.META_KEY)

    @property
    def func(self) -> Any:
        renamed = RENAMED.get(self.func_name or "")
        found = import_attribute(renamed) if renamed else super().func
        if self.worker_context is not None and getattr(found, TAKES_CONTEXT, False):
            return functools.partial(found, self.worker_context)
        return found

    @property
    def execution_registry(self) -> ExecutionRegistry:
        return LiveExecutions(self.id, connection=self.connection)


def bound(context: object) -> type[OmertaJob]:
    """The job class of a worker whose jobs work with ``context``."""
    return type("BoundJob", (OmertaJob,), {"worker_context": context})


class Queues:
    """The service's queues on RQ's server (``client``)."""

    def __init__(self, client: redis.Redis) -> None:
        self.client = client
        self._queues = {
            name: Queue(name, connection=client, job_class=OmertaJob) for name in QUEUES
        }

    def queue(self, name: str) -> Queue:
        return self._queues[name]

    def enqueue(self, name: str, func: str, **options: Any) -> None:
        """Enqueue a job on queue ``name`` in one round trip: RQ's writes for it (the queue set,
        the job, its status, the push) go in one pipeline, which RQ runs as one transaction."""
        found = self.queue(name)
        pipe = found.connection.pipeline()
        found.enqueue_call(func, pipeline=pipe, **options)
        pipe.execute()
