"""The composition root (``bootstrap``): each container is its own, and a worker's jobs work
with the objects of the container it was made with, not with any process-wide one."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import redis

from bootstrap import bootstrap
from services.platform.embedded import EmbeddedServer
from services.readside.readmodels import ReadModels
from workers import worker
from workers.queues import PROJECTIONS

pytestmark = pytest.mark.server


def test_a_worker_s_jobs_use_its_own_container(
    real_redis: redis.Redis, embedded_server_factory: Callable[..., EmbeddedServer]
) -> None:
    other = embedded_server_factory().client()
    here, there = bootstrap(store=real_redis), bootstrap(store=other)
    assert here.commands is not there.commands and here.queues is not there.queues
    game_id = there.commands.create_game("famiglia", 2)  # its hook enqueues the projection there
    assert there.queues.queue(PROJECTIONS).count == 1
    assert here.queues.queue(PROJECTIONS).count == 0
    worker.make_worker(there.context).work(burst=True, logging_level="WARNING")
    projections = there.queues.queue(PROJECTIONS)
    # the job ran there, and succeeded: neither failed nor waiting for a retry
    assert projections.failed_job_registry.count == projections.scheduled_job_registry.count == 0
    summary = ReadModels(other).summary(game_id)
    assert summary is not None and summary.version == there.commands.load(game_id).version
    assert ReadModels(real_redis).summary(game_id) is None
