"""Deadlines: RQ scheduled jobs, armed by the projection, that time seats out.

After each write of a game with a clock, the projector (its listener ``Deadlines``, given by
``bootstrap``) arms, for every person's seat owing a decision, two jobs with RQ's
scheduler (``Queue.enqueue_at``, ``unique``: arming twice is one job):

* ``deadline-<version>-<seat>-<deadline ms>-<game>`` at the deadline: ``deadline`` projects the
  game (a cheap no-op when its read model is current), and if the game is still at that
  version, running, and the seat still owes, it works the deadline out again with its player's
  vacations as they are now (one started since the projection pushes it back: the job arms
  itself at the new deadline and does nothing else). Past it, it calls
  ``CommandService.time_out`` at exactly that version (a move that came first makes it a
  ``Conflict``: nothing happens), then projects the game, which with the takeover policy makes
  the seat a bot seat that the AI job plays on. The deadline is in the id, so a deadline moved
  (a vacation, or its early end) gets a job of its own; the old job finds nothing to do.
* ``low-time-<version>-<seat>-<at ms>-<game>`` at ``clocks.low_time_at``: the "time running
  low" notice to the seat's player (``notifications.Event.TIME_LOW``), sent once per (game,
  version, seat) by the notification channels' delivery records.

Nothing here loops or sleeps: RQ's scheduler (the worker runs it, ``with_scheduler=True``)
moves a due job to the ``omerta-clocks`` queue within its interval (1 s). The catch-up
(``catch_up``, from the worker's maintenance) re-arms the deadline of every index entry (each
shard's ``rm:deadlines``) whose job is missing (a flushed queue, a lost store write), and runs
the ones already past at once.
"""

from __future__ import annotations

import datetime as dt
import itertools
import logging
from collections.abc import Iterable

import msgspec
from rq import Retry
from rq.exceptions import DuplicateJobError
from rq.job import Job

from services.errors import Conflict
from services.eventstore import shards
from services.eventstore.store import now_ms, unavailable
from services.games import clocks, vacation
from services.games.clocks import SeatClock
from services.notify import notifications as nt
from services.platform import config
from services.readside import readmodels as rm
from workers.context import Context
from workers.notify import notices as notify
from workers.projection import jobs
from workers.projection.projector import Listener
from workers.queues import CLOCKS, Queues, job

log = logging.getLogger(__name__)

JOB_TIMEOUT = 30
FAILURE_TTL = 7 * 24 * 3600
DEADLINE = "workers.clocks.deadlines.deadline"
LOW_TIME = "workers.clocks.deadlines.low_time"
# A job whose worker died in it is found abandoned by RQ and, with retries left, run again:
# without them it failed for good, and its seat was never timed out (the catch-up re-arms only
# a job that is gone). Running a clock's job twice is harmless: it checks the game first.
RETRY = Retry(max=3, interval=[1, 5, 30])


# RQ's ids are letters, digits, "-" and "_"; a game id may hold both, so it comes last.
def deadline_job_id(game_id: str, version: int, seat: int, deadline: int) -> str:
    return f"deadline-{version}-{seat}-{deadline}-{game_id}"


def low_time_job_id(game_id: str, version: int, seat: int, at: int) -> str:
    return f"low-time-{version}-{seat}-{at}-{game_id}"


class Deadlines(Listener):
    """The projector's listener: arms the jobs of every seat's deadline."""

    def __init__(self, queues: Queues) -> None:
        self.queues = queues

    def on_deadlines(self, game_id: str, version: int, seats: list[SeatClock]) -> None:
        for c in seats:
            assert c.deadline is not None
            arm(self.queues, game_id, version, c.seat, c.bank, c.deadline)


def arm(queues: Queues, game_id: str, version: int, seat: int, bank: int, deadline: int) -> bool:
    """Arm the deadline's jobs (its "time running low" notice's too, unless that moment is
    past); whether the deadline's job was new."""
    low = clocks.low_time_at(bank, deadline)
    if low > now_ms():
        schedule(
            queues,
            low_time_job_id(game_id, version, seat, low),
            low,
            LOW_TIME,
            game_id,
            version,
            seat,
        )
    return schedule(
        queues,
        deadline_job_id(game_id, version, seat, deadline),
        deadline,
        DEADLINE,
        game_id,
        version,
        seat,
    )


