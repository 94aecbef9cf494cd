"""Shard leases (``workers.projection.leases``), on a real server and on a real cluster: workers
split the 64 shards by their fair share, only the holder renews or lets go of a lease, and a holder
that stops renewing (dies) has its shards taken over within the lease's TTL. Then real ``omerta
worker`` processes: one killed (SIGKILL), the other takes its shards over and its catch-up projects
a game of one of them whose job was lost; ``omerta status`` shows who holds what."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis
from redis.cluster import RedisCluster

from api.cli import main
from bootstrap import Container, bootstrap
from services.eventstore import shards
from services.platform import config
from services.readside.readmodels import ReadModels
from tests.cluster import Cluster
from tests.feeds import id_in
from tests.workers.helpers import WORKER, stop, wait
from workers.projection import leases
from workers.projection.leases import Leases, lease_key

TTL_MS = 3_000  # short leases for the in-process tests (long enough for a loaded machine)


@pytest.fixture(params=["server", "cluster"])
def either(request: pytest.FixtureRequest) -> redis.Redis | RedisCluster:
    if request.param == "cluster":
        request.applymarker(pytest.mark.cluster)
        return request.getfixturevalue("cluster_redis")
    request.applymarker(pytest.mark.server)
    return request.getfixturevalue("real_redis")


def holders(client: redis.Redis | RedisCluster) -> list[str | None]:
    return [None if h is None else h.decode() for h in map(client.get, map(lease_key, range(64)))]


def test_two_workers_split_the_shards_and_one_takes_over_the_other(
    either: redis.Redis | RedisCluster,
) -> None:
    first, second = Leases(either, "first", TTL_MS), Leases(either, "second", TTL_MS)
    assert first.renew() == list(range(shards.SHARDS))  # alone: every shard
    assert second.renew() == []  # none free yet: the first lets go at its next pass
    assert len(first.renew()) == 32
    taken = second.renew()
    assert len(taken) == 32 and sorted(taken + first.held()) == list(range(shards.SHARDS))
    assert holders(either).count("first") == holders(either).count("second") == 32
    # Passes on: nothing moves.
    assert (first.renew(), second.renew()) == (first.held(), taken)
    # The second dies (no more renewals): within one TTL the first holds everything again.
    began = time.monotonic()
    while len(first.renew()) < shards.SHARDS:
        assert time.monotonic() - began < 3 * TTL_MS / 1000, "the shards were not taken over"
        time.sleep(TTL_MS / 1000 / 6)
    assert holders(either) == ["first"] * shards.SHARDS
    assert second.held() == []  # its last renewal is older than a TTL
    # Back, it cannot renew what is the first's; it gets its share once the first lets go.
    assert second.renew() == []
    assert len(first.renew()) == 32 and len(second.renew()) == 32


def test_only_the_holder_renews_or_lets_go(either: redis.Redis | RedisCluster) -> None:
    mine = Leases(either, "mine", 60_000)
    assert len(mine.renew()) == shards.SHARDS
    either.set(lease_key(5), "other", px=60_000)  # taken over meanwhile (this one was paused)
    held = mine.renew()
    assert 5 not in held and len(held) == shards.SHARDS - 1
    mine.release_all()
    assert holders(either) == [None] * 5 + ["other"] + [None] * (shards.SHARDS - 6)


def full_status(capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    assert main(["status"]) == 0
    return dict(json.loads(capsys.readouterr().out))


def status_of(capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    return full_status(capsys)["shard_leases"]  # type: ignore[return-value]


@pytest.fixture(params=["server", "cluster"])
def deployment(
    request: pytest.FixtureRequest,
    workers_redis: redis.Redis,
    redis_url: str,
    monkeypatch: pytest.MonkeyPatch,
) -> tuple[dict[str, str], redis.Redis | RedisCluster]:
    """The environment of ``omerta worker`` processes (the store on the session's server, or on
    the cluster with RQ on that server), set for this process too; and a client of the store."""
    if request.param == "server":
        request.applymarker(pytest.mark.server)
        return {"REDIS_URL": redis_url}, workers_redis
    request.applymarker(pytest.mark.cluster)
    client = request.getfixturevalue("cluster_redis")
    cluster: Cluster = request.getfixturevalue("valkey_cluster")
    monkeypatch.delenv("REDIS_URL")
    env = {"REDIS_CLUSTER_URL": cluster.url, "RQ_REDIS_URL": redis_url}
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return env, client


@pytest.fixture
def deployed(deployment: tuple[dict[str, str], redis.Redis | RedisCluster]) -> Container:
    """This process's objects on the deployment's store."""
    return bootstrap()


LEASE_SECONDS = 4  # the processes' leases (OMERTA_LEASE_SECONDS): a quicker takeover


def start(env: dict[str, str], log: Path, name: str) -> subprocess.Popen[bytes]:
    """``omerta worker --name NAME`` in ``env``, with leases of ``LEASE_SECONDS``."""
    base = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "REDIS_CLUSTER_URL")}
    with open(log, "ab") as out:
        return subprocess.Popen(
            [sys.executable, "-c", WORKER, "worker", "--interval", "1", "--name", name],
            env={**base, **env, "OMERTA_LEASE_SECONDS": str(LEASE_SECONDS)},
            stdout=out,
            stderr=subprocess.STDOUT,
        )


def test_a_killed_worker_s_shards_are_taken_over_and_caught_up(
    deployed: Container,
    deployment: tuple[dict[str, str], redis.Redis | RedisCluster],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    env, client = deployment
    read_models = ReadModels(client)
    log = tmp_path / "worker.log"
    first = start(env, log, "first")
    second: subprocess.Popen[bytes] | None = None
    try:
        wait(lambda: holders(client).count("first") == 64, 60, "the first to hold all")
        assert 0 < client.pttl(lease_key(0)) <= 1000 * LEASE_SECONDS
        second = start(env, log, "second")
        wait(lambda: holders(client).count("second") == 32, 60, "the second's fair share")
        assert status_of(capsys) == {"holders": {"first": 32, "second": 32}, "unheld": []}
        assert full_status(capsys)["workers"] == 2
        shard = holders(client).index("first")
        first.send_signal(signal.SIGKILL)
        first.wait(10)
        dead_at = time.monotonic()
        # RQ keeps a killed worker registered for minutes; status counts it within a lease.
        wait(lambda: full_status(capsys)["workers"] == 1, 60, "status to count one worker")
        gone = time.monotonic() - dead_at
        assert gone < LEASE_SECONDS + 2, f"status counted the dead worker {gone:.1f} s"
        # A game of one of the dead worker's shards whose projection job is lost.
        monkeypatch.setattr(deployed.commands.repository, "hooks", [])
        monkeypatch.setattr(shards, "new_id", lambda nbytes: id_in(shard, nbytes))
        game_id = deployed.commands.create_game("famiglia", 2)
        version = deployed.commands.load(game_id).version
        killed_at = time.monotonic()
        wait(lambda: read_models.version(game_id) == version, 60, "the game's catch-up")
        assert holders(client)[shard] == "second"
        took = time.monotonic() - killed_at
        # The dead worker's other shards: their leases lapse at about the same time, but the
        # second takes each free one once its count of live workers has lost the first.
        wait(lambda: holders(client).count("second") == 64, 60, "all the shards to the second")
        assert status_of(capsys) == {"holders": {"second": 64}, "unheld": []}
    finally:
        for process in (first, second):
            if process is not None and process.poll() is None:
                stop(process, log)
    # A clean stop lets go of the leases at once.
    assert holders(client) == [None] * shards.SHARDS, log.read_text()
    print(f"taken over and caught up {took:.1f} s after the kill (TTL {LEASE_SECONDS} s)")


def test_the_lease_time_is_a_setting_of_whole_seconds() -> None:
    assert config.settings({}).lease_seconds == leases.TTL_MS // 1000
    assert config.settings({"OMERTA_LEASE_SECONDS": "30"}).lease_seconds == 30
    with pytest.raises(config.ConfigError, match="OMERTA_LEASE_SECONDS"):
        config.settings({"OMERTA_LEASE_SECONDS": "0"})
