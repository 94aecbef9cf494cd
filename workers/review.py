"""The post-game review job: ``review_game(game_id)`` analyses a finished game
(``domain.review``) and stores the review (``services.readside.reviews``).

Who asks for it: the projector's listener ``Reviewing`` when a game ends (unless
``OMERTA_REVIEW=off``), and ``POST /games/{id}/review`` for a game that ended before (``ask``).
Either records the review as owed and, only when it was not owed yet, enqueues the job (id
``review-<game id>``) on the analysis queue, the last one: a review never runs before a move
(``workers.queues``; a worker of its own, ``omerta worker --queues analysis``, runs at the
lowest CPU priority, ``workers.worker``).

The job is reproducible: the engine searches ``OMERTA_REVIEW_ITERATIONS`` per decision (unset:
the game's own budget, ``domain.review.ITERATIONS``: 20 s for a Famiglia game, one to two
minutes for a Gangsta! one, on one core), never for a time, from a seed derived from the
server's secret and the game id (never the game's own seed, which the finished game's history
shows), so a rerun writes the same bytes. It is idempotent: a review already stored is not
computed again.

It works a decision at a time (``domain.review.Analysis``), keeping each decision as it is
analysed (``Reviews.decided``) and reporting its progress (``Reviews.progress``, which also
tells that it is alive), so a job goes on from the last decision kept. Between decisions it
asks its worker whether to give it back (``workers.turns``): a default worker does as soon as
another of its queues has a job, so a review never holds up a projection, an AI move or a
notice; then it enqueues its own continuation (``-from-<decisions kept>``) at the end of the
analysis queue and ends. Asked to stop, it ends at once, its decision under way dropped, and
so does its worker. A job that analysed nothing leaves its continuation to the catch-up
(``catch_up``, run by the projection workers' maintenance), which enqueues again every owed
review that is neither running nor waiting in a queue: a job killed with its worker stops
reporting, and the same happens.
"""

from __future__ import annotations

import logging
import time

import msgspec
from rq import Retry

from domain import review as engine
from domain.review import Decision
from services.eventstore import serversecret
from services.eventstore.serversecret import ServerSecret
from services.games.commands import CommandService
from services.platform.config import Store
from services.readside.readmodels import Summary
from services.readside.reviews import Reviews, finished
from workers.context import Context
from workers.projection.catchup import job_waiting
from workers.projection.projector import Listener
from workers.projection.wake import FAILURE_TTL, RESULT_TTL
from workers.queues import ANALYSIS, Queues, job
from workers.turns import Interrupted

log = logging.getLogger(__name__)

# A safety net for a job that hangs, not the review's bound (that is the iterations): a review
# this slow fails, and the budget should be lowered.
TIMEOUT = 3600
CATCH_UP = "-catch-up"  # suffix of the job ids the catch-up enqueues
FROM = "-from-"  # suffix of a continuation's job id, before the decisions kept


def job_id(game_id: str, suffix: str = "") -> str:
    return f"review-{game_id}{suffix}"


def enqueue(queues: Queues, game_id: str, suffix: str = "") -> None:
    queues.enqueue(
        ANALYSIS,
        "workers.review.review_game",
        args=(game_id,),
        job_id=job_id(game_id, suffix),
        timeout=TIMEOUT,
        result_ttl=RESULT_TTL,  # the review is the result, in the store
        failure_ttl=FAILURE_TTL,
        retry=Retry(max=1, interval=[30]),
        description=f"review {game_id}",
    )


def ask(store: Store, queues: Queues, game_id: str) -> bool:
    """Queue the game's review unless it is owed (queued, running) or done; whether it was."""
    if not Reviews(store).owe(game_id):
        return False
    enqueue(queues, game_id)
    return True


class Reviewing(Listener):
    """The projector's listener: queues the review of every game that ends (``enabled``:
    ``OMERTA_REVIEW``). Told before the projection writes the end, so a read model that shows
    the game over always has its review owed or done: until then, ``GET /games/{id}/review``
    says ``queued`` from the end not being projected yet (``api.routes.reviews``). A projection
    told again of the end (a rerun, a seat taken after it, a projection that died before its
    write) finds it owed or done: nothing more is enqueued."""

    def __init__(self, store: Store, queues: Queues, enabled: bool) -> None:
        self.store, self.queues, self.enabled = store, queues, enabled

    def on_change(self, before: Summary, after: Summary) -> None:
        if self.enabled and after.result is not None:
            ask(self.store, self.queues, after.game_id)


