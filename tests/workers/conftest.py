"""Fixtures for the worker tests: the process-wide command service, queues and projector on
the session's real server (``real_redis``: emptied before each test), with the enqueue hook
installed as the API and the worker install it; ``drain`` runs a real RQ worker in burst mode in
this process until the queues are empty (AI games chain job after job until they end)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
import redis

from services.games import commands
from services.readside.readmodels import ReadModels
from workers import runtime, worker
from workers.projection import wake as enqueue


@pytest.fixture
def workers_redis(
    real_redis: redis.Redis, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> Iterator[redis.Redis]:
    monkeypatch.setenv("REDIS_URL", redis_url)
    monkeypatch.setattr(commands, "_default", None)
    monkeypatch.setattr(commands, "after_append", [])
    runtime.reset()
    enqueue.install()
    yield real_redis
    runtime.reset()


@pytest.fixture
def read_models(workers_redis: redis.Redis) -> ReadModels:
    return ReadModels(workers_redis)


@pytest.fixture
def drain(workers_redis: redis.Redis) -> Callable[[], None]:
    def run() -> None:
        worker.make_worker().work(burst=True, logging_level="WARNING")

    return run
