"""Fixtures for the worker tests (``container`` and ``workers_redis``: ``tests/conftest.py``):
``drain`` runs a real RQ worker in burst mode in this process until the queues are empty (AI
games chain job after job until they end), on ``container``'s objects or on the ones given."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import redis

from bootstrap import Container
from services.readside.readmodels import ReadModels
from workers import worker


@pytest.fixture
def read_models(workers_redis: redis.Redis) -> ReadModels:
    return ReadModels(workers_redis)


@pytest.fixture
def drain(container: Container) -> Callable[..., None]:
    def run(of: Container | None = None) -> None:
        context = (of or container).context
        worker.make_worker(context).work(burst=True, logging_level="WARNING")

    return run
