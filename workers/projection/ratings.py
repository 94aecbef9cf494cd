"""The rating job: ``rate(game_id)`` folds a finished game into the ratings
(``services.readside.ratings``), once: a second run, or a copy racing the first, changes nothing.

The projector enqueues it (its listener ``Ratings``, given by ``bootstrap``) after each write
of a finished game's read model: the end itself, and a seat taken after it. A job lost with its
worker is repaired by the catch-up (``catch_up``: finished games not folded yet).
"""

from __future__ import annotations

from rq import Retry

from services.platform.config import Store
from services.readside import ratings
from workers.context import Context
from workers.projection.projector import Listener
from workers.projection.wake import FAILURE_TTL, RESULT_TTL
from workers.queues import PROJECTIONS, Queues, job

TIMEOUT = 120  # seconds: one game, or every game again after a late one


class Ratings(Listener):
    """The projector's listener: enqueues the rating of a finished game."""

    def __init__(self, queues: Queues) -> None:
        self.queues = queues

    def on_finished(self, game_id: str) -> None:
        self.queues.enqueue(
            PROJECTIONS,
            "workers.projection.ratings.rate",
            args=(game_id,),
            job_id=f"rate-{game_id}",
            timeout=TIMEOUT,
            result_ttl=RESULT_TTL,
            failure_ttl=FAILURE_TTL,
            retry=Retry(max=3, interval=[1, 5, 30]),
            description=f"rate {game_id}",
        )


@job
def rate(context: Context, game_id: str) -> str:
    return ratings.Ratings(context.store).rate(game_id)


def catch_up(client: Store) -> int:
    """Fold the finished games no rating job folded; how many."""
    found = ratings.Ratings(client)
    missing = found.unfolded()
    for game_id in missing:
        found.rate(game_id)
    return len(missing)
