"""RQ's ``SimpleWorker`` with the workarounds Omerta needs of it: what RQ does that had to be
changed, apart from what Omerta decides (``workers.worker``: which queues, liveness, priorities,
the maintenance passes).

Stopping: a SIGTERM or SIGINT before RQ's signal handlers are in place (``stop_while_starting``)
stops the worker at its loop's first turn instead of killing it still registered; a stop is
remembered (``stop_asked``: ``workers.worker.run`` must not start the loop again after it) and
bounded (``STOP_GRACE``: past it the stacks go to the log and the process ends); a busy worker's
stop does not wait in the signal handler for RQ's scheduler, which is told to stop and then
waited for, bounded, at the teardown; RQ's commands thread polls often enough to see a stop.
Round trips: RQ's heartbeat goes at most every ``HEARTBEAT_EVERY`` seconds, in one round trip,
and a state already stored is not written again.
"""

from __future__ import annotations

import contextlib
import faulthandler
import logging
import os
import signal
import threading
import time
from types import FrameType
from typing import Any

from redis.client import Pipeline
from rq import SimpleWorker
from rq.exceptions import StopRequested
from rq.worker import WorkerStatus

log = logging.getLogger(__name__)

HEARTBEAT_EVERY = 1.0  # seconds between the worker's own heartbeats (its key lives far longer)
# Seconds a worker asked to stop may take: its job ends first (a mail's SMTP timeout is 30 s),
# and systemd's TimeoutStopSec (40 s) kills a worker that takes longer.
STOP_GRACE = 35.0
SCHEDULER_TERM_EVERY = 1.0  # seconds between the SIGTERMs to RQ's scheduler process at a stop
SCHEDULER_KILL_AFTER = 10.0  # seconds after which a scheduler still there is killed
COMMANDS_POLL = 0.5  # seconds RQ's commands thread waits for one before it looks for a stop
COMMANDS_STOP = 5.0  # seconds a stop waits for that thread (a daemon: left behind after that)


class RQWorker(SimpleWorker):
    """RQ's in-process worker, stopping promptly and within bounds, with fewer round trips."""

    def __init__(
        self, *args: Any, stop_while_starting: threading.Event | None = None, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self._starting = False  # in ``work``, until RQ installs its signal handlers
        self._beat_at = float("-inf")
        self.stop_asked = False
        self._overdue: threading.Timer | None = None  # armed by a stop request
        # A SIGTERM or SIGINT before the worker's own handlers are in place (``run``): under
        # load an ``omerta run`` stopped right after its start ended workers silently at the
        # default handler.
        self.stop_while_starting = stop_while_starting or threading.Event()

    def work(self, *args: Any, **kwargs: Any) -> bool:
        """RQ's work loop, stopped at once by a stop asked before it started."""
        # RQ installs its SIGTERM handler once started (registered, subscribed, its scheduler
        # forked): a stop asked before that killed the worker outright, still registered.
        self._starting = True
        super()._install_signal_handlers()  # RQ's; ours, which RQ calls, ends the start
        if self.stop_while_starting.is_set():  # asked before this worker was made
            self.request_stop(signal.SIGTERM, None)
        try:
            return super().work(*args, **kwargs)
        finally:
            if self._overdue is not None:  # it stopped in time
                self._overdue.cancel()

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
        # RQ's BaseWorker sets pubsub_thread to None in __init__, so mypy types it None (its
        # own subscribe() assigns the thread too).
        self.pubsub_thread = self.pubsub.run_in_thread(  # type: ignore[assignment]
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
