"""The AI job: ``ai_move(game_id, version)`` (enqueued by the projection:
``workers.projection.ai_due``).

``ai_move`` computes a move for the lowest AI seat owing a decision at ``version``, from that
seat's view and legal commands only, and for a search level its own redacted history
(``domain.bots.choose`` never sees the state), and submits it through the command service with
``expected_version=version``:

* a game that has moved on makes the move stale: it is dropped quietly;
* the command id is ``ai-<version>-<seat>`` (``services.games.commandinput.ai_command_id``), so
copies of
  one job (a retry racing the original) submit the command once; ids are scoped by seat and
  clients may not send that prefix, so no player can take it first;
* a failure of the move (a bot error) is recorded in the game's ``ai:{<id>}:error`` (shown
  with its read model) and re-raised, so RQ retries it (``AI_RETRY``) and finally keeps it in
  its failed registry; a later success clears it. The store down or refusing writes (memory
  full), or RQ's job timeout (a worker too slow under load), is re-raised unrecorded: no
  failure of the move, so the catch-up's periodic pass moves it again once the store is back,
  instead of leaving it for a worker's restart;
* then, whatever the outcome, it projects the game itself (the ``project_changed`` job its
  append may wake finds it done): the read model and the next AI move follow at once, without a
  queue in between. A retry of a job that failed after its append repairs the read model that
  way; the catch-up repairs a job that died there;
* when that projection finds an AI seat owing a decision again (AI seats in a row, or deciding
  at once), the job makes that move too, as a job for that version would, up to ``AI_CHAIN``
  moves; before each it projects every changed game, as a ``project_changed`` job would
  (people's moves go first; the job waiting for them then finds little left). After
  ``AI_CHAIN`` moves it enqueues the job for the next version. A job costs RQ a dozen round
  trips of its own: a game's AI moves in a row no longer pay them each;
* its own appends wake no ``project_changed`` job (``Wake.deferred``): it projects its
  game after each move anyway, and at its end it takes the changed games as that job would.

On a worker of the AI queue alone (``omerta worker --queues ai``, the context's
``serves_projections`` off) the job takes no changed games (neither between its moves nor at its
end): they are the projection workers' work, which a search at a lower CPU priority must not hold
up. Its appends then wake a ``project_changed`` job as anyone's do; it still projects its own game
after each move (the next AI move follows from it).

The job's id, timeout and retries: ``workers.projection.ai_due``.

One search per version: before a search level's move the job takes a lease in the store
(``ai:{<id>}:lease:<version>``, ``SET NX`` with an expiry of the budget + ``LEASE_MARGIN_MS``),
and lets it go once the move is submitted. A copy of the job meanwhile (a retry, the
catch-up's copy, the same id enqueued twice) finds it taken and returns ``searching``: the search
under way makes the move. A job killed in its search leaves the lease to expire, after which the
catch-up's copy searches. (Only a search held up beyond its lease, a stopped process, lets a
second one start; the command id still keeps the move to one.)
"""

from __future__ import annotations

import functools
import logging
import secrets
import time
from contextlib import nullcontext

import msgspec
import redis
from rq.timeouts import JobTimeoutException

from domain import bots
from domain.core import Game
from domain.table import Table
from services.errors import Conflict, Unavailable
from services.eventstore import serversecret
from services.eventstore.store import now_ms
from services.games.commandinput import ai_command_id
from services.games.commands import CommandService
from services.games.seating import ai_levels
from services.platform.config import Store
from services.platform.metrics import Metrics
from services.readside import readmodels as rm
from workers.context import Context
from workers.projection import jobs
from workers.projection.ai_due import AI_CHAIN, budget, enqueue_ai_move, lease_key
from workers.queues import job

log = logging.getLogger(__name__)

LEASE_MARGIN_MS = 5_000  # a search's lease outlives its budget by this much


