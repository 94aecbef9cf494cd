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
    analysis = Analysis(game, events, seed=seed, iterations=iterations)
    decisions: list[Decision] = []
    for index in range(analysis.total):
        decisions.append(analysis.decide(index))
        if progress is not None:
            progress(index + 1, analysis.total)
    return analysis.review(decisions)


class Analysis:
    """A review one decision at a time (``review``'s arguments): ``decide(i)`` analyses the
    i-th of the ``total`` decisions on its own (its figures depend on nothing analysed
    before), so a review can stop after any decision and go on later from the next one;
    ``review`` puts the decisions, all of them in order, together."""

    def __init__(
        self, game: str, events: Sequence[Any], *, seed: bytes, iterations: int | None = None
    ) -> None:
        self.game, self.seed, self.budget = game, seed, iterations_for(game, iterations)
        table = GAMES[game]
        assert isinstance(table, Table)  # every game is played at the table (domain.GAMES)
        self.table = table
        self.result = final_result(table, events)
        self.points, self.kept = decision_points(table, events)
        self.version = len(events)

    @property
    def total(self) -> int:
        return len(self.points)

    def decide(self, index: int) -> Decision:
        point = self.points[index]
        return analyse_point(
            self.table, self.kept, point, self.budget, self.seed, KNOWLEDGE[self.game]
        )

    def review(self, decisions: Sequence[Decision]) -> Review:
        return Review(
            game=self.game,
            seats=len(self.result.scores),
            iterations=self.budget,
            decisions=list(decisions),
            players=grading.summaries(list(decisions), self.result, len(self.result.scores)),
            version=self.version,
        )


def iterations_for(game: str, iterations: int | None) -> int:
    """The budget a review of ``game`` runs: ``iterations`` if given, else the game's default."""
    return ITERATIONS[game] if iterations is None else iterations


__all__ = [
    "GRADES",
    "ITERATIONS",
    "KNOWLEDGE",
    "Analysis",
    "Decision",
    "PlayerSummary",
    "Review",
    "iterations_for",
    "review",
]