@job
def review_game(context: Context, game_id: str) -> str:
    """Review the finished game and store it, going on from the decisions kept; ``done`` if it
    already was, ``reviewed`` once written, ``paused`` when it gave its worker back."""
    reviews = Reviews.of(context.commands.store)  # an archived game's review too
    if reviews.read(game_id) is not None:
        return "done"
    reviews.progress(game_id, 0, 0)  # running (the catch-up leaves it), decisions not counted yet
    analysis = _analysis(
        context.commands, context.secret, game_id, context.settings.review_iterations
    )
    kept = reviews.decisions(game_id, analysis.budget)
    if kept:
        log.info("review of %s resumed at decision %d of %d", game_id, len(kept), analysis.total)
    reviews.progress(game_id, len(kept), analysis.total)  # running
    analysed = 0
    try:
        for index in range(analysis.total):
            if index in kept:
                continue
            began = time.perf_counter()
            with context.turns.interruptible():
                decision = msgspec.json.encode(analysis.decide(index))
            seconds = time.perf_counter() - began
            reviews.decided(game_id, index, decision, analysis.budget, seconds)
            kept[index], analysed = decision, analysed + 1
            reviews.progress(game_id, len(kept), analysis.total)
            if len(kept) < analysis.total and context.turns.over():
                return _pause(context, game_id, len(kept), analysis.total, analysed)
    except Interrupted:
        return _pause(context, game_id, len(kept), analysis.total, analysed)
    decisions = [msgspec.json.decode(kept[i], type=Decision) for i in range(analysis.total)]
    seconds = reviews.seconds(game_id)
    encoded = msgspec.json.encode(analysis.review(decisions))
    reviews.write(game_id, encoded)
    game = context.commands.meta(game_id).game  # a kind of game, never the game itself
    context.metrics.review_seconds.labels(game).observe(seconds)
    log.info("review of %s written (%d bytes)", game_id, len(encoded))
    return "reviewed"


def _pause(context: Context, game_id: str, kept: int, total: int, analysed: int) -> str:
    """Give the worker back at decision ``kept``: a job of its own goes on from there (the
    catch-up's, if this one analysed nothing: its continuation would be itself)."""
    Reviews(context.store).paused(game_id)
    if analysed:
        enqueue(context.queues, game_id, f"{FROM}{kept}")
    log.info("review of %s paused at decision %d of %d (%d in this job)", game_id, kept, total,
             analysed)  # fmt: skip
    return "paused"


def _analysis(
    commands: CommandService, secret: ServerSecret, game_id: str, iterations: int | None
) -> engine.Analysis:
    loaded = commands.load(game_id)
    finished(loaded)  # never a running game's: it would help a player
    return engine.Analysis(
        loaded.meta.game,
        [record.event for record in commands.events(game_id)],
        seed=serversecret.derive(secret.key(), "review", game_id),
        iterations=iterations,
    )


def compute(
    commands: CommandService, secret: ServerSecret, game_id: str, iterations: int | None
) -> bytes:
    """The finished game's review in one go, msgspec JSON: the same bytes for the same game,
    budget (None: the game's own, ``domain.review.ITERATIONS``) and server ``secret``."""
    analysis = _analysis(commands, secret, game_id, iterations)
    return msgspec.json.encode(analysis.review([analysis.decide(i) for i in range(analysis.total)]))


def catch_up(context: Context, which: list[int], revive_failed: bool) -> int:
    """Enqueue again the owed reviews of shards ``which`` whose job is gone (killed with its
    worker, or its enqueue lost); with ``revive_failed`` (a worker's start) also those whose
    job failed for good. How many."""
    reviews = Reviews(context.store)
    revived = 0
    for game_id in reviews.owed(which):
        suffixes = ("", CATCH_UP, f"{FROM}{reviews.kept(game_id)}")  # a continuation's too
        ids = [job_id(game_id, suffix) for suffix in suffixes]
        if reviews.running(game_id) or any(
            job_waiting(context.queues, i, gave_up=not revive_failed) for i in ids
        ):
            continue
        log.warning("review of %s owed and not queued: enqueued again", game_id)
        enqueue(context.queues, game_id, CATCH_UP)
        revived += 1
    return revived
