"""Open games nobody joins expire (workers.clocks.expiry): the projection lists such a game in its
shard's ``rm:unjoined`` index and arms an RQ scheduled job ``expire-<at>-<game>`` at its
creation plus ``OMERTA_OPEN_GAME_DAYS``; the catch-up re-arms a lost job; a real worker appends
the ``expired`` event; a join won over an expiry leaves the game alone."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest
import redis
from rq.job import Job
from rq.registry import ScheduledJobRegistry

from bootstrap import Container, bootstrap
from services.eventstore import audit, shards
from services.games.seats import GameExpired
from services.identity.players import Players
from services.readside import readmodels as rm
from services.readside.readmodels import ReadModels
from tests.workers.helpers import start_worker, stop, wait
from workers import queues as wq
from workers.clocks import expiry

pytestmark = pytest.mark.server

DAY_MS = 86_400_000


def _open_game(
    container: Container, client: redis.Redis, seats: int = 2
) -> tuple[str, int, dict[int, str]]:
    """A public Gangsta! game of people, Ann at seat 0, nobody else seated: its creation time
    and invite codes (projected as the API has it projected after the creation)."""
    game_id = container.commands.create_game("gangsta", seats)
    created = container.commands.load(game_id).meta.created
    ann, _ = Players(client).create("Ann")
    codes = Players(client).open_table(game_id, created, range(seats), ann.id, 0, public=True)
    container.projector.project(game_id)
    return game_id, created, codes


def _expiring_in(container: Container, days: float) -> Container:
    """The objects of ``container`` with open games expiring after ``days``."""
    settings = msgspec.structs.replace(container.settings, open_game_days=days)
    return bootstrap(settings, store=container.store, queues_client=container.queues_client)


def _expiry_jobs(client: redis.Redis) -> list[str]:
    registry = ScheduledJobRegistry(wq.CLOCKS, connection=client)
    return [j.decode() for j in client.zrange(registry.key, 0, -1) if j.startswith(b"expire-")]


def _unjoined(client: redis.Redis, game_id: str) -> float | None:
    return client.zscore(rm.index_key(rm.UNJOINED, shards.of(game_id)), game_id)


def test_an_open_game_is_armed_until_somebody_joins_and_a_lost_job_is_armed_again(
    container: Container, workers_redis: redis.Redis
) -> None:
    container = _expiring_in(container, 2)
    game_id, created, codes = _open_game(container, workers_redis)
    job_id = expiry.job_id(game_id, created + 2 * DAY_MS)
    assert _unjoined(workers_redis, game_id) == created
    assert _expiry_jobs(workers_redis) == [job_id]
    job = Job.fetch(job_id, connection=workers_redis)
    assert (job.func_name, job.args) == ("workers.clocks.expiry.expire", (game_id,))
    assert expiry.catch_up(workers_redis, container.queues, 2) == 0  # armed: nothing to do
    job.delete()  # a flushed queue
    assert expiry.catch_up(workers_redis, container.queues, 2) == 1
    assert _expiry_jobs(workers_redis) == [job_id]
    assert (
        expiry.expire(container.context, game_id) == "later"
    )  # a job run early (a setting made longer) waits
    bob, _ = Players(workers_redis).create("Bob")
    Players(workers_redis).join(game_id, bob.id, codes[1])
    container.projector.project(game_id)
    assert _unjoined(workers_redis, game_id) is None


def test_the_expiry_of_a_game_just_joined_does_nothing(
    container: Container, workers_redis: redis.Redis
) -> None:
    container = _expiring_in(container, 0.00001)  # under a second
    game_id, _, codes = _open_game(container, workers_redis, seats=3)
    bob, _ = Players(workers_redis).create("Bob")
    Players(workers_redis).join(game_id, bob.id, codes[1])  # before the job ran
    wait(lambda: expiry.expire(container.context, game_id) != "later", 5, "the expiry to be due")
    assert expiry.expire(container.context, game_id) == "joined"
    summary = ReadModels(workers_redis).summary(game_id)
    assert summary is not None and summary.status == "running"
    cid, _ = Players(workers_redis).create("Cid")
    assert Players(workers_redis).join(game_id, cid.id, None) == 2  # the last seat still open


def test_a_real_worker_expires_an_open_game_nobody_joined(
    container: Container,
    workers_redis: redis.Redis,
    redis_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    days = 2 / 86_400  # two seconds
    monkeypatch.setenv("OMERTA_OPEN_GAME_DAYS", str(days))  # the worker process's
    container = _expiring_in(container, days)
    log = tmp_path / "worker.log"
    worker = start_worker(redis_url, log)
    try:
        game_id, _, codes = _open_game(container, workers_redis)
        read = ReadModels(workers_redis)
        assert [s.game_id for s in read.lobby()] == [game_id]

        def expired() -> bool:
            summary = read.summary(game_id)
            return summary is not None and summary.status == "finished"

        wait(expired, 30, "the game to expire")
    finally:
        stop(worker, log)
    summary = read.summary(game_id)
    assert summary is not None and summary.result is not None
    assert (summary.result.reason, summary.result.winners) == ("expired", [])
    assert read.lobby() == [] and _unjoined(workers_redis, game_id) is None
    last = container.commands.history(game_id, None)[-1]
    assert last.type == "expired" and last.event.days == days
    assert audit.verify(container.commands.store, game_id) == []
    bob, _ = Players(workers_redis).create("Bob")
    with pytest.raises(GameExpired):
        Players(workers_redis).join(game_id, bob.id, codes[1])
