"""Build explicit Famiglia states and apply commands to them, for the scenario tests."""

from __future__ import annotations

from typing import Any

import pytest

from domain.core import RuleViolation, commitment
from domain.famiglia import cards, game
from domain.famiglia.messages import Options, Pass, Recruit
from domain.famiglia.state import State
from domain.play import Policy, secret_for
from domain.rng import Rng

SECRET = secret_for(7)


def c(text: str) -> tuple[str, ...]:
    """Cards from a space-separated list: c("red-1 red-1 green-3")."""
    return tuple(text.split())


def make_state(
    *,
    hands: tuple[str, str] = ("", ""),
    areas: tuple[str, str] = ("", ""),
    street: str = "",
    deck: str = "",
    discard: str = "",
    options: Options | None = None,
    **more: Any,
) -> State:
    """A state in the middle of a turn (stage: refresh) of seat ``current`` (default 0).
    Piles are space-separated card lists; the deck's first card is its top."""
    return State(
        options=options or Options(),
        secret=SECRET,
        commitment=commitment(SECRET),
        start_player=more.pop("start_player", 0),
        deck=c(deck),
        street=c(street),
        discard=c(discard),
        hands=tuple(cards.sort(c(h)) for h in hands),
        areas=tuple(cards.sort(c(a)) for a in areas),
        turn=more.pop("turn", 1),
        **more,
    )


def act(state: State, seat: int, command: Any) -> tuple[list[Any], State]:
    """Decide and fold: the events and the state after them."""
    events = game.decide(state, seat, command)
    for event in events:
        state = game.evolve(state, event)
    return events, state


def play_all(state: State, moves: list[tuple[int, Any]]) -> State:
    for seat, command in moves:
        _, state = act(state, seat, command)
    return state


def refused(state: State, seat: int, command: Any, code: str) -> RuleViolation:
    """Assert the command is refused with ``code``, is not listed as legal, and changes nothing."""
    before = state
    with pytest.raises(RuleViolation) as info:
        game.decide(state, seat, command)
    assert info.value.code == code, info.value
    assert info.value.message
    assert command not in game.legal(state, seat)
    assert state == before
    return info.value


def types(events: list[Any]) -> list[str]:
    return [type(e).__name__ for e in events]


def eager_policy(seed: bytes) -> Policy:
    """Random legal play that mostly avoids passing, so games reach the reshuffle and the
    deck's end instead of stopping early on two passes: half the time a recruit if one is legal,
    else any non-pass command 19 times in 20."""
    rng = Rng(seed, b"eager-policy")

    def choose(seat: int, view: Any, legal: list[Any]) -> Any:
        recruits = [x for x in legal if isinstance(x, Recruit)]
        if recruits and rng.below(2):
            return recruits[rng.below(len(recruits))]
        active = [x for x in legal if not isinstance(x, Pass)]
        if active and rng.below(20):
            return active[rng.below(len(active))]
        return legal[rng.below(len(legal))]

    return choose
