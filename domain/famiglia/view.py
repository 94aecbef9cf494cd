"""What a seat may see (FAMIGLIA.md, "What each player sees"), and event redaction.

Public: the Street (with this turn's lowered ranks), both areas, the discard pile, deck size, turn,
phase, deck pass and the actions still open. A seat also sees its own hand; the other hand only
as a count. Nobody sees the deck order or the seed before the end.
"""

from __future__ import annotations

import msgspec

from domain.core import Result, RuleViolation, without_secret
from domain.famiglia.messages import Event, GameStarted, Options
from domain.famiglia.rules import SEATS, refresh_block, result, to_act
from domain.famiglia.state import (
    ACCOUNTANT,
    BRUTE,
    RECRUIT,
    REFRESH,
    TURN_OVER,
    State,
    street_ranks,
)


class StreetCard(msgspec.Struct, frozen=True):
    card: str
    rank: int  # this turn's rank: lower than printed if a Brute lowered it


class View(msgspec.Struct, frozen=True):
    seat: int | None  # None: a spectator
    options: Options
    start_player: int
    turn: int
    to_move: int | None  # None between two turns and once the game is over
    # refresh, accountant, swap, brute, recruit; turn_over between the end of a turn (its
    # recruit or pass) and the start of the next, while the Street is refilled; over
    phase: str
    actions: list[str]  # command types still open to the player to move this turn
    deck_pass: int  # 1, or 2 after the reshuffle
    deck_size: int
    final_turns: int | None  # turns after the current one, once the deck ran out twice
    passes_in_row: int
    street: list[StreetCard]
    discard: list[str]
    areas: list[list[str]]
    hand_sizes: list[int]
    hand: list[str] | None  # the viewer's own hand (None for a spectator)
    hands: list[list[str]] | None  # both hands, once the game is over (None before)
    accountant: str | None  # the Accountant whose exchanges are open, if any
    swaps_left: int
    result: Result | None


def _phase(state: State) -> tuple[str, list[str]]:
    if state.ended is not None:
        return "over", []
    if state.stage == TURN_OVER:
        return "turn_over", []
    if state.accountant is not None:
        return "swap", ["swap", "end_swaps"]
    actions = []
    if state.stage <= REFRESH and refresh_block(state) is None:
        actions.append("refresh")
    if state.stage <= ACCOUNTANT:
        actions.append("play_accountant")
    if state.stage <= BRUTE:
        actions.append("play_brute")
    actions += ["recruit", "pass"]
    names = {REFRESH: "refresh", ACCOUNTANT: "accountant", BRUTE: "brute", RECRUIT: "recruit"}
    return names[state.stage], actions


def _hands(state: State) -> list[list[str]]:
    return [list(hand) for hand in state.hands]


def ended_view(state: State, seat: int | None) -> View:
    """The view of a game the table ended (a concession, a time-out, a draw): over, and both
    hands shown as at the end by the rules (FAMIGLIA.md: only the deck order was hidden)."""
    return msgspec.structs.replace(
        view(state, seat),
        phase="over",
        to_move=None,
        actions=[],
        accountant=None,
        swaps_left=0,
        hands=_hands(state),
    )


def view(state: State, seat: int | None) -> View:
    if seat is not None and seat not in range(SEATS):
        raise RuleViolation("bad_seat", f"Famiglia has seats 0 and 1, not {seat!r}", seat=str(seat))
    phase, actions = _phase(state)
    moving = to_act(state)
    return View(
        seat=seat,
        options=state.options,
        start_player=state.start_player,
        turn=state.turn,
        to_move=min(moving) if moving else None,
        phase=phase,
        actions=actions,
        deck_pass=state.deck_pass,
        deck_size=len(state.deck),
        final_turns=state.final_turns,
        passes_in_row=state.passes_in_row,
        street=[StreetCard(card=c, rank=k) for c, k in street_ranks(state)],
        discard=list(state.discard),
        areas=[list(a) for a in state.areas],
        hand_sizes=[len(h) for h in state.hands],
        hand=None if seat is None else list(state.hands[seat]),
        hands=None if state.ended is None else _hands(state),
        accountant=state.accountant,
        swaps_left=state.swaps_left,
        result=result(state),
    )


def redact(event: Event, seat: int | None) -> Event:
    """Only game_started holds a secret while the game runs; every card move is public."""
    return without_secret(event, GameStarted)
