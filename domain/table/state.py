"""The table's state and its fold: the game's own state inside, and what the table adds (bot
seats, unrated seats, concessions and time-outs, the draw offer, the undo point).

The undo point (docs/table.md, "Undo") comes from the events alone, since ``evolve`` sees no
commands or actors: it is the game state at which one seat became the only seat to act, moved
on to the state after every event that reveals hidden information, shuffles, or is an
automatic step of the rules (no choice of anyone's, so nothing to take back; and restoring a
state before it would skip it). While no seat or several seats owe a decision there is none.
"""

from __future__ import annotations

from typing import Any, Generic, Protocol, assert_never, cast

import msgspec

from domain.core import E, Game, HistoryMismatch, Hooks, S, Secret
from domain.table.messages import (
    Conceded,
    DrawAgreed,
    DrawDeclined,
    DrawOffered,
    Expired,
    TableEvent,
    TimedOut,
    Undone,
)

TWO = 2  # draws, and concessions or forfeits that end the game, are for 2-player games


class _Opening(Protocol):
    """Every game's first event names its seats and holds its secret (its ``GameStarted``:
    ``evolve`` refuses any other first event)."""

    seats: int
    secret: Secret


class UndoPoint(msgspec.Struct, Generic[S], frozen=True):
    seat: int  # the only seat to act since the point
    state: S  # the game's state at the point: what an undo restores
    # what set it: "turn" (the seat became the only one to act), "reveal", "step", "undo"
    cause: str
    since: int = 0  # game events since the point: 0, nothing to undo


class Ending(msgspec.Struct, frozen=True):
    """The table ended the game: ``reason`` conceded, timed_out, draw_agreed or expired;
    ``loser`` is None for a draw or an expiry."""

    reason: str
    loser: int | None
    days: float | None = None  # an expiry's: nobody joined within that many days


class TableState(msgspec.Struct, Generic[S], frozen=True):
    game: S  # the game's own state
    seats: int
    secret: Secret  # from the game's first event: revealed by an event that ends the game
    bots: frozenset[int] = frozenset()  # seats that became bot seats
    unrated: frozenset[int] = frozenset()
    conceded: frozenset[int] = frozenset()
    timed_out: frozenset[int] = frozenset()
    draw_offer: int | None = None  # the seat whose offer stands
    declined: frozenset[int] = frozenset()  # offers declined since the game's last move
    ended: Ending | None = None
    finished: bool = False  # the game ended by its own rules
    point: UndoPoint[S] | None = None


def _next_point(
    game: Game[S, Any, E, Any], hooks: Hooks[S, E], point: UndoPoint[S] | None, state: S, event: E
) -> UndoPoint[S] | None:
    """The undo point after ``event`` brought the game to ``state``."""
    actors = game.to_act(state)
    if len(actors) != 1:
        return None
    (seat,) = actors
    if hooks.reveals(event):
        return UndoPoint(seat, state, "reveal")
    if hooks.automatic(event):
        return UndoPoint(seat, state, "step")
    if point is None or point.seat != seat:
        return UndoPoint(seat, state, "turn")
    return msgspec.structs.replace(point, since=point.since + 1)


def fold_game_event(
    game: Game[S, Any, E, Any], hooks: Hooks[S, E], state: TableState[S] | None, event: E
) -> TableState[S]:
    if state is None:
        opening = cast(_Opening, event)
        inner = game.evolve(None, event)
        return TableState(
            game=inner,
            seats=opening.seats,
            secret=opening.secret,
            point=_next_point(game, hooks, None, inner, event),
        )
    if state.ended is not None:
        raise HistoryMismatch(f"the game is over ({state.ended.reason})")
    inner = game.evolve(state.game, event)
    return msgspec.structs.replace(
        state,
        game=inner,
        declined=frozenset(),
        finished=game.result(inner) is not None,
        point=_next_point(game, hooks, state.point, inner, event),
    )


def _add(seats: frozenset[int], seat: int) -> frozenset[int]:
    return seats | {seat}


def _leaves(state: TableState[S], seat: int, unrated: bool, **changes: object) -> TableState[S]:
    """The seat is played by a bot from now on (3-4 players, or a 2-player takeover)."""
    return msgspec.structs.replace(
        state,
        bots=_add(state.bots, seat),
        unrated=_add(state.unrated, seat) if unrated else state.unrated,
        **changes,
    )


def _seat(state: TableState[S], seat: int) -> None:
    if not 0 <= seat < state.seats:
        raise HistoryMismatch(f"seat {seat} is not a seat of this game")


def fold_table_event(state: TableState[S], event: TableEvent) -> TableState[S]:
    secret = getattr(event, "secret", None)  # on the events that may end the game
    ended = secret is not None
    if state.ended is not None or state.finished:
        raise HistoryMismatch("the game is over")
    if ended and secret != state.secret:
        raise HistoryMismatch("the revealed secret is not the game's secret")
    match event:
        case Conceded() | TimedOut():
            _seat(state, event.seat)
            ends = state.seats == TWO and (isinstance(event, Conceded) or event.forfeit)
            if ends != ended:
                raise HistoryMismatch("an event that ends the game reveals the secret, no other")
            if isinstance(event, Conceded):
                changes: dict[str, object] = {"conceded": _add(state.conceded, event.seat)}
                reason, unrated = "conceded", True
            else:
                changes = {"timed_out": _add(state.timed_out, event.seat)}
                reason, unrated = "timed_out", event.forfeit
            if ends:
                return msgspec.structs.replace(state, ended=Ending(reason, event.seat), **changes)
            return _leaves(state, event.seat, unrated, **changes)
        case DrawOffered():
            _seat(state, event.seat)
            return msgspec.structs.replace(state, draw_offer=event.seat)
        case DrawDeclined():
            if state.draw_offer is None or state.draw_offer == event.seat:
                raise HistoryMismatch("no draw offer of the other seat stands")
            return msgspec.structs.replace(
                state, draw_offer=None, declined=_add(state.declined, state.draw_offer)
            )
        case DrawAgreed():
            if state.draw_offer is None or not ended:
                raise HistoryMismatch("a draw is agreed on a standing offer, revealing the secret")
            return msgspec.structs.replace(
                state, draw_offer=None, ended=Ending("draw_agreed", None)
            )
        case Expired():
            if not ended:
                raise HistoryMismatch("an expiry ends the game, revealing the secret")
            everyone = frozenset(range(state.seats))
            return msgspec.structs.replace(
                state, draw_offer=None, unrated=everyone, ended=Ending("expired", None, event.days)
            )
        case Undone():
            point = state.point
            if point is None or point.seat != event.seat or not point.since:
                raise HistoryMismatch(f"seat {event.seat} has nothing to undo")
            return msgspec.structs.replace(
                state, game=point.state, point=msgspec.structs.replace(point, since=0, cause="undo")
            )
        case _:
            assert_never(event)
