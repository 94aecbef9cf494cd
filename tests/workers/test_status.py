"""``omerta status``: the store it reads, the queues, failed jobs, workers and the age of the
oldest owed AI move; without a store to read it says so and starts none."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import redis

from api.cli import main
from bootstrap import Container
from services.eventstore import shards
from services.platform import servers
from services.platform.embedded import EmbeddedServer
from workers import queues as wq

pytestmark = pytest.mark.server


def status(capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    assert main(["status"]) == 0
    return dict(json.loads(capsys.readouterr().out))


def test_status_shows_the_queues_and_the_oldest_owed_ai_move(
    container: Container,
    workers_redis: redis.Redis,
    redis_url: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    idle = status(capsys)
    assert idle == {
        "store": {"kind": "server", "address": urlsplit(redis_url).netloc},
        "replication": {"min_replicas": 0, "refused_shards": [], "masters_without_replicas": []},
        "queues": dict.fromkeys(wq.QUEUES, 0),
        "failed": dict.fromkeys(wq.QUEUES, 0),
        "workers": 0,
        "ai_worker_alive": False,
        "oldest_ai_due_ms": None,
        "shard_leases": {"holders": {}, "unheld": list(range(shards.SHARDS))},
    }
    game_id = container.commands.create_game("famiglia", 2, ai={0: "greedy", 1: "greedy"})
    container.projector.project(game_id)
    busy = status(capsys)
    # the create's projection
    assert busy["queues"] == {**dict.fromkeys(wq.QUEUES, 0), wq.PROJECTIONS: 1}
    age = busy["oldest_ai_due_ms"]
    assert isinstance(age, int) and age >= 0


def never_start(monkeypatch: pytest.MonkeyPatch) -> None:
    """``omerta status`` reads a store; starting one here would fail the test that calls it."""

    def refuse(*_: object, **__: object) -> None:
        raise AssertionError("omerta status started an embedded server")

    monkeypatch.setattr(servers, "start_embedded", refuse)
    monkeypatch.setattr(EmbeddedServer, "start", refuse)


def test_status_without_a_store_says_so_and_starts_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """It once started an embedded server of its own and reported that empty store."""
    for name in ("REDIS_URL", "REDIS_CLUSTER_URL", "RQ_REDIS_URL"):
        monkeypatch.delenv(name, raising=False)
    never_start(monkeypatch)
    monkeypatch.setenv("OMERTA_VAR", str(tmp_path))
    assert main(["status"]) == 2
    out = capsys.readouterr()
    assert out.out == ""
    assert "REDIS_URL" in out.err and "REDIS_CLUSTER_URL" in out.err and str(tmp_path) in out.err
    assert list(tmp_path.iterdir()) == []  # no server's files, no port file


def test_status_reads_the_embedded_server_that_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The server ``omerta run`` started for the data directory, found by its port file."""
    for name in ("REDIS_URL", "REDIS_CLUSTER_URL", "RQ_REDIS_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OMERTA_VAR", str(tmp_path))
    with EmbeddedServer(tmp_path) as server:
        (tmp_path / "valkey.port").write_text(f"{server.port}\n")
        never_start(monkeypatch)
        found = status(capsys)
    assert found["store"] == {
        "kind": "embedded",
        "address": f"127.0.0.1:{server.port}",
        "var": str(tmp_path),
    }
    assert found["workers"] == 0
