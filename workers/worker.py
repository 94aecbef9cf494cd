"""``omerta worker``: an RQ worker on the configured server, with RQ's scheduler (retries with
an interval are scheduled jobs, and so are the games' deadlines, ``workers.clocks.deadlines``:
the scheduler looks every second, RQ's default interval, so a deadline fires within a second or
two) and the catch-up and archiving passes (``workers.maintenance``) as part of its maintenance:
at start, then every ``interval`` seconds (also while idle). Each pass covers the shards the
worker holds (``workers.projection.leases``: a thread renews them every few seconds, a long job
in between), so that several workers share the shards and one takes over a dead one's.

The worker is RQ's ``SimpleWorker`` (jobs run in the worker process, no fork per job): jobs take
milliseconds, and running them in-process keeps the projector's and the command service's
per-process caches of game states, so a job reads only the new events. Job timeouts still hold
(RQ's SIGALRM death penalty). Several workers can run at once, on one machine or many.

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
to stop (its last decision kept: it goes on later). Given ``queues``, a worker
serves exactly those. A worker without
the projections queue runs none of the catch-up passes (the projection workers do); one of
the AI queue (and perhaps the analysis queue) alone lowers its CPU priority to
``OMERTA_AI_NICE`` (default 15): its searches are bounded by wall time, so on a busy machine
they search less instead of holding up requests and projections; one of the analysis queue
alone runs at ``OMERTA_ANALYSIS_NICE`` (default 19, the lowest): a review, bounded by
iterations, only takes longer.

Store outages: the client retries for a few seconds (``services.platform.config``), and RQ's wait
for a
job retries on its own. Anything else that ends RQ's work loop (an outage longer than that, a
write refused in the middle of RQ's bookkeeping) ends it with a log line, not the process:
``run`` starts a new work loop after a pause (``RESTART_FIRST`` doubling to ``RESTART_MAX``;
back to the first after a loop that ran ``RESTART_RESET`` seconds). The jobs such an error
interrupted are repaired by the catch-up pass of the new loop's start.
"""

from __future__ import annotations

import contextlib
import dataclasses
import faulthandler
import logging
import os
import signal
import threading
import time
from types import FrameType
from typing import Any

import redis
from redis.client import Pipeline
from rq import Queue, SimpleWorker
from rq.exceptions import StopRequested
from rq.executions import Execution
from rq.job import Job
from rq.worker import WorkerStatus

from services.errors import Unavailable
from services.notify import webhooks as wh
from services.platform import lifeline, logs
from workers import metrics, turns
from workers.context import Context
from workers.maintenance import Maintenance
from workers.projection import leases
from workers.projection.leases import AI_WORKER_STALE, ai_worker_alive
from workers.queues import AI, ANALYSIS, NAMES, PROJECTIONS, QUEUES, OmertaJob, bound

log = logging.getLogger(__name__)

HEARTBEAT_EVERY = 1.0  # seconds between the worker's own heartbeats (its key lives far longer)
RESTART_FIRST = 0.5  # seconds before a work loop that ended on an error starts again
RESTART_MAX = 10.0
RESTART_RESET = 60.0  # a loop that ran this long starts the pauses over
# Seconds a worker asked to stop may take: its job ends first (a mail's SMTP timeout is 30 s),
# and systemd's TimeoutStopSec (40 s) kills a worker that takes longer.
STOP_GRACE = 35.0
SCHEDULER_TERM_EVERY = 1.0  # seconds between the SIGTERMs to RQ's scheduler process at a stop
SCHEDULER_KILL_AFTER = 10.0  # seconds after which a scheduler still there is killed
COMMANDS_POLL = 0.5  # seconds RQ's commands thread waits for one before it looks for a stop
COMMANDS_STOP = 5.0  # seconds a stop waits for that thread (a daemon: left behind after that)
# The queues a default worker serves only while no worker of their own is alive.
FALLBACK = {AI: "AI moves", ANALYSIS: "reviews"}


