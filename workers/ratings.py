"""The rating job: ``rate(game_id)`` folds a finished game into the ratings
(``services.readside.ratings``), once: a second run, or a copy racing the first, changes nothing.

The projector enqueues it (``on_finished``, installed by ``runtime.projector``) after each write
of a finished game's read model: the end itself, and a seat taken after it. A job lost with its
worker is repaired by the catch-up (``catch_up``: finished games not folded yet).
"""

from __future__ import annotations

import redis
from rq import Retry

from services.games.commands import service
from services.readside.ratings import Ratings
from workers import runtime
from workers.projection import wake as enqueue

TIMEOUT = 120  # seconds: one game, or every game again after a late one


def on_finished(game_id: str) -> None:
    runtime.enqueue(
        runtime.PROJECTIONS,
        "workers.ratings.rate",
        args=(game_id,),
        job_id=f"rate-{game_id}",
        timeout=TIMEOUT,
        result_ttl=enqueue.RESULT_TTL,
        failure_ttl=enqueue.FAILURE_TTL,
        retry=Retry(max=3, interval=[1, 5, 30]),
        description=f"rate {game_id}",
    )


def rate(game_id: str) -> str:
    return Ratings(service().store.redis).rate(game_id)


def catch_up(client: redis.Redis) -> int:
    """Fold the finished games no rating job folded; how many."""
    ratings = Ratings(client)
    missing = ratings.unfolded()
    for game_id in missing:
        ratings.rate(game_id)
    return len(missing)
