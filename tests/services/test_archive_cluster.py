"""Archiving on a Redis Cluster: the move is one script in the game's slot (its keys and its
shard's markers share it), and the archived game reads, verifies and rebuilds as before."""

from __future__ import annotations

import random
from pathlib import Path

from redis.cluster import RedisCluster

from services.eventstore import audit, keys
from services.eventstore.archive import Archived, FileArchive
from services.eventstore.store import EventStore
from services.games.commands import CommandService
from services.games.repository import EventStoreRepository
from services.readside.archiving import Archiver
from services.readside.ratings import Ratings
from services.readside.readmodels import ReadModels
from tests.services.helpers import play_out
from workers.projection import rebuild
from workers.projection.projector import Projector


def test_an_archived_game_on_a_cluster(cluster_redis: RedisCluster, tmp_path: Path) -> None:
    store = EventStore(cluster_redis, archived=Archived(cluster_redis, FileArchive(tmp_path)))
    projector = Projector(store)
    svc = CommandService(
        EventStoreRepository(store, hooks=[lambda game_id, *_: projector.project(game_id)])
    )
    game_id = svc.create_game("gangsta", 3, {})
    play_out(svc, game_id, random.Random(3))
    Ratings(cluster_redis).rate(game_id)  # as the rating job does
    models = ReadModels.of(store)

    def seen() -> object:
        # What GET /games/{id}/view serves, by a service with nothing cached.
        game, state, version, _ = CommandService(EventStoreRepository(store)).load(game_id)
        views = [(version, game.view(state, seat)) for seat in (None, 0, 1, 2)]
        history = [svc.history(game_id, seat) for seat in (None, 0, 1, 2)]
        return views, history, models.summary(game_id), store.version(game_id)

    before = seen()
    assert Archiver(store).archive(game_id) == "ok"
    assert not cluster_redis.exists(keys.events_key(game_id))
    assert seen() == before
    assert audit.verify(store, game_id) == []
    assert rebuild.rebuild(store).differences == []
    assert seen() == before
