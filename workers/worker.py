"""``omerta worker``: an RQ worker on the configured server, with RQ's scheduler (retries with
an interval are scheduled jobs, and so are the games' deadlines, ``workers.clocks.deadlines``:
the scheduler looks every second, RQ's default interval, so a deadline fires within a second or
two) and the catch-up and archiving passes (``workers.maintenance``) as part of its maintenance:
at start, then every ``interval`` seconds (also while idle). Each pass covers the shards the
worker holds (``workers.projection.leases``: a thread renews them every few seconds, a long job
in between), so that several workers share the shards and one takes over a dead one's.

The worker is RQ's ``SimpleWorker`` (jobs run in the worker process, no fork per job), with the
workarounds of ``workers.rqworker`` (stopping promptly, fewer round trips): this module is what
Omerta decides, that one what RQ needed changed. Jobs take milliseconds, and running them
in-process keeps the projector's and the command service's per-process caches of game states,
so a job reads only the new events. Job timeouts still hold (RQ's SIGALRM death penalty).
Several workers can run at once, on one machine or many.

Queues (``queues``, ``omerta worker --queues``): by default a worker serves every queue, but AI
moves only while no AI worker is alive: a worker that serves the AI queue and not the
projections (``omerta worker --queues ai``; ``omerta run`` starts one, beside a worker of the
other queues). Each maintenance pass looks (``ai_worker_alive``): a default worker leaves the AI
moves within ``interval`` seconds of an AI worker's start, and takes them over once no AI worker
has been seen for ``AI_WORKER_STALE`` seconds (one restarting is back before that): no
projection waits behind a search while an AI worker runs, and AI games never hang for want of
one. The post-game reviews (the analysis queue) are left and taken back the same way, by whether
a worker of the analysis queue (and not the projections) is alive; liveness is renewed by a
thread (``leases.Presence``), so a worker in a long review stays alive. A review run by a worker
of other queues too gives it back between decisions as soon as one of them has a job
(``workers.turns``, ``workers.review``), and any review stops at once when its worker is asked
to stop (its last decision kept: it goes on later). Given ``queues``, a worker serves exactly
those. A worker without the projections queue runs none of the catch-up passes (the projection
workers do); one of the AI queue (and perhaps the analysis queue) alone lowers its CPU priority
to ``OMERTA_AI_NICE`` (default 15): its searches are bounded by wall time, so on a busy machine
they search less instead of holding up requests and projections; one of the analysis queue
alone runs at ``OMERTA_ANALYSIS_NICE`` (default 19, the lowest): a review, bounded by
iterations, only takes longer.

Store outages: the client retries for a few seconds (``services.platform.servers``), and RQ's
wait for a job retries on its own. Anything else that ends RQ's work loop (an outage longer than
that, a write refused in the middle of RQ's bookkeeping) ends it with a log line, not the
process:
``run`` starts a new work loop after a pause (``RESTART_FIRST`` doubling to ``RESTART_MAX``;
back to the first after a loop that ran ``RESTART_RESET`` seconds). The jobs such an error
interrupted are repaired by the catch-up pass of the new loop's start.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import signal
import threading
import time
from types import FrameType
from typing import Any

import redis
from rq import Queue
from rq.executions import Execution
from rq.job import Job

from services.errors import Unavailable
from services.notify import webhooks as wh
from services.platform import lifeline, logs
from workers import metrics, turns
from workers.context import Context
from workers.maintenance import Maintenance
from workers.projection import leases
from workers.projection.leases import AI_WORKER_STALE, ai_worker_alive
from workers.queues import AI, ANALYSIS, NAMES, PROJECTIONS, QUEUES, OmertaJob, bound
from workers.rqworker import RQWorker

log = logging.getLogger(__name__)

RESTART_FIRST = 0.5  # seconds before a work loop that ended on an error starts again
RESTART_MAX = 10.0
RESTART_RESET = 60.0  # a loop that ran this long starts the pauses over
# The queues a default worker serves only while no worker of their own is alive.
FALLBACK = {AI: "AI moves", ANALYSIS: "reviews"}


class OmertaWorker(RQWorker):
    """An RQ worker of Omerta's queues whose maintenance also runs the catch-up pass."""

    job_class = OmertaJob

    def __init__(
        self,
        *args: Any,
        context: Context,
        interval: int = 5,
        ai_fallback: bool = False,
        **kwargs: Any,
    ) -> None:
        # RQ runs maintenance when due, between jobs and between idle waits of
        # worker_ttl - 15 s: a worker_ttl of interval + 15 makes the idle wait the interval.
        kwargs.setdefault("maintenance_interval", interval)
        kwargs.setdefault("worker_ttl", interval + 15)
        super().__init__(*args, **kwargs)
        self._first_pass = True
        # serves the AI (analysis) queue only while no AI (analysis) worker is alive
        self.ai_fallback = ai_fallback
        self._seen_at = dict.fromkeys(FALLBACK, float("-inf"))  # when each was last seen alive
        self.serves_projections = PROJECTIONS in self.queue_names()
        self.context = context
        context.turns.watch(self._others_waiting)
        self.maintenance = Maintenance(context)
        # Where the worker announces itself and holds its leases: the store's own client (not
        # RQ's: renewals from another thread on RQ's client once held up its stop for 60 s).
        self.store = context.store
        # The shards whose catch-up this worker runs (none for a worker without projections).
        self.leases = (
            leases.Leases(self.store, self.name, 1000 * context.settings.lease_seconds)
            if self.serves_projections
            else None
        )

    def work(self, *args: Any, **kwargs: Any) -> bool:
        """RQ's work loop, announced alive (``leases.Presence``) and holding shard leases
        meanwhile (taken before the first catch-up pass, let go at the end)."""
        presence = leases.Presence(
            self.store,
            self.name,
            1000 * self.context.settings.lease_seconds,
            [] if self.serves_projections else self.queue_names(),
        )
        renewer = leases.Renewer(presence, *([self.leases] if self.leases is not None else []))
        renewer.start()
        try:
            return super().work(*args, **kwargs)
        finally:
            renewer.stop()

    def request_stop(self, signum: int, frame: FrameType | None) -> None:
        """``RQWorker``'s stop; a busy worker's review ends its decision under way now."""
        super().request_stop(signum, frame)  # returns while starting, or busy
        if not self._starting:
            self.context.turns.stop()

    def perform_job(self, job: Job, queue: Queue, execution: Execution) -> bool:
        """RQ's, under the request id the job carries (its log lines, and the jobs it
        enqueues, have it: ``services.platform.logs``), measured (``services.platform.metrics``:
        the job's time and outcome by queue, a delivery's by channel)."""
        will_retry = job.should_retry  # a failure now is retried (RQ counts the tries down)
        token = logs.REQUEST_ID.set(job.meta.get(logs.META_KEY))
        began = time.perf_counter()
        try:
            done = super().perform_job(job, queue, execution)
        finally:
            logs.REQUEST_ID.reset(token)
        measured = metrics.JobRun(queue.name, time.perf_counter() - began, done, will_retry)
        metrics.record(self.context.metrics, job, measured)
        return done

    def handle_exception(self, job: Job, *exc_info: Any) -> None:
        """RQ's logging of a failed job, but a webhook delivery's failure: an expected outcome
        the job logged in one line (a traceback a try fills logs with nothing to fix)."""
        if isinstance(exc_info[1], (redis.RedisError, Unavailable)):
            self.context.metrics.store_errors.labels("worker").inc()
        if isinstance(exc_info[1], wh.DeliveryFailed):
            return
        super().handle_exception(job, *exc_info)

    def _others_waiting(self) -> bool:
        """Whether a job waits on a queue this worker serves now, the reviews' aside: a review
        gives the worker back to it (``workers.turns``)."""
        others = [q for q in self._ordered_queues if q.name != ANALYSIS]
        if not others:
            return False
        pipe = self.connection.pipeline(transaction=False)
        for queue in others:
            pipe.llen(queue.key)
        return any(pipe.execute())

    def run_maintenance_tasks(self) -> None:
        if self.stop_asked:  # during the start: the loop stops right after this
            return
        super().run_maintenance_tasks()
        if self.ai_fallback:
            now = time.monotonic()
            for name in FALLBACK:
                if ai_worker_alive(self.store, self.name, name):
                    self._seen_at[name] = now
            self._serve({n for n in FALLBACK if now - self._seen_at[n] >= AI_WORKER_STALE})
        if not self.serves_projections:
            return
        first, self._first_pass = self._first_pass, False
        self.maintenance.run(first, self.leases.held() if self.leases is not None else [])

    def _serve(self, taken: set[str]) -> None:
        """Serve of ``FALLBACK`` only the queues ``taken`` (RQ dequeues from
        ``_ordered_queues``; the worker stays registered on every queue)."""
        served = [q for q in self.queues if q.name not in FALLBACK or q.name in taken]
        before = {q.name for q in self._ordered_queues}
        for name, what in FALLBACK.items():
            if (name in before) != (name in taken):
                log.info("worker %s %s %s", self.name, "takes" if name in taken else "leaves", what)
        self._ordered_queues = served


