"""``omerta status``: the queues, failed jobs, workers and the age of the oldest owed AI move."""

from __future__ import annotations

import json

import pytest
import redis

from api.cli import main
from services import commands, shards
from workers import runtime

pytestmark = pytest.mark.server


def status(capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    assert main(["status"]) == 0
    return dict(json.loads(capsys.readouterr().out))


def test_status_shows_the_queues_and_the_oldest_owed_ai_move(
    workers_redis: redis.Redis, capsys: pytest.CaptureFixture[str]
) -> None:
    idle = status(capsys)
    assert idle == {
        "queues": dict.fromkeys(runtime.QUEUES, 0),
        "failed": dict.fromkeys(runtime.QUEUES, 0),
        "workers": 0,
        "ai_worker_alive": False,
        "oldest_ai_due_ms": None,
        "shard_leases": {"holders": {}, "unheld": list(range(shards.SHARDS))},
    }
    game_id = commands.create_game("famiglia", 2, ai={0: "greedy", 1: "greedy"})
    runtime.projector().project(game_id)
    busy = status(capsys)
    # the create's projection
    assert busy["queues"] == {**dict.fromkeys(runtime.QUEUES, 0), runtime.PROJECTIONS: 1}
    age = busy["oldest_ai_due_ms"]
    assert isinstance(age, int) and age >= 0
