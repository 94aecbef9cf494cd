"""The table: what every game played here has beside its rules (docs/table.md). ``table(game)``
wraps a game package into a ``Game`` of the same protocol whose commands add ``concede``,
``offer_draw``, ``accept_draw``, ``decline_draw`` and ``undo``, and whose events add
``conceded``, ``timed_out``, ``draw_offered``, ``draw_declined``, ``draw_agreed``,
``expired`` and ``undone``. ``legal`` stays the game's own; ``view`` is the game's own view, and
``table_view(state, seat)`` the table's part of it; ``time_out`` gives the events of a seat's
time-out (no client sends it), ``expire`` those of an open game nobody joined; ``bots``
the seats that became bot seats.
"""

from __future__ import annotations

import typing
from typing import Any

import msgspec

from domain.core import Game, HistoryMismatch, Result, Secret
from domain.table import rules, state, view
from domain.table.messages import (
    COMMANDS,
    EVENTS,
    AcceptDraw,
    Concede,
    Conceded,
    DeclineDraw,
    DrawAgreed,
    DrawDeclined,
    DrawOffered,
    Expired,
    OfferDraw,
    TimedOut,
    Undo,
    Undone,
)
from domain.table.rules import bots, can_undo, expire, time_out
from domain.table.state import Hooks, TableState
from domain.table.view import TableView, table_view


def _union(own: Any, extra: tuple[type, ...]) -> Any:
    return typing.Union[(*(typing.get_args(own) or (own,)), *extra)]


class Table:
    """A game played at the table: the ``Game`` protocol over ``TableState``."""

    def __init__(self, game: Game, hooks: Hooks) -> None:
        self.inner = game
        self.hooks = hooks
        self.name = game.name
        self.min_seats = game.min_seats
        self.max_seats = game.max_seats
        self.Options = game.Options
        self.Command = _union(game.Command, COMMANDS)
        self.Event = _union(game.Event, EVENTS)

    def options(self, raw: dict[str, Any] | None) -> msgspec.Struct:
        return self.inner.options(raw)

    def start(self, seats: int, seed: Secret, options: msgspec.Struct) -> list[Any]:
        return self.inner.start(seats, seed, options)

    def evolve(self, table: TableState | None, event: Any) -> TableState:
        if isinstance(event, EVENTS):
            if table is None:
                raise HistoryMismatch("the first event must start the game")
            return state.fold_table_event(table, event)
        return state.fold_game_event(self.inner, self.hooks, table, event)

    def decide(self, table: TableState, seat: int, command: Any) -> list[Any]:
        return rules.decide(self.inner, table, seat, command)

    def legal(self, table: TableState, seat: int) -> list[Any]:
        return rules.legal(self.inner, table, seat)

    def to_act(self, table: TableState) -> set[int]:
        return rules.to_act(self.inner, table)

    def view(self, table: TableState, seat: int | None) -> msgspec.Struct:
        return view.view(self.inner, self.hooks, table, seat, self.result(table))

    def redact(self, event: Any, seat: int | None) -> Any:
        return view.redact(self.inner, event, seat)

    def result(self, table: TableState) -> Result | None:
        return rules.result(self.inner, self.hooks, table)

    def __repr__(self) -> str:
        return f"<table {self.name}>"


def table(game: Any) -> Table:
    """``game`` (a game package, with its ``table_hooks``) played at the table."""
    return Table(game, game.table_hooks)


__all__ = [
    "AcceptDraw",
    "Concede",
    "Conceded",
    "DeclineDraw",
    "DrawAgreed",
    "DrawDeclined",
    "DrawOffered",
    "Expired",
    "Hooks",
    "OfferDraw",
    "Table",
    "TableState",
    "TableView",
    "TimedOut",
    "Undo",
    "Undone",
    "bots",
    "can_undo",
    "expire",
    "table",
    "table_view",
    "time_out",
]
