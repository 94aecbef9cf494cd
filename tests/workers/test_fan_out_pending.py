"""A read-model change's notices are kept in the fan-outs' pending set before the projection
writes the read model (issue 32): once it is written no projection derives them again, so
the record, not the RQ job, is what keeps them until the channels have taken them."""

from __future__ import annotations

import json

import fakeredis
import pytest

from services.eventstore import shards
from services.eventstore.serversecret import ServerSecret
from services.eventstore.store import EventStore
from services.games.commands import CommandService
from services.games.repository import EventStoreRepository
from services.identity.players import Players
from services.platform import config
from services.readside import readmodels as rm
from tests.feeds import id_in
from workers import queues as wq
from workers.notify import notices as notify
from workers.projection.projector import Projector

SETTINGS = config.settings({})  # the channels' (their catch-up)


def _pending(client: fakeredis.FakeRedis) -> list[bytes]:
    return [m for k in shards.keys(notify.FAN_OUTS) for m in client.zrange(k, 0, -1)]


@pytest.fixture
def joined(fake_redis: fakeredis.FakeRedis) -> tuple[EventStore, str, str]:
    """A two-seat game Ann made and Bob joined, not projected yet: the game, and Ann."""
    store = EventStore(fake_redis)
    service, players = CommandService(EventStoreRepository(store, hooks=[])), Players(fake_redis)
    game_id = service.create_game("famiglia", 2)
    ann, bob = id_in(3, 12), id_in(9, 12)
    players.open_table(game_id, service.meta(game_id).created, [1], ann, 0, True)
    players.join(game_id, bob, None)
    return store, game_id, ann


def test_the_fan_out_is_pending_before_the_read_model_is_written(
    fake_redis: fakeredis.FakeRedis, joined: tuple[EventStore, str, str]
) -> None:
    store, game_id, ann = joined
    queues = wq.Queues(fake_redis)
    projector = Projector(store, listeners=[notify.Notifications(fake_redis, queues)])
    write = projector._write
    seen: list[list[bytes]] = []

    def writing(**kwargs: object) -> object:
        seen.append(_pending(fake_redis))
        assert not fake_redis.exists(rm.game_key(game_id))
        return write(**kwargs)

    projector._write = writing  # type: ignore[assignment]
    assert projector.project(game_id).written  # type: ignore[union-attr]
    assert len(seen) == 1 and len(seen[0]) == 1, seen
    joins = [n for n in json.loads(seen[0][0])[-1] if n["event"] == "player_joined"]
    assert [n["player"] for n in joins] == [ann]


def test_the_catch_up_enqueues_again_a_fan_out_whose_job_is_gone(
    fake_redis: fakeredis.FakeRedis, joined: tuple[EventStore, str, str]
) -> None:
    store, game_id, _ = joined
    queues = wq.Queues(fake_redis)
    Projector(store, listeners=[notify.Notifications(fake_redis, queues)]).project(game_id)
    queue = queues.queue(wq.NOTIFY)
    (job_id,) = queue.get_job_ids()
    (member,) = _pending(fake_redis)
    kept = notify.fan_outs(fake_redis)
    kept.hold(member, 0)  # past its lease
    catching_up = (fake_redis, queues, SETTINGS, ServerSecret(fake_redis))
    assert notify.catch_up(*catching_up) == 0  # its job still waits in the queue
    assert queue.get_job_ids() == [job_id]
    kept.hold(member, 0)
    job = queue.fetch_job(job_id)
    assert job is not None
    job.delete()  # RQ's server lost it
    assert notify.catch_up(*catching_up) == 1
    (again,) = queue.get_job_ids()
    revived = queue.fetch_job(again)
    assert revived is not None and revived.args == (member.decode(),)
    assert notify.catch_up(*catching_up) == 0  # the copy holds it for its lease
