"""The table's rules: which table commands a seat may send, the events of a time-out, and the
result of a game the table ended (docs/table.md)."""

from __future__ import annotations

from typing import Any, assert_never

from domain.core import C, E, Game, Result, RuleViolation, S, Secret
from domain.table.messages import (
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
from domain.table.state import TWO, Hooks, TableState


def bots(state: TableState[S]) -> frozenset[int]:
    """Seats that became bot seats (a concession or a time-out with 3-4 players, a takeover)."""
    return state.bots


def can_undo(state: TableState[S], seat: int) -> bool:
    point = state.point
    return (
        state.ended is None
        and not state.finished
        and seat not in state.bots
        and point is not None
        and point.seat == seat
        and point.since > 0
    )


def can_offer_draw(state: TableState[S], seat: int) -> bool:
    return (
        state.seats == TWO
        and state.ended is None
        and not state.finished
        and seat not in state.bots
        and state.draw_offer is None
        and seat not in state.declined
    )


def _ending_secret(state: TableState[S], ends: bool) -> Secret | None:
    return state.secret if ends else None


def time_out(state: TableState[S], seat: int, forfeit: bool) -> list[TableEvent]:
    """The events of ``seat``'s time-out: with ``forfeit`` a 2-player game ends as that seat's
    loss, with more players the seat is played by a bot and unrated; without (the takeover
    policy), the seat is played by a bot and rated as usual. Nothing for a bot seat."""
    _playing(state)
    _check_seat(state, seat)
    if seat in state.bots:
        return []
    ends = forfeit and state.seats == TWO
    return [TimedOut(seat=seat, forfeit=forfeit, secret=_ending_secret(state, ends))]


def expire(state: TableState[S], days: float) -> list[TableEvent]:
    """The events of the game's expiry: nobody joined it within ``days``."""
    _playing(state)
    return [Expired(days=days, secret=state.secret)]


def _playing(state: TableState[S]) -> None:
    if state.ended is not None or state.finished:
        raise RuleViolation("game_over", "The game is over")


def _check_seat(state: TableState[S], seat: int) -> None:
    if not 0 <= seat < state.seats:
        last = state.seats - 1
        raise RuleViolation(
            "bad_seat", f"Seat {seat} is not a seat of this game (0 to {last})", seat=str(seat)
        )


def _two_players(state: TableState[S]) -> None:
    if state.seats != TWO:
        raise RuleViolation(
            "draw_two_players_only", "Draws are for 2-player games only.", seats=state.seats
        )


def _offer_draw(state: TableState[S], seat: int) -> list[TableEvent]:
    _two_players(state)
    if state.draw_offer is not None:
        raise RuleViolation(
            "draw_already_offered",
            f"Seat {state.draw_offer} has already offered a draw.",
            seat=state.draw_offer,
        )
    if seat in state.declined:
        raise RuleViolation(
            "draw_offer_declined",
            "Your draw offer was declined: offer again after the next move.",
            seat=seat,
        )
    return [DrawOffered(seat=seat)]


def _answer(state: TableState[S], seat: int) -> None:
    _two_players(state)
    if state.draw_offer is None or state.draw_offer == seat:
        raise RuleViolation(
            "no_draw_offer", "There is no draw offer of the other player to answer."
        )


def _undo(state: TableState[S], seat: int) -> list[TableEvent]:
    if can_undo(state, seat):
        return [Undone(seat=seat)]
    point = state.point
    if point is None or point.seat != seat:
        raise RuleViolation(
            "undo_not_allowed",
            "You can undo only your own moves while you alone are to act.",
            case="not_your_turn",
        )
    if point.cause == "reveal":
        raise RuleViolation(
            "undo_not_allowed",
            "Hidden information was revealed or cards were shuffled: nothing before that can"
            " be undone.",
            case="revealed",
        )
    raise RuleViolation("undo_not_allowed", "There is nothing to undo.", case="nothing")


def decide(
    game: Game[S, C, E, Any], state: TableState[S], seat: int, command: C | TableCommand
) -> list[E | TableEvent]:
    """A table command, or the game's own (decided by the game)."""
    _playing(state)
    if not isinstance(command, TableCommand):
        return [*game.decide(state.game, seat, command)]
    _check_seat(state, seat)
    if seat in state.bots:
        raise RuleViolation("seat_is_bot", f"Seat {seat} is played by a bot now.", seat=seat)
    match command:
        case Concede():
            return [Conceded(seat=seat, secret=_ending_secret(state, state.seats == TWO))]
        case OfferDraw():
            return [*_offer_draw(state, seat)]
        case AcceptDraw():
            _answer(state, seat)
            return [DrawAgreed(secret=state.secret)]
        case DeclineDraw():
            _answer(state, seat)
            return [DrawDeclined(seat=seat)]
        case Undo():
            return [*_undo(state, seat)]
        case _:
            assert_never(command)


def to_act(game: Game[S, Any, Any, Any], state: TableState[S]) -> set[int]:
    return set() if state.ended is not None else game.to_act(state.game)


def legal(game: Game[S, C, Any, Any], state: TableState[S], seat: int) -> list[C]:
    """The game's own legal commands: bots never concede, offer draws or undo."""
    return [] if state.ended is not None else game.legal(state.game, seat)


def result(
    game: Game[S, Any, Any, Any], hooks: Hooks[S, Any], state: TableState[S]
) -> Result | None:
    """The game's own result, or, once the table ended it, the standing now (each seat's score
    as if the game were scored at this point: docs/table.md) with the winners the ending gives.
    ``details["unrated"]``: seats whose result does not count for ratings; an expiry's
    ``details["days"]``: nobody joined within that many days."""
    unrated = sorted(state.unrated)
    ending = state.ended
    if ending is None:
        own = game.result(state.game)
        if own is None:
            return None
        return Result(own.scores, own.winners, own.reason, {**own.details, "unrated": unrated})
    everyone = list(range(state.seats))
    # An expired game was never played out: nobody won it.
    winners = [] if ending.reason == "expired" else [s for s in everyone if s != ending.loser]
    return Result(
        scores=hooks.standing(state.game),
        winners=winners,
        reason=ending.reason,
        details={
            "unrated": unrated,
            "loser": ending.loser,
            **({"days": ending.days} if ending.days is not None else {}),
        },
    )
