"""Rebuilding every read model from the event log, and checking it against what was there.

``rebuild`` snapshots every read-model key (``rm:*``), drops them all, projects every game in
the store from its first event (a fresh projector, no cached state), folds every finished game
into the ratings again (``services.ratings``: the same order, so the same numbers), snapshots
again and compares: the incremental projections are right exactly when the two are
byte-identical. Stop the workers first, or games that move meanwhile show up as differences.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import redis

from services import readmodels as rm
from services.ratings import Ratings
from services.store import EventStore
from workers.projection import Projector

Progress = Callable[[int, int], None]


class Rebuilt(NamedTuple):
    games: int
    keys: int
    differences: list[str]  # keys whose content differs (or exists on one side only)


def snapshot(client: redis.Redis) -> dict[bytes, Any]:
    """Every read-model key's exact content: hash fields, sorted-set members with scores."""
    out: dict[bytes, Any] = {}
    for key in client.scan_iter(match=f"{rm.PREFIX}*", count=1000):
        kind = client.type(key)
        if kind == b"hash":
            out[key] = sorted(client.hgetall(key).items())
        elif kind == b"zset":
            out[key] = client.zrange(key, 0, -1, withscores=True)
        else:
            out[key] = (kind, client.dump(key))
    return out


def drop(client: redis.Redis) -> int:
    dropped = 0
    batch: list[bytes] = []
    for key in client.scan_iter(match=f"{rm.PREFIX}*", count=1000):
        batch.append(key)
        if len(batch) == 1000:
            dropped += client.unlink(*batch)
            batch = []
    if batch:
        dropped += client.unlink(*batch)
    return dropped


def rebuild(store: EventStore, progress: Progress | None = None) -> Rebuilt:
    client = store.redis
    before = snapshot(client)
    drop(client)
    projector = Projector(store, cache_size=1)
    game_ids = sorted(store.game_ids())
    for i, game_id in enumerate(game_ids, 1):
        projector.project(game_id)
        if progress is not None:
            progress(i, len(game_ids))
    Ratings(client).rebuild()
    after = snapshot(client)
    differences = sorted(
        k.decode() for k in before.keys() | after.keys() if before.get(k) != after.get(k)
    )
    return Rebuilt(len(game_ids), len(after), differences)
