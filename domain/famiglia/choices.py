"""Famiglia's ``legal``: the commands a seat may send now (bots and searches choose among them;
rules.py decides them), and the two conditions that both it and the rules check."""

from __future__ import annotations

from domain.core import RuleViolation
from domain.famiglia import cards
from domain.famiglia.cards import BLUE, FAMILY, RANK, YELLOW
from domain.famiglia.messages import (
    Command,
    EndSwaps,
    Pass,
    PlayAccountant,
    PlayBrute,
    Refresh,
    Swap,
)
from domain.famiglia.recruit import recruits
from domain.famiglia.state import (
    ACCOUNTANT,
    BRUTE,
    REFRESH,
    TURN_OVER,
    State,
    street_ranks,
    swapping,
)

_RANK_ZERO = frozenset(cards.STARTING_HAND)  # one rank-0 card of each family


def refresh_block(state: State) -> RuleViolation | None:
    """Why action 1 is not possible now (None if it is), apart from the stage."""
    if not state.deck:
        return RuleViolation("deck_empty", "The deck has run out: the Street cannot be refreshed")
    if not _RANK_ZERO.isdisjoint(state.street):
        return RuleViolation(
            "street_has_rank_zero", "The Street holds a rank-0 card: it cannot be refreshed"
        )
    if state.deck_pass == 2 and state.deck_refreshed:
        return RuleViolation(
            "refresh_used", "After the reshuffle the Street can be refreshed only once a turn"
        )
    return None


def swappable_area(state: State, seat: int) -> tuple[str, ...]:
    """Area cards an exchange may take back: all but the Accountant just played."""
    area = list(state.areas[seat])
    if state.accountant is not None:
        area.remove(state.accountant)
    return tuple(area)


def legal(state: State, seat: int) -> list[Command]:
    if state.ended is not None or state.stage == TURN_OVER or seat != state.current:
        return []  # the seat is not in to_act(state)
    hand = state.hands[seat]
    if swapping(state):
        out: list[Command] = [_END_SWAPS]
        area = _distinct(swappable_area(state, seat))
        for h in _distinct(hand):
            out.extend(_SWAPS[h, a] for a in area if a != h)
        return out
    out = []
    stage = state.stage
    if stage <= BRUTE:  # also ACCOUNTANT and REFRESH, which come before it
        street = _distinct(state.street)
        if stage <= REFRESH and refresh_block(state) is None:
            out.extend(_REFRESHES[c] for c in street)
        powers = [c for c in _distinct(hand) if c in _POWERS]
        if stage <= ACCOUNTANT:
            out.extend(_ACCOUNTANTS[c] for c in powers if FAMILY[c] == BLUE)
        targets = [t for t in street if RANK[t] > 0]
        for c in powers:
            if FAMILY[c] == YELLOW:
                out.extend(
                    _BRUTES[c, t, n] for t in targets for n in range(1, min(RANK[c], RANK[t]) + 1)
                )
    out.extend(recruits(street_ranks(state), hand, state.options))
    out.append(_PASS)
    return out


def _distinct(pile: tuple[str, ...]) -> list[str]:
    return sorted(set(pile), key=cards.ORDER.__getitem__)


# Cards with a power to play (actions 2 and 3): Accountants and Brutes above rank 0.
_POWERS = frozenset(c for c in cards.KINDS if FAMILY[c] in (BLUE, YELLOW) and RANK[c] > 0)
# The commands legal() lists, built once: they are frozen, so the lists can share them.
_END_SWAPS, _PASS = EndSwaps(), Pass()
_SWAPS = {(h, a): Swap(hand_card=h, area_card=a) for h in cards.KINDS for a in cards.KINDS}
_REFRESHES = {c: Refresh(card=c) for c in cards.KINDS}
_ACCOUNTANTS = {c: PlayAccountant(card=c) for c in _POWERS if FAMILY[c] == BLUE}
_BRUTES = {
    (c, t, n): PlayBrute(card=c, target=t, amount=n)
    for c in _POWERS
    if FAMILY[c] == YELLOW
    for t in cards.KINDS
    for n in range(1, min(RANK[c], RANK[t]) + 1)
}
