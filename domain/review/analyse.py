"""Walking a finished game's history: its decisions, and each one's figures from the deciding
seat's information set alone.

A decision is a command a seat issued. The stored events do not hold the commands, so each is
found again: at every point where seats owe a decision, the command of a waiting seat whose
``decide`` gives exactly the events that follow (events no command explains, such as the start,
are folded as they come). Its figures (``decide_figures``) take only what a bot gets there: the
seat's view, its legal commands and its redacted history. The search's generator is seeded from
the review's seed, the decision's version and seat, never from the game's secret.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import msgspec

from domain import bots
from domain.core import Game, Result, RuleViolation
from domain.review import grading
from domain.review.model import Decision
from domain.rng import Rng
from domain.search import search, win_chance
from domain.table import Table

KnowledgeOf = Callable[[int, Any, list[Any]], dict[str, Any]]


class Figures(msgspec.Struct, frozen=True):
    """One decision's figures: the best move found and the win chances (unrounded)."""

    best: Any
    before: float
    played_win: float
    best_win: float
    loss: float


class Point(msgspec.Struct, frozen=True):
    """A decision found in the history: at ``index`` of the standing events (stored position
    ``version``), ``seat`` played ``command`` in ``state`` (the full state, server side)."""

    index: int
    version: int
    seat: int
    command: Any
    state: Any


def decide_figures(
    game: str,
    seat: int,
    view: Any,
    legal: list[Any],
    history: list[Any],
    played: Any,
    iterations: int,
    rng: Rng,
) -> Figures:
    """The figures of ``played`` from exactly the seat's information set: the search (as the
    bots run it, from the greedy bot's choice, ``iterations`` of it) finds the best move, then
    the played and the best move each get a search of their own with ``iterations`` (the
    same generator seed for both, ``search.win_chance``). The better of the two is the best
    found; ``before`` is its win chance. A single legal command is only evaluated."""
    module = bots.playout(game)
    sample = bots.sampler(game)
    if sample is None:
        raise ValueError(f"{game!r} has no sample module: it cannot be reviewed")
    weighed = module.considered(legal)
    found = weighed[0]
    if len(weighed) > 1:
        greedy = bots.BOTS.get((game, "greedy"))
        prior = greedy(view, weighed, Rng(_draw(rng), b"prior")) if greedy else None
        found = search(
            module, seat, view, weighed, history, sample, rng, iterations=iterations, prior=prior
        )
    commands = [played] if found == played else [played, found]
    seed = _draw(rng)
    wins = [
        win_chance(
            module, seat, view, c, history, sample, Rng(seed, b"value"), iterations=iterations
        )
        for c in commands
    ]
    best, best_win = (found, wins[-1]) if wins[-1] > wins[0] else (played, wins[0])
    return Figures(
        best=best, before=best_win, played_win=wins[0], best_win=best_win, loss=best_win - wins[0]
    )


def _draw(rng: Rng) -> bytes:
    return rng.below(1 << 64).to_bytes(8, "big")


def decision_points(table: Table, events: Sequence[Any]) -> tuple[list[Point], list[Any]]:
    """The decisions of the game's standing events (``bots.standing``), in order, and those
    events."""
    inner = table.inner
    standing = bots.standing(table, events)
    kept = [event for _, event in standing]
    points: list[Point] = []
    state: Any = None
    i = 0
    while i < len(kept):
        found = _command_at(inner, state, kept, i) if state is not None else None
        if found is None:
            state = inner.evolve(state, kept[i])
            i += 1
            continue
        seat, command, length = found
        points.append(
            Point(index=i, version=standing[i][0], seat=seat, command=command, state=state)
        )
        for event in kept[i : i + length]:
            state = inner.evolve(state, event)
        i += length
    return points, kept


def _command_at(game: Game, state: Any, kept: list[Any], i: int) -> tuple[int, Any, int] | None:
    if game.result(state) is not None:
        return None
    for seat in sorted(game.to_act(state)):
        for command in game.legal(state, seat):
            try:
                produced = game.decide(state, seat, command)
            except RuleViolation:
                continue  # a state the start's own events have not finished setting up
            if produced and produced == kept[i : i + len(produced)]:
                return seat, command, len(produced)
    return None


def analyse_point(
    table: Table,
    kept: list[Any],
    point: Point,
    iterations: int,
    seed: bytes,
    knowledge: KnowledgeOf,
) -> Decision:
    """The decision at ``point``, from what its seat knew there."""
    inner, seat = table.inner, point.seat
    view = inner.view(point.state, seat)
    legal = inner.legal(point.state, seat)
    history = [inner.redact(event, seat) for event in kept[: point.index]]
    label = b"review-%d-%d" % (point.version, seat)
    figures = decide_figures(
        table.name, seat, view, legal, history, point.command, iterations, Rng(seed, label)
    )
    forced = len(legal) == 1
    loss = round(figures.loss, 3)  # graded as shown
    return Decision(
        version=point.version,
        seat=seat,
        played=msgspec.to_builtins(point.command),
        best=msgspec.to_builtins(figures.best),
        before=round(figures.before, 3),
        played_win=round(figures.played_win, 3),
        best_win=round(figures.best_win, 3),
        loss=loss,
        grade=grading.grade(loss, figures.best == point.command, forced),
        knowledge=knowledge(seat, view, history),
    )


def final_result(table: Table, events: Sequence[Any]) -> Result:
    """The finished game's result, as the table ended it (rules, concession, time-out, draw)."""
    state = None
    for event in events:
        state = table.evolve(state, event)
    result = table.result(state) if state is not None else None
    if result is None:
        raise ValueError("only a finished game can be reviewed")
    return result
