"""The RQ jobs: ``project(game_id)`` and ``ai_move(game_id, version)``.

``project`` brings a game's read models up to date (``workers.projection``); when that moved
them to a version where an AI seat owes a decision, it enqueues ``ai_move`` for that version
(job id ``ai-<version>-<game id>``: one per version).

``ai_move`` computes a move for the lowest AI seat owing a decision at ``version``, from that
seat's view and legal commands only (``domain.bots.choose`` never sees the state), and submits
it through the command service with ``expected_version=version``:

* a game that has moved on makes the move stale: it is dropped quietly;
* the command id is ``ai-<version>-<seat>``, so copies of one job (a retry racing the original)
  submit the command once;
* a failure (a bot error, the store down) is recorded in the game's ``ai:{<id>}:error`` (shown
  with its read model) and re-raised, so RQ retries it (``AI_RETRY``) and finally keeps it in
  its failed registry; a later success clears it;
* then, whatever the outcome, it projects the game itself instead of enqueuing a ``project``
  job for its append (``enqueue.projected_here``): the read model and the next AI move follow at
  once, without a queue in between. A retry of a job that failed after its append repairs the
  read model that way; the catch-up repairs a job that died there;
* when that projection finds an AI seat owing a decision again (AI seats in a row, or deciding
  at once), the job makes that move too, as a job for that version would, up to ``AI_CHAIN``
  moves and only while no projection job waits (people's moves go first); otherwise it enqueues
  the job for that version. A job costs RQ a dozen round trips of its own: a game's AI moves in
  a row no longer pay them each.
"""

from __future__ import annotations

import logging

import msgspec
from rq import Retry

from domain import bots
from services import readmodels as rm
from services.commands import service
from services.errors import Conflict
from services.store import now_ms
from workers import enqueue, runtime
from workers.projection import Projector

log = logging.getLogger(__name__)

AI_TIMEOUT = 30  # seconds: a bot move takes milliseconds; anything near this is a bug
AI_RETRY = Retry(max=2, interval=[1, 5])
CATCH_UP = "-catch-up"  # suffix of the job ids the catch-up enqueues
AI_CHAIN = 8  # AI moves one job may make in a row in its game


def project(game_id: str) -> int | None:
    """Project the game; the version its read models now reflect (None: no such game)."""
    return project_with(runtime.projector(), game_id)


def project_with(projector: Projector, game_id: str) -> int | None:
    projected = projector.project(game_id)
    if projected is None:
        return None
    if projected.written and projected.ai_due:
        enqueue_ai_move(game_id, projected.version)
    return projected.version


def ai_job_id(game_id: str, version: int, suffix: str = "") -> str:
    """The job's id: one job per (game, version), and one more from the catch-up."""
    return f"ai-{version}-{game_id}{suffix}"


def enqueue_ai_move(game_id: str, version: int, suffix: str = "") -> None:
    runtime.enqueue(
        runtime.AI,
        "workers.jobs.ai_move",
        args=(game_id, version),
        job_id=ai_job_id(game_id, version, suffix),
        timeout=AI_TIMEOUT,
        result_ttl=600,
        failure_ttl=7 * 24 * 3600,
        retry=AI_RETRY,
        description=f"ai_move {game_id} at {version}",
    )


def ai_move(game_id: str, version: int) -> str:
    """Move for the game's first AI seat owing a decision at ``version``, then project the
    game (and go on, see the module docstring). Returns what happened at ``version``:
    ``moved``, ``duplicate`` (an earlier try moved), ``stale`` or ``not_due``."""
    first = ""
    for _ in range(AI_CHAIN):
        with enqueue.projected_here():
            outcome = _move(game_id, version)
        first = first or outcome
        projected = runtime.projector().project(game_id)
        if projected is None or not (projected.written and projected.ai_due):
            return first
        version = projected.version
        if runtime.queue(runtime.PROJECTIONS).count:
            break
    enqueue_ai_move(game_id, version)
    return first


def _move(game_id: str, version: int) -> str:
    svc = service()
    game, state, now, meta = svc.load(game_id)
    if now != version:
        return "stale"
    seats = sorted(s for s in game.to_act(state) if s in meta.ai)
    if not seats:
        return "not_due"
    seat = seats[0]
    try:
        command = bots.choose(
            meta.game,
            meta.ai[seat],
            game.view(state, seat),
            game.legal(state, seat),
            seed=f"{game_id}:{version}:{seat}".encode(),
        )
        accepted = svc.handle(
            game_id, seat, command, command_id=f"ai-{version}-{seat}", expected_version=version
        )
    except Conflict:
        return "stale"
    except Exception as exc:
        _record_error(game_id, rm.AiError(seat, version, f"{type(exc).__name__}: {exc}", now_ms()))
        raise
    svc.store.redis.delete(rm.ai_error_key(game_id))
    return "duplicate" if accepted.duplicate else "moved"


def _record_error(game_id: str, error: rm.AiError) -> None:
    try:
        service().store.redis.set(rm.ai_error_key(game_id), msgspec.json.encode(error))
    except Exception:  # the job's own failure is what matters; RQ records it
        log.exception("could not record the AI error of %s", game_id)
