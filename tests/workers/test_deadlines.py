"""Deadlines as RQ scheduled jobs (workers.clocks.deadlines): the projection arms one per (game,
version, seat, deadline), arming again is the same job, the catch-up re-arms a deleted one, and a
deadline job that finds its seat's player on vacation arms itself at the new deadline."""

from __future__ import annotations

import json
import random
from collections.abc import Callable

import msgspec
import pytest
import redis
from redis.cluster import RedisCluster
from rq.job import Job
from rq.registry import ScheduledJobRegistry

from api.cli import main as omerta
from bootstrap import Container, bootstrap
from services.eventstore import shards
from services.eventstore.store import now_ms
from services.games import vacation
from services.identity.players import Players
from services.notify.webhooks import Webhooks
from services.readside import readmodels as rm
from services.readside.readmodels import ReadModels
from tests.cluster import Cluster
from tests.services.helpers import pick_move
from tests.workers.receiver import receiver
from workers import queues as wq
from workers.clocks import deadlines
from workers.projection.rebuild import snapshot

pytestmark = pytest.mark.server


def _scheduled(client: redis.Redis) -> dict[str, int]:
    """Job id -> when it is due (ms), of the clocks' scheduled jobs (RQ keeps whole seconds:
    the second after the deadline)."""
    registry = ScheduledJobRegistry(wq.CLOCKS, connection=client)
    return {
        job_id.decode(): int(score * 1000)
        for job_id, score in client.zrange(registry.key, 0, -1, withscores=True)
    }


def _seated_game(
    container: Container, client: redis.Redis, clock: dict
) -> tuple[str, dict[int, str]]:
    """A Famiglia game of two people with ``clock``, both seated, projected."""
    game_id = container.commands.create_game("famiglia", 2, clock=clock)
    players = Players(client)
    ann, bob = players.create("Ann")[0], players.create("Bob")[0]
    created = container.commands.load(game_id).meta.created
    invites = players.open_table(game_id, created, [0, 1], ann.id, 0, False)
    players.join(game_id, bob.id, invites[1])
    container.projector.project(game_id)
    return game_id, {0: ann.id, 1: bob.id}


def _deadline_jobs(client: redis.Redis) -> dict[str, int]:
    return {j: at for j, at in _scheduled(client).items() if j.startswith("deadline-")}


