"""Undo over whole games of random play (docs/table.md, "Undo"): an allowed undo
brings back, for every seat and a spectator, exactly the view of a moment between two commands
when that seat alone was to act; never right after an event that reveals or shuffles."""

from __future__ import annotations

from typing import Any

import pytest

from domain import GAMES
from domain.play import secret_for
from domain.rng import Rng
from domain.table import Undo, Undone, can_undo

MAX_UNDOS = 150


def _views(game: Any, state: Any, seats: int) -> list[Any]:
    return [game.view(state, s) for s in (*range(seats), None)]


def _after(game: Any, state: Any, seat: int, command: Any) -> Any:
    for event in game.decide(state, seat, command):
        state = game.evolve(state, event)
    return state


def _play(name: str, seats: int, options: dict[str, Any], number: int) -> int:
    """Plays one game, undoing now and then; returns how many undos were made."""
    game = GAMES[name]
    hooks = game.hooks
    rng = Rng(f"{name}-{seats}-{number}".encode(), b"undo-test")
    state = None
    for event in game.start(seats, secret_for(number), game.options(options)):
        state = game.evolve(state, event)
    boundaries: dict[int, list[Any]] = {}  # id of the game state -> every seat's view then
    kept: list[Any] = []  # the states whose ids are keys above stay alive
    undos = 0
    while game.result(state) is None:
        kept.append(state.game)
        boundaries[id(state.game)] = _views(game, state, seats)
        seat = min(game.to_act(state))
        if can_undo(state, seat) and undos < MAX_UNDOS and rng.below(4) == 0:
            point = state.point
            assert point is not None and id(point.state) in boundaries, (
                "undo to a mid-command state"
            )
            (event,) = game.decide(state, seat, Undo())
            assert event == Undone(seat=seat)
            state = game.evolve(state, event)
            assert _views(game, state, seats) == boundaries[id(point.state)]
            assert game.to_act(state) == {seat}
            undos += 1
            continue
        legal = game.legal(state, seat)
        if rng.below(2):  # often a move that can be undone: random play seldom makes them
            legal = [c for c in legal if can_undo(_after(game, state, seat, c), seat)] or legal
        for event in game.decide(state, seat, legal[rng.below(len(legal))]):
            state = game.evolve(state, event)
            if hooks.reveals(event):
                assert not any(can_undo(state, s) for s in range(seats)), event
        if len(game.to_act(state)) > 1:
            assert not any(can_undo(state, s) for s in range(seats))
    return undos


@pytest.mark.parametrize("number", range(1, 5))
def test_famiglia_undo_restores_the_point(number: int) -> None:
    # Random play passes a lot: two passes in a row would end most games at once.
    assert _play("famiglia", 2, {"double_pass_ends": False}, number) > 0


@pytest.mark.parametrize("seats", [2, 3, 4])
@pytest.mark.parametrize(
    "options", [{}, {"resources": True}, {"preset": "published", "resources": True}]
)
@pytest.mark.parametrize("number", [1, 2])
def test_gangsta_undo_restores_the_point(seats: int, options: dict[str, Any], number: int) -> None:
    assert _play("gangsta", seats, options, number) > 0
