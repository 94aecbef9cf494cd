"""The catch-up pass: nothing is lost when a job is.

Jobs are at-least-once only while they exist: an enqueue can be lost (the process dies after its
append), and a job can die with its worker (SIGKILL). The pass repairs both, at worker start and
then periodically (``workers.worker``), for the shards the worker holds
(``workers.projection.leases``: each
shard is followed by one worker at a time; one worker alone holds all 64; a worker starting
while the others hold every shard makes its first pass over all of them). Steps 1 to 3 read the
shard's own keys only:

1. Projections: it follows each shard's feed stream (one entry per append, in commit order) from
   the shard's cursor (``workers:feed-cursor:{<tag>}``, ``services.eventstore.shards``); every game
   whose read model is behind the version of its feed entry is projected now. The cursor moves only
   past entries whose games were checked, so a pass killed half way is simply repeated. A game whose
   projection fails is set apart with a job of its own (``jobs.project_or_set_apart``): one broken
   game holds up no other.
2. Seats: a seat taken is not an event (no feed entry), so every running game of the shard
   (``rm:games:running:{<tag>}``) whose read model counts fewer taken seats than its seat
   record is projected too (lobby and inboxes).
3. AI moves: every game of the shard with an AI seat owing a decision for longer than
   ``ai_grace_ms`` (``rm:ai-due:{<tag>}``) gets a fresh ``ai_move`` job (a duplicate is
   harmless: stale or idempotent), unless its job is still waiting, or failed for good and
   ``revive_failed`` is off (periodic passes leave a failed AI to its failed registry and
   ``ai_error``; a worker start gives it another chance, a new release may have fixed it). Only a
   move that failed counts as failed: the game's ``ai_error`` is at that version; RQ also marks
   "failed" the jobs it finds abandoned (their worker died) or stuck after their pop, and those are
   moved again. "Waiting" is judged by where the job is, not by its status alone: a job is "queued"
   in RQ's records from its enqueue until a worker starts it, also when it was popped off its queue
   by a worker that died (or whose next write was refused) before it started, so "queued" counts
   only while the job id is in its queue's list, and "scheduled" (a retry's wait) only while it is
   in the scheduled registry. A job "started" that long ago died with its worker, unless it holds
   its version's search lease (``ai_due.lease_key``: a search runs, or ran within its budget and
   margin).
4. Ratings: finished games that no rating job folded (``workers.projection.ratings.catch_up``).
5. Failed projection jobs (RQ's failed registry of the projections queue) of the shard: a
   ``project_changed`` job is run again here (its shard's changed games are projected) and a
   ``project`` job's game projected, and then the job is deleted: its work is done. A
   ``project`` job whose game is still behind after step 1 (a game that fails to project) is
   run again only with ``revive_failed`` (a worker start), and stays failed if it fails again,
   for operators to see. (RQ marked failed a job whose worker died in it once its retries were
   spent, and until RQ's cleanup was fixed, ``workers.queues.OmertaJob``, one that had run
   after such a death.)

``oldest_ai_due_ms`` tells operators how long the longest-waiting AI move has been owed, in any
shard (``omerta status``).

The ``project_changed(shard)`` jobs are no part of the lease: any worker runs them (the ``SPOP``
of the shard's changed set gives each game to one job).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import NamedTuple, cast

import msgspec
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus
from rq.registry import FailedJobRegistry, ScheduledJobRegistry

from services.errors import Unavailable
from services.eventstore import keys, shards
from services.eventstore.store import now_ms, unavailable
from services.games import seats
from services.platform.config import Store
from services.readside import readmodels as rm
from workers.context import Context
from workers.projection import ai_due, jobs, ratings
from workers.projection.projector import Projector, trim_feed
from workers.queues import PROJECTIONS, OmertaJob, Queues, current_name

log = logging.getLogger(__name__)

CURSOR = "workers:feed-cursor"
# As they are named now (``current_name``: a job queued under an older path is one of them).
PROJECTION_JOBS = ("workers.projection.jobs.project_changed", "workers.projection.jobs.project")
BATCH = 1000


class CaughtUp(NamedTuple):
    feed_entries: int
    projected: int
    ai_jobs: int
    rated: int = 0
    settled: int = 0  # failed projection jobs done again and deleted


def catch_up(
    context: Context,
    settle_ms: int = 0,
    ai_grace_ms: int = 0,
    revive_failed: bool = True,
    which: Iterable[int] = range(shards.SHARDS),
) -> CaughtUp:
    """One pass over the shards ``which`` (a worker's: those it holds,
    ``workers.projection.leases``).
    Feed entries newer than ``settle_ms`` are left to their jobs (still running, most likely)
    for the next pass."""
    projector = context.projector
    held = list(which)
    entries = projected = 0
    for shard in held:
        seen, lagging = _follow_shard(context, shard, now_ms() - settle_ms)
        entries, projected = entries + seen, projected + lagging
    projected += _check_seats(context, held)
    ai_jobs = _revive_ai(context, held, now_ms() - ai_grace_ms, revive_failed)
    rated = ratings.catch_up(projector.redis)
    settled = _settle_failed_projections(context, held, revive_failed)
    return CaughtUp(entries, projected, ai_jobs, rated, settled)


def cursor_key(shard: int) -> str:
    return shards.key(CURSOR, shard)


def _follow_shard(context: Context, shard: int, until_ms: int) -> tuple[int, int]:
    client = context.projector.redis
    with unavailable():
        cursor = (cast(bytes | None, client.get(cursor_key(shard))) or b"0-0").decode()
    seen = projected = 0
    while True:
        with unavailable():
            rows = cast(
                list[tuple[bytes, dict[bytes, bytes]]],
                client.xrange(keys.shard_feed_key(shard), f"({cursor}", "+", count=BATCH),
            )
        rows = [(i, f) for i, f in rows if int(i.split(b"-")[0]) <= until_ms]
        if not rows:
            trim_feed(client, shard, cursor)
            return seen, projected
        latest: dict[str, int] = {}
        for _, fields in rows:
            game_id = fields[b"game"].decode()
            latest[game_id] = max(latest.get(game_id, 0), int(fields[b"version"]))
        lagging = _lagging(client, latest)
        for game_id in lagging:
            jobs.project_or_set_apart(context, game_id)
        projected += len(lagging)
        seen += len(rows)
        cursor = rows[-1][0].decode()
        with unavailable():
            client.set(cursor_key(shard), cursor)


def _check_seats(context: Context, held: list[int]) -> int:
    client = context.projector.redis
    pipe = client.pipeline(transaction=False)
    for shard in held:
        pipe.zrange(rm.index_key(rm.RUNNING, shard), 0, -1)
    with unavailable():
        games = [g.decode() for found in pipe.execute() for g in found]
    pipe = client.pipeline(transaction=False)
    reads = []
    for game_id in games:
        pipe.hget(rm.game_key(game_id), "seated")
        reads.append(seats.read_seat_count(pipe, game_id))
    with unavailable():
        found = iter(pipe.execute())
    behind = []
    for game_id, taken in zip(games, reads, strict=True):
        projected = int(next(found) or 0)  # the seats its read model shows
        if projected < taken(found):
            behind.append(game_id)
    for game_id in behind:
        jobs.project_or_set_apart(context, game_id)
    return len(behind)


def _lagging(client: Store, latest: dict[str, int]) -> list[str]:
    games = sorted(latest)
    pipe = client.pipeline(transaction=False)
    for game_id in games:
        pipe.hget(rm.game_key(game_id), "version")
    with unavailable():
        stored = pipe.execute()
    return [g for g, v in zip(games, stored, strict=True) if int(v or 0) < latest[g]]


def _revive_ai(context: Context, held: list[int], due_before_ms: int, revive_failed: bool) -> int:
    client = context.projector.redis  # the leases and the games; the jobs are on RQ's server
    pipe = client.pipeline(transaction=False)
    for shard in held:
        pipe.zrangebyscore(rm.index_key(rm.AI_DUE, shard), "-inf", due_before_ms)
    with unavailable():
        games = [g.decode() for found in pipe.execute() for g in found]
    pipe = client.pipeline(transaction=False)
    for game_id in games:
        pipe.hget(rm.game_key(game_id), "version")
    with unavailable():
        found = [(g, int(v)) for g, v in zip(games, pipe.execute(), strict=True) if v is not None]
    revived = 0
    for game_id, version in found:
        job_ids = [ai_due.ai_job_id(game_id, version, s) for s in ("", ai_due.CATCH_UP)]
        with unavailable():
            gave_up = not revive_failed and _move_failed(client, game_id, version)
            waiting = client.exists(ai_due.lease_key(game_id, version)) or any(
                job_waiting(context.queues, job_id, gave_up) for job_id in job_ids
            )
        if not waiting:
            log.warning("AI move of %s at version %d is overdue: enqueued again", game_id, version)
            ai_due.enqueue_ai_move(context, game_id, version, ai_due.CATCH_UP)
            revived += 1
    return revived


def _move_failed(client: Store, game_id: str, version: int) -> bool:
    raw = client.get(rm.ai_error_key(game_id))
    return raw is not None and msgspec.json.decode(raw, type=rm.AiError).version == version


def job_waiting(queues: Queues, job_id: str, gave_up: bool) -> bool:
    """Whether the job will still run (or, failed with ``gave_up``, is to be left alone)."""
    client = queues.client
    try:
        job = Job.fetch(job_id, connection=client)
    except NoSuchJobError:
        return False
    status = job.get_status()
    if status == JobStatus.QUEUED:
        return client.lpos(queues.queue(job.origin).key, job_id) is not None
    if status == JobStatus.SCHEDULED:
        registry = ScheduledJobRegistry(job.origin, connection=client)
        return client.zscore(registry.key, job_id) is not None
    if status == JobStatus.FAILED:
        return gave_up
    return status == JobStatus.DEFERRED


def _settle_failed_projections(context: Context, held: list[int], revive: bool) -> int:
    """Step 5 of the pass: how many failed projection jobs were done again and deleted."""
    projector, queues = context.projector, context.queues.client
    registry = FailedJobRegistry(PROJECTIONS, connection=queues, job_class=OmertaJob)
    settled = 0
    for job_id in registry.get_job_ids():
        try:
            job = OmertaJob.fetch(job_id, connection=queues)
        except NoSuchJobError:
            continue
        if current_name(job.func_name) not in PROJECTION_JOBS:
            continue
        whole_shard = current_name(job.func_name) == PROJECTION_JOBS[0]
        (arg,) = job.args  # project_changed(shard), project(game_id)
        if (arg if whole_shard else shards.of(arg)) not in held:
            continue
        if whole_shard:
            jobs.project_changed(context, arg)
        elif not revive and _behind(projector, arg):
            continue  # its game still fails to project: left failed until a worker's start
        elif not _projected(context, arg):
            continue
        registry.remove(job, delete_job=True)
        settled += 1
    return settled


def _projected(context: Context, game_id: str) -> bool:
    """Project the game; False if that fails (logged), but for the store being down (raised)."""
    try:
        jobs.project_with(context, game_id)
    except Unavailable:
        raise
    except Exception:
        log.exception("projecting %s failed again: its job stays failed", game_id)
        return False
    return True


def _behind(projector: Projector, game_id: str) -> bool:
    """Whether the game's read model is behind its events."""
    with unavailable():
        version = projector.store.version(game_id)
    return bool(_lagging(projector.redis, {game_id: version}))


def oldest_ai_due_ms(client: Store) -> int | None:
    """How long (ms) the AI move owed longest has been owed; None if no AI seat owes one."""
    pipe = client.pipeline(transaction=False)
    for shard in range(shards.SHARDS):
        pipe.zrange(rm.index_key(rm.AI_DUE, shard), 0, 0, withscores=True)
    with unavailable():
        oldest = [int(found[0][1]) for found in pipe.execute() if found]
    return max(0, now_ms() - min(oldest)) if oldest else None
