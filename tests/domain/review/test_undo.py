"""Moves an undo took back are not reviewed: they no longer happened."""

from __future__ import annotations

from typing import Any

from domain import GAMES, bots
from domain.play import secret_for
from domain.review.analyse import decision_points
from domain.table import Undo, can_undo


def test_a_move_taken_back_is_not_a_decision() -> None:
    table = GAMES["famiglia"]
    events: list[Any] = []
    state: Any = None

    def apply(new: list[Any]) -> None:
        nonlocal state
        for event in new:
            state = table.evolve(state, event)
        events.extend(new)

    apply(table.start(2, secret_for(5), table.options(None)))
    undone = None
    commands = 0
    while table.result(state) is None:
        seat = min(table.to_act(state))
        legal = table.legal(state, seat)
        if undone is None and can_undo(state, seat):
            undone = len(events)  # the move just made by this seat is taken back
            apply(table.decide(state, seat, Undo()))
            continue
        command = bots.choose(
            "famiglia", "greedy", table.view(state, seat), legal, b"u%d" % len(events)
        )
        apply(table.decide(state, seat, command))
        commands += 1
    assert undone is not None  # an undo happened: the test could fail
    points, _ = decision_points(table, events)
    standing = [position for position, _ in bots.standing(table, events)]
    assert all(p.version in standing for p in points)
    assert len(points) == commands - 1  # every command but the one taken back
    taken_back = set(range(undone)) - set(standing)
    assert taken_back  # the undone move's events
    assert not {p.version for p in points} & taken_back
