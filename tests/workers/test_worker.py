"""The worker's own round trips: spaced heartbeats, no repeated state writes."""

from __future__ import annotations

import pytest
import redis

from workers import worker

pytestmark = pytest.mark.server


def test_heartbeats_are_spaced_and_keep_the_worker_alive(
    workers_redis: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    w = worker.make_worker()
    w.register_birth()
    w.heartbeat()
    first = w.last_heartbeat
    assert 0 < workers_redis.ttl(w.key) <= w.worker_ttl + 60
    w.heartbeat()  # right after: nothing sent
    assert w.last_heartbeat == first
    monkeypatch.setattr(worker, "HEARTBEAT_EVERY", 0.0)
    w.heartbeat()
    assert w.last_heartbeat is not None and first is not None and w.last_heartbeat > first
    stored = workers_redis.hget(w.key, "last_heartbeat")
    assert stored is not None and stored.decode().startswith(str(w.last_heartbeat.date()))


def test_a_state_already_stored_is_not_written_again(workers_redis: redis.Redis) -> None:
    w = worker.make_worker()
    w.register_birth()
    w.set_state("idle")
    assert workers_redis.hget(w.key, "state") == b"idle"
    workers_redis.hset(w.key, "state", "changed elsewhere")
    w.set_state("idle")  # the same state again: no write
    assert workers_redis.hget(w.key, "state") == b"changed elsewhere"
    w.set_state("busy")
    assert workers_redis.hget(w.key, "state") == b"busy"
