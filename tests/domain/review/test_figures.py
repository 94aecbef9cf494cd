"""A decision's figures come from the deciding seat's information set alone: its view, legal
commands and redacted history, exactly what a bot gets, never the secret or others' hands."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from domain import GAMES, bots
from domain.review import Review, review
from domain.review.analyse import Point, decide_figures, decision_points
from domain.review.grading import grade
from domain.rng import Rng
from tests.domain.review.games import finished

ITERATIONS = 6


def _unforced(game: str, seats: int, resources: bool) -> list[tuple[Point, list[Any]]]:
    table = GAMES[game]
    points, kept = decision_points(table, finished(game, seats, resources=resources))
    chosen = [p for p in points if len(table.inner.legal(p.state, p.seat)) > 1]
    # The first decisions too: Gangsta!'s resource choices, while others' cards are hidden.
    spread = chosen[:2] + chosen[2 :: max(1, len(chosen) // 6)]
    return [(p, kept) for p in spread]


@pytest.mark.parametrize(
    ("game", "seats", "resources"),
    [("famiglia", 2, False), ("gangsta", 3, False), ("gangsta", 2, True)],
)
def test_figures_are_the_same_from_any_state_the_seat_cannot_tell_apart(
    game: str, seats: int, resources: bool
) -> None:
    """The figures from the true state's view equal those from a state drawn from the seat's
    information (other deck orders, other hidden cards), and from the history as
    ``bots.seen_history`` redacts the stored events for that seat."""
    table = GAMES[game]
    inner = table.inner
    sample = bots.sampler(game)
    assert sample is not None
    events = finished(game, seats, resources=resources)
    for point, kept in _unforced(game, seats, resources):
        seat = point.seat
        history = [inner.redact(e, seat) for e in kept[: point.index]]
        assert history == bots.seen_history(table, events[: point.version], seat)
        figures = decide_figures(
            game,
            seat,
            inner.view(point.state, seat),
            inner.legal(point.state, seat),
            history,
            point.command,
            ITERATIONS,
            Rng(b"figures", b"x"),
        )
        other = sample(seat, inner.view(point.state, seat), history, Rng(b"other", b"draw"))
        assert other.secret != point.state.secret  # another deal: the test could tell
        again = decide_figures(
            game,
            seat,
            inner.view(other, seat),
            inner.legal(other, seat),
            list(bots.seen_history(table, events[: point.version], seat)),
            point.command,
            ITERATIONS,
            Rng(b"figures", b"x"),
        )
        assert again == figures


def test_the_same_seed_gives_the_same_review_and_another_seed_another() -> None:
    events = finished("famiglia", 2)
    first = review("famiglia", events, seed=b"one", iterations=4)
    assert review("famiglia", events, seed=b"one", iterations=4) == first
    assert msgspec.json.decode(msgspec.json.encode(first), type=Review) == first  # JSON as is
    other = review("famiglia", events, seed=b"two", iterations=4)
    assert [d.before for d in other.decisions] != [d.before for d in first.decisions]


def test_the_review_covers_every_decision_and_reports_progress() -> None:
    events = finished("gangsta", 2)
    table = GAMES["gangsta"]
    points, _ = decision_points(table, events)
    told: list[tuple[int, int]] = []
    result = review(
        "gangsta", events, seed=b"r", iterations=2, progress=lambda d, t: told.append((d, t))
    )
    assert [(d.version, d.seat) for d in result.decisions] == [(p.version, p.seat) for p in points]
    assert told[-1] == (len(points), len(points)) and len(told) == len(points)
    assert result.version == len(events)
    for decision in result.decisions:
        assert 0.0 <= decision.played_win <= decision.best_win <= 1.0
        assert decision.loss == pytest.approx(decision.best_win - decision.played_win, abs=0.002)
        if decision.grade not in ("best", "forced"):
            assert decision.grade == grade(decision.loss, played_best=False, forced=False)
            assert decision.played != decision.best
    assert any(d.grade not in ("best", "forced") for d in result.decisions)


def test_an_unfinished_game_is_refused() -> None:
    events = finished("famiglia", 2)
    with pytest.raises(ValueError, match="finished"):
        review("famiglia", events[:20], seed=b"r", iterations=2)
