"""Grades follow the documented thresholds; accuracy and the skill/luck split add up."""

from __future__ import annotations

import pytest

from domain import GAMES
from domain.core import Result
from domain.review import review
from domain.review.analyse import decision_points
from domain.review.grading import THRESHOLDS, grade, move_accuracy, summaries
from domain.review.model import Decision
from tests.domain.review.games import finished


@pytest.mark.parametrize(
    ("loss", "expected"),
    [
        (0.0, "good"),
        (0.049, "good"),
        (0.05, "inaccuracy"),
        (0.099, "inaccuracy"),
        (0.10, "mistake"),
        (0.199, "mistake"),
        (0.20, "blunder"),
        (0.9, "blunder"),
    ],
)
def test_a_move_other_than_the_best_is_graded_by_its_loss(loss: float, expected: str) -> None:
    assert grade(loss, played_best=False, forced=False) == expected


def test_the_thresholds_are_the_documented_ones() -> None:
    assert dict(THRESHOLDS) == {"blunder": 0.20, "mistake": 0.10, "inaccuracy": 0.05}


def test_the_best_move_and_a_forced_one_are_named_so() -> None:
    assert grade(0.0, played_best=True, forced=False) == "best"
    assert grade(0.0, played_best=True, forced=True) == "forced"


def test_accuracy_is_100_without_loss_and_falls_with_it() -> None:
    assert move_accuracy(0.0) == pytest.approx(100.0, abs=0.01)
    assert move_accuracy(0.1) < move_accuracy(0.05) < 100.0
    assert move_accuracy(1.0) == 0.0


def _decision(seat: int, loss: float, grade_: str) -> Decision:
    return Decision(
        version=0,
        seat=seat,
        played=None,
        best=None,
        before=0.5,
        played_win=0.5 - loss,
        best_win=0.5,
        loss=loss,
        grade=grade_,
    )


def test_summaries_count_grades_and_split_the_swing() -> None:
    decisions = [
        _decision(0, 0.0, "best"),
        _decision(0, 0.12, "mistake"),
        _decision(1, 0.25, "blunder"),
        _decision(1, 0.3, "forced"),  # a forced move counts for nobody
    ]
    result = Result(scores=[10, 4], winners=[0], reason="r")
    first, second = summaries(decisions, result, 2)
    assert (first.decisions, first.mistakes, first.blunders) == (2, 1, 0)
    assert (second.decisions, second.blunders, second.inaccuracies) == (1, 1, 0)
    assert first.won == 1.0 and second.won == 0.0 and first.score == 10
    assert first.skill == pytest.approx(-0.12) and first.opponents == pytest.approx(0.25)
    for p in (first, second):
        assert p.start + p.skill + p.opponents + p.luck == pytest.approx(p.won, abs=0.002)


def test_a_seat_without_an_unforced_decision_has_no_accuracy() -> None:
    """Not 100: it never decided (a concession at once, a time-out on its first move)."""
    decisions = [_decision(0, 0.12, "mistake"), _decision(1, 0.3, "forced")]
    result = Result(scores=[10, 4, 2], winners=[0], reason="conceded")
    first, second, third = summaries(decisions, result, 3)
    assert first.accuracy is not None and first.accuracy < 100.0
    assert (second.decisions, second.accuracy) == (0, None)
    assert (third.decisions, third.accuracy) == (0, None)


def test_a_single_legal_command_is_forced_and_only_then() -> None:
    events = finished("gangsta", 2)
    table = GAMES["gangsta"]
    points, _ = decision_points(table, events)
    forced = {(p.version, p.seat) for p in points if len(table.inner.legal(p.state, p.seat)) == 1}
    assert forced  # the game has some: the test could fail
    decisions = review("gangsta", events, seed=b"f", iterations=2).decisions
    assert {(d.version, d.seat) for d in decisions if d.grade == "forced"} == forced
