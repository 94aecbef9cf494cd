"""The projection jobs: ``project_changed(shard)`` and ``project(game_id)``.

``project_changed(shard)`` (enqueued by ``workers.projection.wake`` when a change wakes the read
side of a shard, ``services.eventstore.shards``) clears the shard's wake flag, then takes the
games of its ``changed`` set, a batch at a time, and projects each. A game whose projection
fails is logged and gets a ``project`` job of its own (``project_or_set_apart``); the others go
on. Games taken from the set by a job that dies are projected by the catch-up
(``workers.projection.catchup``).

``project`` brings one game's read models up to date (``workers.projection.projector``); both
enqueue ``ai_move`` (``workers.projection.ai_due``) when the projection moved the game to a version
where an AI seat owes a decision (job id ``ai-<version>-<game id>``: one per version).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from services.errors import Unavailable
from services.eventstore import keys, shards
from services.eventstore.store import unavailable
from workers.context import Context
from workers.projection.ai_due import enqueue_ai_move
from workers.queues import job

log = logging.getLogger(__name__)

CHANGED_BATCH = 100  # games taken from the changed set at a time


@job
def project_changed(context: Context, shard: int) -> int:
    """Project the shard's games changed since the last such job; how many it took."""
    with unavailable():
        context.store.delete(keys.wake_key(shard))  # a change after this wakes a job of its own
    return drain(context, [shard])


def drain(context: Context, which: Iterable[int] = range(shards.SHARDS)) -> int:
    """Take the changed games of the shards ``which``, a batch of each at a time (one round
    trip per node for all of them), and project each; how many it took."""
    taken = 0
    pending = list(which)
    while pending:
        pipe = context.projector.redis.pipeline(transaction=False)
        for shard in pending:
            pipe.spop(keys.changed_key(shard), CHANGED_BATCH)
        with unavailable():
            found = pipe.execute()
        pending = [shard for shard, games in zip(pending, found, strict=True) if games]
        for games in found:
            taken += len(games)
            for game_id in games:
                project_or_set_apart(context, game_id.decode())
    return taken


def project_or_set_apart(context: Context, game_id: str) -> None:
    """Project the game among others; if that fails (not for the store being down: that is
    everybody's failure, raised), log it and give the game a ``project`` job of its own, with
    its own retries and place in the failed registry, so one broken game stops no other."""
    try:
        project_with(context, game_id)
    except Unavailable:
        raise
    except Exception:
        log.exception("projecting %s failed: it gets a job of its own", game_id)
        context.wake.project_alone(game_id)


@job
def project(context: Context, game_id: str) -> int | None:
    """Project the game; the version its read models now reflect (None: no such game)."""
    return project_with(context, game_id)


def project_with(context: Context, game_id: str) -> int | None:
    projected = context.projector.project(game_id)
    if projected is None:
        return None
    if projected.written and projected.ai_due:
        enqueue_ai_move(context, game_id, projected.version)
    return projected.version