def test_the_projection_arms_each_deadline_once(
    container: Container, workers_redis: redis.Redis
) -> None:
    game_id, _ = _seated_game(container, workers_redis, {"type": "per_move", "seconds": 3600})
    summary = ReadModels(workers_redis).summary(game_id)
    assert summary is not None
    (owing,) = [c for c in summary.clocks if c.deadline is not None]
    assert owing.seat in summary.to_act
    job_id = deadlines.deadline_job_id(game_id, summary.version, owing.seat, owing.deadline)
    due = -(-owing.deadline // 1000) * 1000
    assert _deadline_jobs(workers_redis) == {job_id: due}
    job = Job.fetch(job_id, connection=workers_redis)
    assert (job.func_name, job.args, job.kwargs) == (
        "workers.clocks.deadlines.deadline",
        (game_id, summary.version, owing.seat),
        {},
    )
    low = [j for j in _scheduled(workers_redis) if j.startswith("low-time-")]
    assert low == [deadlines.low_time_job_id(game_id, summary.version, owing.seat,
                                             owing.deadline - 360_000)]  # fmt: skip
    # Arming again (another projection, a catch-up) is the same job.
    assert not deadlines.arm(
        container.queues, game_id, summary.version, owing.seat, owing.bank, owing.deadline
    )
    assert _deadline_jobs(workers_redis) == {job_id: due}
    assert deadlines.catch_up(workers_redis, container.queues) == 0


def test_the_catch_up_arms_a_deleted_deadline_job_again(
    container: Container, workers_redis: redis.Redis
) -> None:
    _seated_game(container, workers_redis, {"type": "bank", "initial": 600})
    (job_id,) = _deadline_jobs(workers_redis)
    Job.fetch(job_id, connection=workers_redis).delete()  # a lost worker, a flushed queue
    assert _deadline_jobs(workers_redis) == {}
    assert deadlines.catch_up(workers_redis, container.queues) == 1
    assert list(_deadline_jobs(workers_redis)) == [job_id]
    assert deadlines.catch_up(workers_redis, container.queues) == 0


def test_the_catch_up_looks_only_at_the_shards_it_is_given(
    container: Container, workers_redis: redis.Redis
) -> None:
    """A worker's catch-up covers the shards it holds: another worker holds the others."""
    game_id, _ = _seated_game(container, workers_redis, {"type": "bank", "initial": 600})
    (job_id,) = _deadline_jobs(workers_redis)
    Job.fetch(job_id, connection=workers_redis).delete()
    own = shards.of(game_id)
    others = [s for s in range(shards.SHARDS) if s != own]
    assert deadlines.catch_up(workers_redis, container.queues, others) == 0
    assert _deadline_jobs(workers_redis) == {}
    assert deadlines.catch_up(workers_redis, container.queues, [own]) == 1
    assert list(_deadline_jobs(workers_redis)) == [job_id]


def test_a_deadline_job_finds_a_vacation_and_arms_itself_later(
    container: Container, workers_redis: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    game_id, owners = _seated_game(container, workers_redis, {"type": "per_move", "seconds": 60})
    summary = ReadModels(workers_redis).summary(game_id)
    assert summary is not None
    (owing,) = [c for c in summary.clocks if c.deadline is not None]
    assert owing.deadline is not None
    # The player went on vacation a moment ago (the projection has not run since).
    start = now_ms()
    vacation.start(workers_redis, owners[owing.seat], start, 21, days=1)
    monkeypatch.setattr(deadlines, "now_ms", lambda: owing.deadline + 1)  # the job is due
    assert deadlines.deadline(container.context, game_id, summary.version, owing.seat) == "later"
    moved = owing.deadline + 86_400_000
    later = deadlines.deadline_job_id(game_id, summary.version, owing.seat, moved)
    assert later in _deadline_jobs(workers_redis)
    assert container.commands.load(game_id).version == summary.version  # nobody timed out


def test_a_deadline_job_of_an_old_version_does_nothing(
    container: Container, workers_redis: redis.Redis
) -> None:
    game_id, _ = _seated_game(container, workers_redis, {"type": "per_move", "seconds": 60})
    version = container.commands.load(game_id).version
    assert deadlines.deadline(container.context, game_id, version - 1, 0) == "stale"
    assert deadlines.low_time(container.context, game_id, version - 1, 0) == "stale"
    assert container.commands.load(game_id).version == version


def test_time_running_low_is_told_once(
    container: Container,
    workers_redis: redis.Redis,
    drain: Callable[..., None],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # webhooks may call the loopback (the test's receiver)
    settings = msgspec.structs.replace(container.settings, webhooks_allow_private=True)
    container = bootstrap(settings, store=container.store, queues_client=container.queues_client)
    game_id, owners = _seated_game(container, workers_redis, {"type": "per_move", "seconds": 600})
    summary = ReadModels(workers_redis).summary(game_id)
    assert summary is not None
    (owing,) = [c for c in summary.clocks if c.deadline is not None]
    assert owing.deadline is not None
    drain(container)  # the game's own notices (its first "your turn") go before the hook is there
    with receiver() as hook:
        Webhooks(workers_redis).add(owners[owing.seat], hook.url)
        monkeypatch.setattr(deadlines, "now_ms", lambda: owing.deadline - 60_000)  # 10 % left
        for _ in range(2):  # the job and a copy of it (a retry, the catch-up)
            assert (
                deadlines.low_time(container.context, game_id, summary.version, owing.seat)
                == "sent"
            )
            drain(container)
        (call,) = hook.calls
        sent = json.loads(call.body)
        assert (sent["event"], sent["game_id"], sent["seat"]) == ("time_low", game_id, owing.seat)
    monkeypatch.setattr(deadlines, "now_ms", lambda: owing.deadline - 61_000)
    assert deadlines.low_time(container.context, game_id, summary.version, owing.seat) == "later"


def test_rebuild_gives_the_same_clocks(container: Container, workers_redis: redis.Redis) -> None:
    bank = {"type": "bank", "initial": 600, "increment": 60, "cap": 6000}
    game_id, owners = _seated_game(container, workers_redis, bank)
    rng = random.Random(2)
    # Until a bank has moved: which moves run a clock depends on the deal (a loaded run once
    # met a deal whose first six moves ran none).
    for i in range(60):
        picked = pick_move(container.commands, game_id, rng)
        assert picked is not None
        container.commands.handle(game_id, *picked, command_id=f"c{i}")
        container.projector.project(game_id)
        summary = ReadModels(workers_redis).summary(game_id)
        if i >= 5 and summary is not None and any(c.bank != 600_000 for c in summary.clocks):
            break
    vacation.start(workers_redis, owners[0], now_ms(), 21, days=2)
    vacation.bump(workers_redis, [game_id])
    container.projector.project(game_id)
    summary = ReadModels(workers_redis).summary(game_id)
    assert summary is not None and any(c.bank != 600_000 for c in summary.clocks)
    before = snapshot(workers_redis)
    assert omerta(["rebuild", "--quiet"]) == 0
    assert snapshot(workers_redis) == before


@pytest.mark.cluster
def test_on_a_cluster_the_catch_up_reads_every_shards_deadlines(
    container: Container,
    workers_redis: redis.Redis,
    redis_url: str,
    cluster_redis: RedisCluster,
    valkey_cluster: Cluster,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The store on the cluster, RQ on the session's server: each game's deadline is listed in
    its shard's index by its projection, and the catch-up finds the lost jobs of them all."""
    monkeypatch.delenv("REDIS_URL")
    monkeypatch.setenv("REDIS_CLUSTER_URL", valkey_cluster.url)
    monkeypatch.setenv("RQ_REDIS_URL", redis_url)
    container = bootstrap()  # the store on the cluster, RQ on the session's server
    players = Players(cluster_redis)
    game_ids = []
    for _ in range(3):
        game_id = container.commands.create_game(
            "famiglia", 2, clock={"type": "bank", "initial": 600}
        )
        created = container.commands.load(game_id).meta.created
        invites = players.open_table(game_id, created, [0, 1], shards.new_id(12), 0, False)
        players.join(game_id, shards.new_id(12), invites[1])
        container.projector.project(game_id)
        game_ids.append(game_id)
    entries = ReadModels(cluster_redis).across(rm.DEADLINES, 0, 100)
    listed = {rm.parse_deadline_member(member.decode())[0] for member, _ in entries}
    assert listed == set(game_ids)
    jobs = _deadline_jobs(workers_redis)
    assert len(jobs) == 3
    for job_id in jobs:
        Job.fetch(job_id, connection=workers_redis).delete()
    assert deadlines.catch_up(cluster_redis, container.queues) == 3
    assert _deadline_jobs(workers_redis) == jobs
