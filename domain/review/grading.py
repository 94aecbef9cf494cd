"""Grades, accuracy, and the split of a seat's result between skill and luck (docs/players.md).

Thresholds are on the loss: the win chance (0-1) the played move gave up against the best move
found. Accuracy follows lichess's formula on win-percentage loss, per decision, averaged over a
seat's unforced decisions.
"""

from __future__ import annotations

import math

from domain.core import Result
from domain.review.model import Decision, PlayerSummary

# The least loss of each grade, worst first; below them all, a move other than the best is "good".
THRESHOLDS: tuple[tuple[str, float], ...] = (
    ("blunder", 0.20),
    ("mistake", 0.10),
    ("inaccuracy", 0.05),
)


def grade(loss: float, played_best: bool, forced: bool) -> str:
    """The grade of a decision: "forced" with a single legal command, "best" when the played
    move is the best found, else by the loss's thresholds ("good" below the least)."""
    if forced:
        return "forced"
    if played_best:
        return "best"
    for name, least in THRESHOLDS:
        if loss >= least:
            return name
    return "good"


def move_accuracy(loss: float) -> float:
    """Lichess's accuracy of one move, 0-100, from its loss in win percentage points."""
    value = 103.1668 * math.exp(-0.04354 * 100 * max(0.0, loss)) - 3.1669
    return max(0.0, min(100.0, value))


def win_share(result: Result, seat: int) -> float:
    """The seat's share of the win: 1 alone, 1/k shared with k winners, 0 for a loss."""
    return 1.0 / len(result.winners) if seat in result.winners else 0.0


def summaries(decisions: list[Decision], result: Result, seats: int) -> list[PlayerSummary]:
    """Each seat's summary. Its swing, from ``1/seats`` (before the deal) to its win share,
    splits into ``skill`` (minus its own losses), ``opponents`` (each other seat's loss,
    shared evenly among the seats it could go to) and ``luck``: the rest, what the cards
    dealt and revealed did (it also absorbs the estimates' noise)."""
    unforced = [d for d in decisions if d.grade != "forced"]
    out = []
    for seat in range(seats):
        own = [d for d in unforced if d.seat == seat]
        losses = [d.loss for d in own]
        skill = -sum(losses)
        opponents = sum(d.loss for d in unforced if d.seat != seat) / max(1, seats - 1)
        start = 1.0 / seats
        won = win_share(result, seat)
        accuracy = sum(move_accuracy(x) for x in losses) / len(losses) if losses else None
        out.append(
            PlayerSummary(
                seat=seat,
                accuracy=None if accuracy is None else round(accuracy, 1),
                decisions=len(own),
                inaccuracies=sum(d.grade == "inaccuracy" for d in own),
                mistakes=sum(d.grade == "mistake" for d in own),
                blunders=sum(d.grade == "blunder" for d in own),
                won=round(won, 3),
                score=result.scores[seat],
                skill=round(skill, 3),
                luck=round(won - start - skill - opponents, 3),
                opponents=round(opponents, 3),
                start=round(start, 3),
            )
        )
    return out
