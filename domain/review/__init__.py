"""The post-game review: each decision of each seat weighed from that seat's information set
(``analyse``: the search finds the best move, both moves are played out on the same
determinizations), graded (``grading``), with what the seat could have known there (one module
per game, ``KNOWLEDGE``, keyed like ``domain.GAMES``). The figures are in ``model``.

Reviewing is iteration-bounded and seeded: the same events, budget and seed give the same
review, on any machine.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from domain import GAMES
from domain.review import famiglia, gangsta, grading
from domain.review.analyse import KnowledgeOf, analyse_point, decision_points, final_result
from domain.review.model import GRADES, Decision, PlayerSummary, Review
from domain.table import Table

# The search budget per decision, per game (the played and the best move get as much each): a
# Famiglia game's review takes about 15 s on one core; a 4-player Gangsta! game's, with four
# times the decisions and rollouts ten times dearer, about 90 s (`make bench`: bench_review).
ITERATIONS: dict[str, int] = {"famiglia": 400, "gangsta": 100}

KNOWLEDGE: dict[str, KnowledgeOf] = {"famiglia": famiglia.knowledge, "gangsta": gangsta.knowledge}


def review(
    game: str,
    events: Sequence[Any],
    *,
    seed: bytes,
    iterations: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Review:
    """The review of a finished game of ``game`` (a key of ``domain.GAMES``) from its stored
    events (not redacted: server side; the creation event names the seats and options). The
    search runs ``iterations`` per decision (default: the game's ``ITERATIONS``), seeded from
    ``seed`` (a server-side secret, never the game's), the decision's version and seat.
    ``progress(done, total)`` is told after each decision. Raises ValueError for an unfinished
    game or one without a sample module."""
    budget = iterations_for(game, iterations)
    table = GAMES[game]
    assert isinstance(table, Table)  # every game is played at the table (domain.GAMES)
    result = final_result(table, events)
    points, kept = decision_points(table, events)
    knowledge = KNOWLEDGE[game]
    decisions: list[Decision] = []
    for done, point in enumerate(points, 1):
        decisions.append(analyse_point(table, kept, point, budget, seed, knowledge))
        if progress is not None:
            progress(done, len(points))
    seats = len(result.scores)
    return Review(
        game=game,
        seats=seats,
        iterations=budget,
        decisions=decisions,
        players=grading.summaries(decisions, result, seats),
        version=len(events),
    )


def iterations_for(game: str, iterations: int | None) -> int:
    """The budget a review of ``game`` runs: ``iterations`` if given, else the game's default."""
    return ITERATIONS[game] if iterations is None else iterations


__all__ = [
    "GRADES",
    "ITERATIONS",
    "KNOWLEDGE",
    "Decision",
    "PlayerSummary",
    "Review",
    "iterations_for",
    "review",
]