@job
def ai_move(context: Context, game_id: str, version: int) -> str:
    """Move for the game's first AI seat owing a decision at ``version``, then project the
    game (and go on, see the module docstring). Returns what happened at ``version``:
    ``moved``, ``duplicate`` (an earlier try moved), ``searching`` (another job's search for
    that version runs), ``stale`` or ``not_due``."""
    first = ""
    here = context.serves_projections
    # this job projects what its moves change (a worker of the AI queue alone: see the docstring)
    wake_here = functools.partial(jobs.project_changed, context)
    with context.wake.deferred(wake_here) if here else nullcontext():
        for _ in range(AI_CHAIN):
            outcome = _move(context, game_id, version)
            if outcome not in ("moved", "duplicate"):  # those said which seat moved, and how
                log.debug("AI move of %s at %d: %s", game_id, version, outcome)
            first = first or outcome
            projected = context.projector.project(game_id)
            if projected is None or not (projected.written and projected.ai_due):
                return first
            version = projected.version
            if here:
                jobs.drain(context)  # people's moves (every changed game) go first
        enqueue_ai_move(context, game_id, version)
    return first


def _move(context: Context, game_id: str, version: int) -> str:
    commands, client = context.commands, context.store
    game, state, now, meta = commands.load(game_id)
    if now != version:
        return "stale"
    levels = ai_levels(meta, state)  # the AI seats and the seats bots took over
    seats = sorted(s for s in game.to_act(state) if s in levels)
    if not seats:
        return "not_due"
    seat = seats[0]
    lease = _take_lease(client, game_id, version, levels[seat])
    if lease is None:
        return "searching"
    try:
        level = bots.level_name(levels[seat])
        seen = _seen(commands, game, game_id, seat, levels[seat], context.metrics)
        began = time.perf_counter()
        command = bots.choose(
            meta.game,
            levels[seat],
            game.view(state, seat),
            game.legal(state, seat),
            # Secret, and the same for every try of the move (services.eventstore.serversecret).
            seed=serversecret.bot_seed(context.secret.key(), game_id, version, seat),
            **({"seen": seen} if seen is not None else {}),  # only a search level takes it
        )
        context.metrics.ai_move_seconds.labels(level).observe(time.perf_counter() - began)
        accepted = commands.handle(
            game_id,
            seat,
            command,
            command_id=ai_command_id(version, seat),
            expected_version=version,
        )
    except Conflict:
        return "stale"
    except (Unavailable, redis.RedisError, JobTimeoutException):
        raise
    except Exception as exc:
        error = rm.AiError(seat, version, f"{type(exc).__name__}: {exc}", now_ms())
        _record_error(client, game_id, error)
        raise
    finally:
        if lease:
            _release(client, lease_key(game_id, version), lease)
    client.delete(rm.ai_error_key(game_id))
    done = "searched" if lease else "chose"
    log.debug("AI move of %s at %d: seat %d %s", game_id, version, seat, done)
    return "duplicate" if accepted.duplicate else "moved"


def _take_lease(client: Store, game_id: str, version: int, level: int | str) -> str | None:
    """The lease of the search for ``version`` (its token), "" for a level that does not
    search (no lease needed), None when another job holds it."""
    seconds = budget(level)
    if not seconds:
        return ""
    token = secrets.token_hex(8)
    ttl = int(seconds * 1000) + LEASE_MARGIN_MS
    taken = client.set(lease_key(game_id, version), token, nx=True, px=ttl)
    return token if taken else None


# Deletes the lease only if it is still this job's (one that expired may be another's now).
_RELEASE = """if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end
return 0"""


def _release(client: Store, key: str, token: str) -> None:
    try:
        client.eval(_RELEASE, 1, key, token)
    except redis.RedisError:  # it expires on its own
        log.warning("could not release %s", key)


def _seen(
    commands: CommandService,
    game: Game,
    game_id: str,
    seat: int,
    level: int | str,
    metrics: Metrics,
) -> bots.Seen | None:
    """What a search level gets beyond the view: the seat's own history of the game (the
    stored events, redacted for it by ``bots.seen_history``), the worker's clock, and where
    the search reports its iterations."""
    name = bots.level_name(level)
    if name not in bots.SEARCH_LEVELS:
        return None
    assert isinstance(game, Table)  # every game is played at the table (domain.GAMES)
    events = [record.event for record in commands.events(game_id)]
    history = bots.seen_history(game, events, seat)
    return bots.Seen(
        seat, history, time.monotonic, report=metrics.ai_iterations.labels(name).observe
    )


def _record_error(client: Store, game_id: str, error: rm.AiError) -> None:
    try:
        client.set(rm.ai_error_key(game_id), msgspec.json.encode(error))
    except Exception:  # the job's own failure is what matters; RQ records it
        log.exception("could not record the AI error of %s", game_id)
