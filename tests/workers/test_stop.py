"""How a worker stops: real ``omerta worker`` processes asked to stop (SIGTERM) end within
seconds, without their watchdog (``OmertaWorker._stop_overdue``), also when asked during their
start; RQ's commands thread and scheduler process end within a bound."""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
import redis
from rq import Worker

from bootstrap import Container
from tests.workers.helpers import WORKER, start_worker, wait
from workers import rqworker, worker

pytestmark = pytest.mark.server

HUNG = "after it was asked to stop"  # the watchdog's log line


def _stopped_in_time(process: subprocess.Popen[bytes], log: Path) -> None:
    """``process`` ends by itself (exit 0) within ``STOP_GRACE``, its watchdog silent."""
    try:
        code = process.wait(rqworker.STOP_GRACE)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        grace = rqworker.STOP_GRACE
        raise AssertionError(f"no stop within {grace} s:\n{log.read_text()}") from None
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
        assert time.monotonic() - began < rqworker.STOP_GRACE
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.wait()


def test_a_worker_asked_to_stop_during_its_start_stops_cleanly(
    workers_redis: redis.Redis, redis_url: str, tmp_path: Path
) -> None:
    """A SIGTERM before RQ's work loop has its signal handlers (here: while it subscribes to
    its commands) once killed the worker outright: still registered, its shards held."""
    script = (
        "import os, signal\n"
        "from workers import worker\n"
        "subscribe = worker.OmertaWorker.subscribe\n"
        "def asked(self):\n"
        "    os.kill(os.getpid(), signal.SIGTERM)\n"
        "    subscribe(self)\n"
        "worker.OmertaWorker.subscribe = asked\n" + WORKER
    )
    log = tmp_path / "worker.log"
    process = start_worker(redis_url, log, script=script)
    _stopped_in_time(process, log)
    assert "stopped" in log.read_text()
    assert Worker.all(connection=workers_redis) == []


def test_the_commands_thread_stops_while_it_waits_for_a_subscription(
    container: Container,
    workers_redis: redis.Redis,
) -> None:
    """The race behind the hung stops, made certain: the thread has read the answer to an
    unsubscription and waits for a subscription (60 s in RQ) when the worker stops it."""
    w = worker.make_worker(container.context)
    w.subscribe()
    assert w.pubsub is not None and w.pubsub_thread is not None
    w.pubsub.unsubscribe()
    wait(lambda: not w.pubsub.subscribed, 10, "the thread to read the unsubscription")
    began = time.monotonic()
    w.unsubscribe()
    assert time.monotonic() - began < 10 and not w.pubsub_thread.is_alive()


def _stubborn(ignored: int) -> None:
    """A scheduler process that ends only at its SIGTERM number ``ignored`` + 1."""
    count = 0

    def term(signum: int, frame: object) -> None:
        nonlocal count
        count += 1
        if count > ignored:
            raise SystemExit(0)

    signal.signal(signal.SIGTERM, term)
    while True:
        signal.pause()


def _scheduler(ignored: int) -> multiprocessing.process.BaseProcess:
    """A forked scheduler (as RQ's is) that ignores SIGTERM until it has its handler: a
    SIGTERM sent right away is lost, as one to RQ's before it has its own."""
    previous = signal.signal(signal.SIGTERM, signal.SIG_IGN)
    try:
        process = multiprocessing.get_context("fork").Process(target=_stubborn, args=(ignored,))
        process.start()
    finally:
        signal.signal(signal.SIGTERM, previous)
    return process


def _stop_scheduler(w: worker.OmertaWorker, process: multiprocessing.process.BaseProcess) -> None:
    """``w.stop_scheduler()`` on ``process``; a stop that waits without bound (RQ's) has the
    process killed after a minute, which fails the test instead of hanging it."""
    w.scheduler = SimpleNamespace(_process=process)  # type: ignore[assignment]
    assert process.pid is not None
    backstop = threading.Timer(60, os.kill, (process.pid, signal.SIGKILL))
    backstop.start()
    try:
        w.stop_scheduler()
    finally:
        backstop.cancel()


def test_the_scheduler_gets_sigterm_again_until_it_ends(
    container: Container, workers_redis: redis.Redis
) -> None:
    """RQ sent its scheduler one SIGTERM and waited for it without bound: one that came before
    the scheduler had its handler (it has the worker's until then, through the fork) was lost."""
    process = _scheduler(ignored=2)
    began = time.monotonic()
    _stop_scheduler(worker.make_worker(container.context), process)
    assert process.exitcode == 0 and time.monotonic() - began < rqworker.SCHEDULER_KILL_AFTER


def test_a_scheduler_that_ignores_sigterm_is_killed(
    container: Container, workers_redis: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(rqworker, "SCHEDULER_KILL_AFTER", 2.0)
    process = _scheduler(ignored=1_000_000)
    began = time.monotonic()
    _stop_scheduler(worker.make_worker(container.context), process)
    assert process.exitcode == -signal.SIGKILL and time.monotonic() - began < 30