def schedule(queues: Queues, job_id: str, at: int, func: str, *args: object) -> bool:
    """Enqueue ``func(*args)`` on the clocks' queue at ``at`` (ms) as job ``job_id``, unless
    that job exists (RQ's ``unique``); whether it was new."""
    # RQ's scheduled registry keeps whole seconds: the next one, never a moment early.
    when = dt.datetime.fromtimestamp(-(-at // 1000), dt.UTC)
    try:
        queues.queue(CLOCKS).enqueue_at(
            when,
            func,
            *args,
            job_id=job_id,
            unique=True,
            job_timeout=JOB_TIMEOUT,
            result_ttl=0,
            failure_ttl=FAILURE_TTL,
            retry=RETRY,
            description=job_id,
        )
    except DuplicateJobError:
        return False
    return True


def _owing(
    context: Context, game_id: str, version: int, seat: int
) -> tuple[rm.Summary, SeatClock, int] | None:
    """The seat's clock if the game (projected now) is still running at ``version`` and the seat
    owes a decision there; with its deadline worked out with its player's vacations as now."""
    context.projector.project(game_id)
    summary = context.read_models.summary(game_id)
    if summary is None or summary.version != version or summary.status != "running":
        return None
    found = next((c for c in summary.clocks if c.seat == seat), None)
    owner = next((s.player for s in summary.seats if s.seat == seat), None)
    if found is None or found.since is None or owner is None:
        return None
    paused = vacation.periods(context.store, owner)
    return summary, found, clocks.runs_out(found.since, found.bank, paused)


@job
def deadline(context: Context, game_id: str, version: int, seat: int) -> str:
    """Time the seat out if its deadline at ``version`` has passed: ``timed_out``, ``stale``
    (the game moved on, or the seat owes nothing), or ``later`` (its deadline moved: armed
    again)."""
    owing = _owing(context, game_id, version, seat)
    if owing is None:
        return "stale"
    _, clock, due = owing
    if now_ms() < due:
        arm(context.queues, game_id, version, seat, clock.bank, due)
        return "later"
    commands = context.commands
    meta = commands.load(game_id).meta
    try:
        commands.time_out(game_id, version, seat, meta.on_timeout.policy == "forfeit")
    except Conflict:
        return "stale"
    jobs.project_with(context, game_id)  # the bot seat's move follows
    return "timed_out"


@job
def low_time(context: Context, game_id: str, version: int, seat: int) -> str:
    """Tell the seat's player that its time runs low: ``sent``, ``stale`` or ``later``."""
    owing = _owing(context, game_id, version, seat)
    if owing is None:
        return "stale"
    summary, clock, due = owing
    at = clocks.low_time_at(clock.bank, due)
    if now_ms() < at:
        job_id = low_time_job_id(game_id, version, seat, at)
        schedule(context.queues, job_id, at, LOW_TIME, game_id, version, seat)
        return "later"
    owner = next(s.player for s in summary.seats if s.seat == seat)
    assert owner is not None
    notice = nt.Notice(owner, nt.Event.TIME_LOW.value, game_id, summary.game, version, seat)
    notify.fan_out(context, msgspec.json.encode([notice]).decode())
    return "sent"


def indexed(client: config.Store, index: str, which: Iterable[int]) -> list[tuple[str, int]]:
    """Every (member, score) of the read models' ``index`` in the shards ``which``: one
    pipeline for all of them."""
    pipe = client.pipeline(transaction=False)
    for shard in which:
        pipe.zrange(rm.index_key(index, shard), 0, -1, withscores=True)
    with unavailable():
        found = pipe.execute()
    return [(m.decode(), int(score)) for m, score in itertools.chain.from_iterable(found)]


def catch_up(
    client: config.Store, queues: Queues, which: Iterable[int] = range(shards.SHARDS)
) -> int:
    """Arm again every deadline in the indexes of the shards ``which`` (in the store,
    ``client``) whose job is gone from RQ's server (``queues``); how many. One already past
    runs at once (its job, enqueued for now). Two round trips for all of them: a pipeline of
    the indexes, one of their jobs' keys (a shard holds thousands of running games)."""
    entries = [
        (*rm.parse_deadline_member(member), score)
        for member, score in indexed(client, rm.DEADLINES, which)
    ]
    look = queues.client.pipeline(transaction=False)
    for game_id, version, seat, _, at in entries:
        look.exists(Job.key_for(deadline_job_id(game_id, version, seat, at)))
    armed = 0
    for (game_id, version, seat, bank, at), there in zip(entries, look.execute(), strict=True):
        if not there and arm(queues, game_id, version, seat, bank, at):
            log.warning("deadline of %s seat %d at version %d armed again", game_id, seat, version)
            armed += 1
    return armed
