"""How a worker stops: real ``omerta worker`` processes asked to stop (SIGTERM) end within
seconds, without their watchdog (``OmertaWorker._stop_overdue``), also when asked during their
start; RQ's commands thread and scheduler process end within a bound."""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

import pytest
import redis
from rq import Worker

from tests.workers.helpers import start_worker, wait
from workers import worker

pytestmark = pytest.mark.server

HUNG = "after it was asked to stop"  # the watchdog's log line


def _stopped_in_time(process: subprocess.Popen[bytes], log: Path) -> None:
    """``process`` ends by itself (exit 0) within ``STOP_GRACE``, its watchdog silent."""
    try:
        code = process.wait(worker.STOP_GRACE)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        raise AssertionError(f"no stop within {worker.STOP_GRACE} s:\n{log.read_text()}") from None
    text = log.read_text()
    assert code == 0 and HUNG not in text, text


def test_idle_workers_asked_to_stop_end_within_seconds(
    workers_redis: redis.Redis, redis_url: str, tmp_path: Path
) -> None:
    """RQ's commands thread waited 60 s at a time, and RQ's stop joined it without bound: a
    stop hung until the watchdog ended the worker (one stop in four or so)."""
    logs = [tmp_path / f"worker-{i}.log" for i in range(3)]
    processes = [start_worker(redis_url, log) for log in logs]
    try:

        def all_idle() -> bool:
            found = Worker.all(connection=workers_redis)
            return len(found) == len(processes) and all(w.get_state() == "idle" for w in found)

        wait(all_idle, 60, "the workers to be idle")
        began = time.monotonic()
        for process in processes:
            process.send_signal(signal.SIGTERM)
        for process, log in zip(processes, logs, strict=True):
            _stopped_in_time(process, log)
        assert time.monotonic() - began < worker.STOP_GRACE
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.wait()


def test_the_commands_thread_stops_while_it_waits_for_a_subscription(
    workers_redis: redis.Redis,
) -> None:
    """The race behind the hung stops, made certain: the thread has read the answer to an
    unsubscription and waits for a subscription (60 s in RQ) when the worker stops it."""
    w = worker.make_worker()
    w.subscribe()
    assert w.pubsub is not None and w.pubsub_thread is not None
    w.pubsub.unsubscribe()
    wait(lambda: not w.pubsub.subscribed, 10, "the thread to read the unsubscription")
    began = time.monotonic()
    w.unsubscribe()
    assert time.monotonic() - began < 10 and not w.pubsub_thread.is_alive()
