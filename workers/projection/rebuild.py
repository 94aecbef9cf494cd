"""Rebuilding every read model from the event log, and checking it against what was there.

``rebuild`` snapshots every read-model key (``rm:*``), drops them all, projects every game in
the store from its first event (a fresh projector, no cached state), folds every finished game
into the ratings again (``services.readside.ratings``: the same order, so the same numbers),
snapshots again and compares: the incremental projections are right exactly when the two are
byte-identical (but for fields no longer written, ``DROPPED``, which the rebuild drops). An
archived game (``services.readside.archiving``) is projected from its archive, its read model
compared with the archived one, then dropped from the store again. Stop the workers first, or
games that move meanwhile show up as differences.

On a Redis Cluster every step is a command of one key (scanned on every master, read and
dropped in pipelines) and the projections are the workers' own single-slot steps. A store whose
read models were written before the shards (the single lists ``rm:lobby``...) is brought to the
shards' lists by one rebuild: the single lists are dropped with the rest and not written again
(they show up as differences, that once).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from services.eventstore.store import EventStore
from services.platform.config import Store
from services.readside import readmodels as rm
from services.readside.ratings import Ratings
from workers.projection.projector import Projector

Progress = Callable[[int, int], None]

DROPPED = (b"views",)
"""Read-model hash fields no longer written (every seat's view, which nothing read). A read model
written before keeps them until a rebuild drops them, an archived one for good: no comparison
counts them (an upgrade is not a difference)."""


class Rebuilt(NamedTuple):
    games: int
    keys: int
    differences: list[str]  # keys whose content differs (or exists on one side only)


BATCH = 1000  # keys read or dropped per round trip


def read_model_keys(client: Store) -> Iterator[list[bytes]]:
    """Every read-model key (``rm:*``), in batches; on a cluster from every master (redis-py's
    cluster client scans them all)."""
    batch: list[bytes] = []
    for key in client.scan_iter(match=f"{rm.PREFIX}*", count=BATCH):
        batch.append(key)
        if len(batch) == BATCH:
            yield batch
            batch = []
    if batch:
        yield batch


def snapshot(client: Store) -> dict[bytes, Any]:
    """Every read-model key's exact content: hash fields, sorted-set members with scores. A
    batch's keys are read in one pipeline (without a transaction: on a cluster their slots are
    many, one round trip per node)."""
    out: dict[bytes, Any] = {}
    for batch in read_model_keys(client):
        pipe = client.pipeline(transaction=False)
        for key in batch:
            pipe.type(key)
        kinds = pipe.execute()
        pipe = client.pipeline(transaction=False)
        for key, kind in zip(batch, kinds, strict=True):
            if kind == b"hash":
                pipe.hgetall(key)
            elif kind == b"zset":
                pipe.zrange(key, 0, -1, withscores=True)
            else:
                pipe.dump(key)
        for key, kind, content in zip(batch, kinds, pipe.execute(), strict=True):
            if kind == b"hash":
                out[key] = sorted(current(content).items())
            elif kind == b"zset":
                out[key] = content
            else:
                out[key] = (kind, content)
    return out


def drop(client: Store) -> int:
    """Delete every read-model key; how many. One key per command (a cluster refuses a
    multi-key command across slots), a batch per pipeline."""
    dropped = 0
    for batch in read_model_keys(client):
        pipe = client.pipeline(transaction=False)
        for key in batch:
            pipe.unlink(key)
        dropped += sum(pipe.execute())
    return dropped


def rebuild(store: EventStore, progress: Progress | None = None) -> Rebuilt:
    client = store.redis
    before = snapshot(client)
    drop(client)
    projector = Projector(store, cache_size=1, from_archive=True)
    game_ids = sorted(store.game_ids())
    archived = set(store.archived.ids()) if store.archived is not None else set()
    differing = []
    for i, game_id in enumerate(game_ids, 1):
        projector.project(game_id)
        if game_id in archived and not same_as_archived(store, game_id):
            differing.append(rm.game_key(game_id))
        if progress is not None:
            progress(i, len(game_ids))
    Ratings(client, store.archived).rebuild()
    after = snapshot(client)
    differences = sorted(
        k.decode() for k in before.keys() | after.keys() if before.get(k) != after.get(k)
    )
    return Rebuilt(len(game_ids), len(after) + len(archived), sorted(differing + differences))


def same_as_archived(store: EventStore, game_id: str) -> bool:
    """Whether the read model just rebuilt for an archived game is its archived one (the one
    rebuilt then leaves the store again: the archive keeps it)."""
    key = rm.game_key(game_id)
    rebuilt = store.redis.hgetall(key)
    store.redis.unlink(key)
    bundle = store.archived_bundle(game_id)
    archived = bundle.hash(key) if bundle is not None else None
    return archived is not None and current(archived) == rebuilt


def current(fields: dict[bytes, bytes]) -> dict[bytes, bytes]:
    """A read-model hash's fields but the ``DROPPED`` ones."""
    return {f: v for f, v in fields.items() if f not in DROPPED}
