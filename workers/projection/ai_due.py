"""AI moves owed: the projection (and the catch-up) enqueue an ``ai_move`` job (``workers.ai``)
when an AI seat owes a decision, one per version (job id ``ai-<version>-<game id>``).

The job's timeout fits its game's levels: the longest budget among them times ``AI_CHAIN`` +
``AI_TIMEOUT_MARGIN`` (a game of ``random``/``greedy`` seats: the margin alone).
"""

from __future__ import annotations

import math

from rq import Retry

from domain import bots
from services.eventstore.records import GameMeta
from workers.context import Context
from workers.projection.wake import FAILURE_TTL, RESULT_TTL
from workers.queues import AI

# seconds beyond AI_CHAIN search budgets (loading and projecting the game, taking the changed
# games between moves); a greedy move takes milliseconds: anything near this is a bug
AI_TIMEOUT_MARGIN = 10
AI_RETRY = Retry(max=2, interval=[1, 5])
CATCH_UP = "-catch-up"  # suffix of the job ids the catch-up enqueues
AI_CHAIN = 4  # AI moves one job may make in a row in its game


def ai_job_id(game_id: str, version: int, suffix: str = "") -> str:
    """The job's id: one job per (game, version), and one more from the catch-up."""
    return f"ai-{version}-{game_id}{suffix}"


def budget(level: int | str) -> float:
    """Seconds a move of ``level`` may search (0: no search level)."""
    return bots.SEARCH_LEVELS.get(bots.level_name(level), 0.0)


def ai_timeout(meta: GameMeta) -> int:
    """The AI job's timeout in seconds for this game: ``AI_CHAIN`` moves of its slowest level
    (its AI seats' and the takeover level of seats bots took over), and the margin."""
    slowest = max(budget(level) for level in [*meta.ai.values(), meta.takeover])
    return math.ceil(slowest * AI_CHAIN) + AI_TIMEOUT_MARGIN


def lease_key(game_id: str, version: int) -> str:
    """The lease of the search for ``version`` (``workers.ai``)."""
    return f"ai:{{{game_id}}}:lease:{version}"


def enqueue_ai_move(context: Context, game_id: str, version: int, suffix: str = "") -> None:
    context.queues.enqueue(
        AI,
        "workers.ai.ai_move",
        args=(game_id, version),
        job_id=ai_job_id(game_id, version, suffix),
        timeout=ai_timeout(context.commands.meta(game_id)),
        result_ttl=RESULT_TTL,  # nothing to keep: the game is the result
        failure_ttl=FAILURE_TTL,
        retry=AI_RETRY,
        description=f"ai_move {game_id} at {version}",
    )