def queue_names(spec: str | None) -> list[str] | None:
    """The queues of ``--queues`` (comma-separated short names, ``workers.queues.NAMES``); None for
    none given (the default worker). ValueError for an unknown name."""
    if spec is None:
        return None
    names = [n.strip() for n in spec.split(",") if n.strip()]
    unknown = [n for n in names if n not in NAMES]
    if unknown or not names:
        raise ValueError(f"unknown queue {', '.join(unknown) or '(none)'}: use {', '.join(NAMES)}")
    return [NAMES[n] for n in NAMES if n in names]  # in the usual order


def make_worker(
    context: Context,
    interval: int = 5,
    name: str | None = None,
    queues: list[str] | None = None,
    stop_while_starting: threading.Event | None = None,
) -> OmertaWorker:
    """A worker of ``queues`` (full names; None: the default worker, see the module
    docstring), whose jobs work with ``context`` (its AI jobs take the changed games only in a
    worker of the projections too)."""
    names = queues or QUEUES
    context = dataclasses.replace(
        context, serves_projections=PROJECTIONS in names, turns=turns.Turns()
    )
    return OmertaWorker(
        [context.queues.queue(n) for n in names],
        connection=context.queues.client,
        job_class=bound(context),
        context=context,
        name=name,
        interval=interval,
        ai_fallback=queues is None,
        stop_while_starting=stop_while_starting,
    )


