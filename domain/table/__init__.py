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
from typing import Any, Generic

import msgspec

from domain.core import C, E, GamePackage, HistoryMismatch, OptionsT, Result, S, Secret
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
    TableCommand,
    TableEvent,
    TimedOut,
    Undo,
    Undone,
)
from domain.table.rules import bots, can_undo, expire, time_out
from domain.table.state import Hooks, TableState
from domain.table.view import TableView, table_view


def _union(own: Any, extra: tuple[type, ...]) -> Any:
    """The union of a game's Command (or Event) union and the table's, as a value (``Any``:
    see ``Game.Command``)."""
    return typing.Union[(*(typing.get_args(own) or (own,)), *extra)]


class Table(Generic[S, C, E, OptionsT]):
    """A game played at the table: the ``Game`` protocol over ``TableState``, a
    ``Game[TableState[S], C | TableCommand, E | TableEvent, OptionsT]``."""

    def __init__(self, game: GamePackage[S, C, E, OptionsT], hooks: Hooks[S, E]) -> None:
        self.inner = game
        self.hooks = hooks
        self.name = game.name
        self.min_seats = game.min_seats
        self.max_seats = game.max_seats
        self.Options = game.Options
        self.Command = _union(game.Command, COMMANDS)
        self.Event = _union(game.Event, EVENTS)

    def options(self, raw: dict[str, Any] | None) -> OptionsT:
        return self.inner.options(raw)

    def start(self, seats: int, seed: Secret, options: OptionsT) -> list[E | TableEvent]:
        return [*self.inner.start(seats, seed, options)]

    def evolve(self, table: TableState[S] | None, event: E | TableEvent) -> TableState[S]:
        if isinstance(event, TableEvent):
            if table is None:
                raise HistoryMismatch("the first event must start the game")
            return state.fold_table_event(table, event)
        return state.fold_game_event(self.inner, self.hooks, table, event)

    def decide(
        self, table: TableState[S], seat: int, command: C | TableCommand
    ) -> list[E | TableEvent]:
        return rules.decide(self.inner, table, seat, command)

    def legal(self, table: TableState[S], seat: int) -> list[C | TableCommand]:
        return [*rules.legal(self.inner, table, seat)]

    def to_act(self, table: TableState[S]) -> set[int]:
        return rules.to_act(self.inner, table)

    def view(self, table: TableState[S], seat: int | None) -> msgspec.Struct:
        return view.view(self.inner, self.hooks, table, seat, self.result(table))

    def redact(self, event: E | TableEvent, seat: int | None) -> E | TableEvent:
        return view.redact(self.inner, event, seat)

    def result(self, table: TableState[S]) -> Result | None:
        return rules.result(self.inner, self.hooks, table)

    def __repr__(self) -> str:
        return f"<table {self.name}>"


def table(game: GamePackage[S, C, E, OptionsT]) -> Table[S, C, E, OptionsT]:
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
