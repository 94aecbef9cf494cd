"""What a seat sees of the table (all of it is public), and event redaction: the table's
events hide nothing while the game runs (the secret they carry is set only when they end it);
the game's own events are redacted by the game."""

from __future__ import annotations

from typing import Any

import msgspec

from domain.core import E, Game, Hooks, Result, S
from domain.table.messages import TableEvent
from domain.table.rules import can_offer_draw, can_undo
from domain.table.state import TWO, TableState


class TableView(msgspec.Struct, frozen=True):
    bots: list[int]
    unrated: list[int]
    draw_offer: int | None  # the seat whose draw offer stands
    can_undo: bool  # for the viewing seat (False for a spectator)
    conceded: list[int]
    timed_out: list[int]
    draws: bool  # draws can be offered at this table (2 players)
    can_offer_draw: bool  # for the viewing seat: no offer stands, its last one was not declined


def table_view(state: TableState[S], seat: int | None) -> TableView:
    return TableView(
        bots=sorted(state.bots),
        unrated=sorted(state.unrated),
        draw_offer=state.draw_offer,
        can_undo=seat is not None and can_undo(state, seat),
        conceded=sorted(state.conceded),
        timed_out=sorted(state.timed_out),
        draws=state.seats == TWO,
        can_offer_draw=seat is not None and can_offer_draw(state, seat),
    )


def view(
    game: Game[S, Any, Any, Any],
    hooks: Hooks[S, Any],
    state: TableState[S],
    seat: int | None,
    result: Result | None,
) -> msgspec.Struct:
    """The game's own view, unchanged in shape; once the game is over its ``result`` is the
    table's (``unrated`` in its details; after a concession, a forfeit or a draw the table's
    ending), and a game the table ended is over as at the rules' end, so pages show every end
    alike."""
    own = game.view(state.game, seat) if state.ended is None else hooks.ended_view(state.game, seat)
    if result is not None and "result" in own.__struct_fields__:
        return msgspec.structs.replace(own, result=result)
    return own


def redact(game: Game[Any, Any, E, Any], event: E | TableEvent, seat: int | None) -> E | TableEvent:
    return event if isinstance(event, TableEvent) else game.redact(event, seat)