class OmertaWorker(SimpleWorker):
    """An RQ worker whose maintenance also runs the catch-up pass."""

    job_class = OmertaJob

    def __init__(
        self,
        *args: Any,
        context: Context,
        interval: int = 5,
        ai_fallback: bool = False,
        stop_while_starting: threading.Event | None = None,
        **kwargs: Any,
    ) -> None:
        # RQ runs maintenance when due, between jobs and between idle waits of
        # worker_ttl - 15 s: a worker_ttl of interval + 15 makes the idle wait the interval.
        kwargs.setdefault("maintenance_interval", interval)
        kwargs.setdefault("worker_ttl", interval + 15)
        super().__init__(*args, **kwargs)
        self._first_pass = True
        self._starting = False  # in ``work``, until RQ installs its signal handlers
        self._beat_at = float("-inf")
        self.stop_asked = False
        self._overdue: threading.Timer | None = None  # armed by a stop request
        # serves the AI (analysis) queue only while no AI (analysis) worker is alive
        self.ai_fallback = ai_fallback
        self._seen_at = dict.fromkeys(FALLBACK, float("-inf"))  # when each was last seen alive
        self.serves_projections = PROJECTIONS in self.queue_names()
        self.context = context
        context.turns.watch(self._others_waiting)
        self.maintenance = Maintenance(context)
        # A SIGTERM or SIGINT before the worker's own handlers are in place (``run``): under
        # load an ``omerta run`` stopped right after its start ended workers silently at the
        # default handler.
        self.stop_while_starting = stop_while_starting or threading.Event()
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
        # RQ installs its SIGTERM handler once started (registered, subscribed, its scheduler
        # forked): a stop asked before that killed the worker outright, still registered.
        self._starting = True
        super()._install_signal_handlers()  # RQ's; ours, which RQ calls, ends the start
        if self.stop_while_starting.is_set():  # asked before this worker was made
            self.request_stop(signal.SIGTERM, None)
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
            if self._overdue is not None:  # it stopped in time
                self._overdue.cancel()

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

    def request_stop(self, signum: int, frame: FrameType | None) -> None:
        """RQ's warm shutdown, remembered: ``run`` must not start the loop again after it; and
        bounded (``STOP_GRACE``)."""
        self.stop_asked = True
        if self._overdue is None:
            self._overdue = threading.Timer(STOP_GRACE, self._stop_overdue)
            self._overdue.daemon = True
            self._overdue.start()
        if self._starting:
            # RQ would raise StopRequested in the middle of its start, outside the loop whose
            # end unregisters the worker: its loop stops at its first turn instead.
            self._stop_requested = True
            return
        self._tell_helpers_to_stop()
        super().request_stop(signum, frame)  # RQ's: idle, it stops now (StopRequested)
        self.context.turns.stop()  # busy: a review's decision under way ends now

    def _shutdown(self) -> None:
        """RQ's, but for a busy worker's scheduler: RQ waited here, in the signal handler, for
        it to end (a second or so) before the job could; it was told to stop already
        (``_tell_helpers_to_stop``), and the teardown waits for it (``stop_scheduler``)."""
        if self.get_state() != WorkerStatus.BUSY:
            raise StopRequested()
        self._stop_requested = True
        self.set_shutdown_requested_date()

    def _tell_helpers_to_stop(self) -> None:
        """SIGTERM to RQ's scheduler, and a stop to the commands thread, without waiting: they
        end while the job does, and the teardown waits for what is left of them."""
        process = self.scheduler._process if self.scheduler is not None else None  # RQ's
        if process is not None and process.pid:
            with contextlib.suppress(ProcessLookupError):
                os.kill(process.pid, signal.SIGTERM)
        if self.pubsub_thread is not None:
            self.pubsub_thread.stop(timeout=0)

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

    def _install_signal_handlers(self) -> None:
        """RQ's, called once the worker has started: a stop request stops it at once from now
        on."""
        self._starting = False
        super()._install_signal_handlers()

    def subscribe(self) -> None:
        """RQ's, with a thread that waits ``COMMANDS_POLL`` seconds at a time for a command
        (RQ's: 60) and so sees its stop soon after it is asked."""
        self.pubsub = self.connection.pubsub()
        self.pubsub.subscribe(**{self.pubsub_channel_name: self.handle_payload})
        self.pubsub_thread = self.pubsub.run_in_thread(
            sleep_time=COMMANDS_POLL, daemon=True, exception_handler=self._pubsub_exception_handler
        )

    def unsubscribe(self) -> None:
        """Stop the commands thread, waiting ``COMMANDS_STOP`` seconds at most. RQ unsubscribed
        and then waited for the thread without bound, and the thread could have read the
        unsubscription's answer before it was told to stop: it then waited 60 s for a
        subscription. The thread closes its connection as it ends (the server forgets the
        subscription then)."""
        thread = self.pubsub_thread
        if thread is None or self.pubsub is None:
            return
        thread.stop(timeout=COMMANDS_STOP)
        if thread.is_alive():  # stuck in a read: the connection is its own until it ends
            log.warning("worker %s: its commands thread did not stop", self.name)
        else:
            self.pubsub.close()  # the thread's own close, if an error ended it

    def stop_scheduler(self) -> None:
        """SIGTERM to RQ's scheduler process every ``SCHEDULER_TERM_EVERY`` seconds until it
        ends, SIGKILL after ``SCHEDULER_KILL_AFTER``. RQ sent one and waited without bound:
        one sent before the scheduler had its own handler (it has the worker's until then,
        through the fork) was lost."""
        process = self.scheduler._process if self.scheduler is not None else None  # RQ's
        if process is None or not process.pid:
            return
        deadline = time.monotonic() + SCHEDULER_KILL_AFTER
        while process.exitcode is None and time.monotonic() < deadline:
            with contextlib.suppress(ProcessLookupError):
                os.kill(process.pid, signal.SIGTERM)
            process.join(SCHEDULER_TERM_EVERY)
        if process.exitcode is None:
            log.warning(
                "worker %s: RQ's scheduler (pid %d) still there %.0f s after SIGTERM: killed",
                self.name,
                process.pid,
                SCHEDULER_KILL_AFTER,
            )
            process.kill()
            process.join()

    def _stop_overdue(self) -> None:
        """Still here ``STOP_GRACE`` seconds after a stop was asked: something hangs (a CI run
        once saw a worker outlive SIGTERM by 30 s). Its stacks go to the log, its scheduler and
        then the worker end at once: a supervisor starts another, and the catch-up repairs the
        job it was on."""
        log.error(
            "worker %s is still here %.0f s after it was asked to stop: its stacks, then it ends",
            self.name,
            STOP_GRACE,
        )
        faulthandler.dump_traceback(all_threads=True)
        process = self.scheduler._process if self.scheduler is not None else None  # RQ's
        if process is not None and process.pid:
            with contextlib.suppress(ProcessLookupError):
                os.kill(process.pid, signal.SIGKILL)
            # reaped here: told to stop at the request, it may have ended already, unreaped
            with contextlib.suppress(ChildProcessError):
                os.waitpid(process.pid, 0)
        os._exit(1)

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
