"""Open games that nobody joins expire: RQ scheduled jobs, armed by the projection, that append
the ``expired`` event (``domain.table.expire``) to a game whose creator still sits alone.

After each write of such a game (its shard's ``rm:unjoined`` index lists it,
``services.readside.readmodels``), the projector (its listener ``Expiry``, given by ``bootstrap``)
arms ``expire-<at>-<game>`` at ``at`` = its creation plus ``OMERTA_OPEN_GAME_DAYS``, with RQ's
scheduler on the clocks' queue (``deadlines.schedule``, ``unique``: arming twice is one job). The
job (``expire``) works ``at`` out again with the setting as it is now (made longer since: it arms
itself at the new time and does nothing else), then closes the game against joins
(``Seats.close_unjoined``: one script with the join's own check, so of a join and an expiry exactly
one wins) and appends the event (``CommandService.expire``, once whatever the copies of the job),
then projects the game: it leaves the lobby and the index, and shows as expired. A game somebody
joined first is left alone. A job lost between the close and the append is armed again by the
catch-up (``catch_up``, from the worker's maintenance, for every index entry whose job is missing);
the close holds, so the retry appends.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from rq.job import Job

from services.errors import RuleRejected
from services.eventstore import shards
from services.eventstore.store import now_ms
from services.games.seats import Seats
from services.platform import config
from services.readside import readmodels as rm
from workers.clocks import deadlines
from workers.context import Context
from workers.projection import jobs
from workers.projection.projector import Listener
from workers.queues import Queues, job

log = logging.getLogger(__name__)

DAY_MS = 86_400_000
EXPIRE = "workers.clocks.expiry.expire"


# RQ's ids are letters, digits, "-" and "_"; a game id may hold both, so it comes last.
def job_id(game_id: str, at: int) -> str:
    return f"expire-{at}-{game_id}"


def expires_at(created: int, days: float) -> int:
    """When a game created at ``created`` (ms) expires if nobody joins it in ``days`` (the
    setting now: ``OMERTA_OPEN_GAME_DAYS``)."""
    return created + round(days * DAY_MS)


class Expiry(Listener):
    """The projector's listener: arms the expiry of a game nobody joined yet."""

    def __init__(self, queues: Queues, days: float) -> None:
        self.queues, self.days = queues, days

    def on_unjoined(self, game_id: str, created: int) -> None:
        arm(self.queues, game_id, expires_at(created, self.days))


def arm(queues: Queues, game_id: str, at: int) -> bool:
    """Arm the game's expiry job at ``at``; whether it was new."""
    return deadlines.schedule(queues, job_id(game_id, at), at, EXPIRE, game_id)


@job
def expire(context: Context, game_id: str) -> str:
    """Expire the game if nobody joined it in time: ``expired``, ``later`` (not yet due: armed
    again), ``joined`` (somebody joined first, or no seat is open: nothing happens) or ``over``
    (the game ended otherwise)."""
    commands, days = context.commands, context.settings.open_game_days
    at = expires_at(commands.load(game_id).meta.created, days)
    if now_ms() < at:
        arm(context.queues, game_id, at)
        return "later"
    if not Seats(context.store, now_ms, 0, context.secret).close_unjoined(game_id):
        return "joined"
    try:
        commands.expire(game_id, days)
    except RuleRejected:  # the creator conceded, or the game ended by its own rules
        return "over"
    jobs.project_with(context, game_id)
    return "expired"


def catch_up(
    client: config.Store,
    queues: Queues,
    days: float,
    which: Iterable[int] = range(shards.SHARDS),
) -> int:
    """Arm again the expiry of every game in the indexes of the shards ``which`` (in the store,
    ``client``) whose job is gone from RQ's server (``queues``); how many. One already due runs
    at once. Two round trips: a pipeline of the indexes, one of their jobs' keys."""
    entries = [
        (game_id, expires_at(created, days))
        for game_id, created in deadlines.indexed(client, rm.UNJOINED, which)
    ]
    look = queues.client.pipeline(transaction=False)
    for game_id, at in entries:
        look.exists(Job.key_for(job_id(game_id, at)))
    armed = 0
    for (game_id, at), there in zip(entries, look.execute(), strict=True):
        if not there and arm(queues, game_id, at):
            log.warning("expiry of %s armed again", game_id)
            armed += 1
    return armed
