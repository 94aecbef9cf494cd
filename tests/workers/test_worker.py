"""The worker's own round trips: spaced heartbeats, no repeated state writes."""

from __future__ import annotations

import os
import re
import signal
import time
from pathlib import Path

import pytest
import redis

from bootstrap import Container
from tests.workers.helpers import WORKER, start_worker, wait
from workers import queues as wq
from workers import rqworker, worker
from workers.clocks import deadlines
from workers.notify import notices as notify
from workers.projection import catchup

pytestmark = pytest.mark.server


def test_heartbeats_are_spaced_and_keep_the_worker_alive(
    container: Container, workers_redis: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    w = worker.make_worker(container.context)
    w.register_birth()
    w.heartbeat()
    first = w.last_heartbeat
    assert 0 < workers_redis.ttl(w.key) <= w.worker_ttl + 60
    w.heartbeat()  # right after: nothing sent
    assert w.last_heartbeat == first
    monkeypatch.setattr(rqworker, "HEARTBEAT_EVERY", 0.0)
    w.heartbeat()
    assert w.last_heartbeat is not None and first is not None and w.last_heartbeat > first
    stored = workers_redis.hget(w.key, "last_heartbeat")
    assert stored is not None and stored.decode().startswith(str(w.last_heartbeat.date()))


def test_a_state_already_stored_is_not_written_again(
    container: Container, workers_redis: redis.Redis
) -> None:
    w = worker.make_worker(container.context)
    w.register_birth()
    w.set_state("idle")
    assert workers_redis.hget(w.key, "state") == b"idle"
    workers_redis.hset(w.key, "state", "changed elsewhere")
    w.set_state("idle")  # the same state again: no write
    assert workers_redis.hget(w.key, "state") == b"changed elsewhere"
    w.set_state("busy")
    assert workers_redis.hget(w.key, "state") == b"busy"


def test_the_stop_does_not_wait_for_a_pubsub_thread_that_saw_the_unsubscribe(
    container: Container,
    workers_redis: redis.Redis,
) -> None:
    """RQ unsubscribes, then stops its pubsub thread and waits for it; a thread that had read
    the unsubscribe's reply by then waited 60 s for a subscription (redis-py), and the worker's
    stop with it. Here the thread has read it for sure."""
    w = worker.make_worker(container.context)
    w.subscribe()
    wait(lambda: w.pubsub.subscribed, 10, "the subscription")
    w.pubsub.unsubscribe()
    wait(lambda: not w.pubsub.subscribed, 10, "the thread to read the reply")
    began = time.monotonic()
    w.unsubscribe()
    assert time.monotonic() - began < 30  # generous: the hang it guards against is 60 s


@pytest.mark.parametrize("during", ["catch_up", "deadlines", "notifications"])
def test_a_stop_asked_during_the_catch_up_pass_stops_the_worker(
    container: Container, workers_redis: redis.Redis, monkeypatch: pytest.MonkeyPatch, during: str
) -> None:
    """SIGTERM while the worker is idle makes RQ raise ``StopRequested`` wherever the worker is,
    also inside the catch-up passes (the games', the deadlines', the notifications'): each pass
    must let it through (the games' once logged it as a failed pass and worked on, and the
    worker ignored SIGTERM until a second one; the deadlines' did so under CI's load)."""
    passes: list[int] = []

    def stopped(*args: object, **kwargs: object) -> object:
        passes.append(len(passes))
        os.kill(os.getpid(), signal.SIGTERM if len(passes) == 1 else signal.SIGINT)
        time.sleep(1)  # the signal's handler runs here, in the pass
        return catchup.CaughtUp(0, 0, 0) if during == "catch_up" else 0

    owner = {"catch_up": catchup, "deadlines": deadlines, "notifications": notify}[during]
    monkeypatch.setattr(owner, "catch_up", stopped)
    previous = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        assert worker.run(container.context, interval=1) == 0
    except SystemExit:  # RQ's cold shutdown: the second signal was needed
        pass
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    assert passes == [0], "the worker went on after the first SIGTERM"


def test_each_catch_up_pass_covers_the_shards_the_worker_holds(
    container: Container, workers_redis: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The deadlines' and the notifications' passes once looked at every shard on every worker:
    with many workers, each read every shard's deadlines and pending sendings every few
    seconds."""
    given: dict[str, list[list[int]]] = {"catch_up": [], "deadlines": [], "notifications": []}

    def games(*args: object, which: list[int], **kwargs: object) -> catchup.CaughtUp:
        given["catch_up"].append(list(which))
        return catchup.CaughtUp(0, 0, 0)

    def deadlines_of(client: object, queues: object, which: list[int]) -> int:
        given["deadlines"].append(list(which))
        return 0

    def notifications_of(
        client: object, queues: object, settings: object, secret: object, which: list[int]
    ) -> int:
        given["notifications"].append(list(which))
        return 0

    monkeypatch.setattr(catchup, "catch_up", games)
    monkeypatch.setattr(deadlines, "catch_up", deadlines_of)
    monkeypatch.setattr(notify, "catch_up", notifications_of)
    w = worker.make_worker(container.context)
    w.register_birth()
    assert w.leases is not None
    monkeypatch.setattr(w.leases, "held", lambda: [3, 7])
    w.run_maintenance_tasks()
    w.run_maintenance_tasks()
    assert given == {name: [[3, 7], [3, 7]] for name in given}


def test_a_worker_whose_stop_hangs_ends_itself_with_its_stacks_in_the_log(
    container: Container, workers_redis: redis.Redis, redis_url: str, tmp_path: Path
) -> None:
    """A worker asked to stop finishes its job first; one still there ``STOP_GRACE`` seconds
    later (here a job that sleeps a minute; in a CI run, something unknown for 30 s) logs its
    stacks and ends, with RQ's scheduler: a supervisor starts another."""
    log = tmp_path / "worker.log"
    script = "import workers.rqworker; workers.rqworker.STOP_GRACE = 3.0\n" + WORKER
    proc = start_worker(redis_url, log, script=script)
    try:
        job = container.queues.queue(wq.PROJECTIONS).enqueue("time.sleep", 60)
        wait(lambda: job.get_status(refresh=True) == "started", 30, "the job to start")
        scheduler = [
            int(p) for p in Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()
        ]
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 1, log.read_text()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    text = log.read_text()
    assert "is still here 3 s after it was asked to stop" in text
    assert 'File "<string>"' in text or "Thread 0x" in text  # the stacks
    assert scheduler and not any(Path(f"/proc/{pid}").exists() for pid in scheduler)


# Where a stop during the start comes: while the worker is made (before it has handlers of its
# own), and as RQ's work loop starts (before RQ's).
WHILE_STARTING = {
    "made": "import workers.worker as w\nstarted = w.make_worker\n",
    "bootstrap": "from workers.worker import OmertaWorker as w\nstarted = w.bootstrap\n",
}


@pytest.mark.parametrize("where", WHILE_STARTING)
def test_a_worker_asked_to_stop_while_it_starts_stops_cleanly(
    workers_redis: redis.Redis, redis_url: str, tmp_path: Path, where: str
) -> None:
    """A SIGTERM before the handlers are in place (under load, ``omerta run`` stopped right
    after its start) stops the worker as any stop does: it ended silently, without its
    "stopped" line. So soon after its start, RQ's wait for its commands thread hung for a
    minute (``OmertaWorker.unsubscribe``)."""
    log = tmp_path / "worker.log"
    name = "make_worker" if where == "made" else "bootstrap"
    script = (
        "import os, signal\n" + WHILE_STARTING[where] + "def stopped_there(*args, **kwargs):\n"
        "    os.kill(os.getpid(), signal.SIGTERM)\n"
        "    return started(*args, **kwargs)\n"
        f"w.{name} = stopped_there\n" + WORKER
    )
    proc = start_worker(redis_url, log, script=script)
    try:
        assert proc.wait(60) == 0, log.read_text()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert re.search(r"worker \S+ stopped", log.read_text()), log.read_text()