def lower_priority(wanted: int) -> None:
    """Run at niceness ``wanted`` at least (an increment only: never raised back)."""
    current = os.nice(0)
    if wanted > current:
        os.nice(wanted - current)


def run(
    context: Context,
    burst: bool = False,
    interval: int = 5,
    name: str | None = None,
    log_level: str | None = None,
    queues: list[str] | None = None,
) -> int:
    """Work until stopped (SIGTERM/SIGINT: RQ finishes the current job first), starting RQ's
    work loop again when an error ended it (see the module docstring).

    Logs at ``log_level`` (default ``OMERTA_LOG_LEVEL``, ``INFO``): this module's starts, stops
    and repairs. RQ logs a few lines per job, and per maintenance pass, at ``INFO``: its logs
    show only at ``DEBUG``, warnings and errors always."""
    settings = context.settings
    logs.configure(log_level or settings.log_level, settings.log_format)
    rq_level = "INFO" if logging.getLogger().isEnabledFor(logging.DEBUG) else "WARNING"
    worker_pid = os.getpid()  # RQ's scheduler, a process forked per work loop, dies with it
    os.register_at_fork(after_in_child=lambda: lifeline.die_with_parent(worker_pid))
    if settings.heartbeat_file is not None:  # a child of ``omerta run``
        lifeline.Heartbeat(settings.heartbeat_file).start()
    if queues == [ANALYSIS]:
        lower_priority(settings.analysis_nice)
    elif queues is not None and set(queues) <= {AI, ANALYSIS}:
        lower_priority(settings.ai_nice)
    pause = RESTART_FIRST
    stop_while_starting = threading.Event()
    while True:
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, lambda signum, frame: stop_while_starting.set())
        worker = make_worker(context, interval, name, queues, stop_while_starting)
        log.info(
            "worker %s started (pid %d, nice %d): %s",
            worker.name,
            worker_pid,
            os.nice(0),
            ", ".join(worker.queue_names())
            + (" (AI moves and reviews while no worker of theirs runs)" * worker.ai_fallback),
        )
        began = time.monotonic()
        try:
            worker.work(burst=burst, with_scheduler=True, logging_level=rq_level)
        except redis.RedisError as exc:  # RQ's registration at the loop's start or end
            log.warning("the worker lost the store: %s", exc)
        if burst or worker.stop_asked:
            log.info("worker %s stopped", worker.name)
            return 0
        if time.monotonic() - began >= RESTART_RESET:
            pause = RESTART_FIRST
        log.warning("the work loop ended on an error: starting again in %.1f s", pause)
        if not _pause_and_forget(worker, pause):
            log.info("worker %s stopped", worker.name)
            return 0
        pause = min(2 * pause, RESTART_MAX)


def _pause_and_forget(worker: OmertaWorker, seconds: float) -> bool:
    """Wait ``seconds`` (False: a stop was asked meanwhile), then mark the ended worker dead in
    the store (a fixed ``--name`` can be registered again), waiting on while the store is down."""
    stop = False

    def asked(signum: int, frame: FrameType | None) -> None:
        nonlocal stop
        stop = True

    previous = {s: signal.signal(s, asked) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        deadline = time.monotonic() + seconds
        while not stop:
            if time.monotonic() >= deadline:
                try:
                    worker.register_death()
                    return True
                except redis.RedisError:
                    deadline = time.monotonic() + RESTART_FIRST
            time.sleep(0.1)
        return False
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
