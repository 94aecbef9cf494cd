"""The greedy Famiglia bot in explicit situations (FAMIGLIA.md), from real views and legal()."""

from __future__ import annotations

from typing import Any

from domain.bots import choose
from domain.famiglia import game
from domain.famiglia.messages import PlayAccountant, PlayBrute, Recruit, Swap
from domain.famiglia.state import State
from tests.domain.famiglia.helpers import act, make_state


def greedy(state: State, seat: int = 0) -> Any:
    command = choose("famiglia", "greedy", game.view(state, seat), game.legal(state, seat), b"t")
    assert command in game.legal(state, seat)
    return command


def test_recruits_the_highest_value_card_within_reach() -> None:
    state = make_state(
        hands=("red-2 red-2 blue-0 blue-0 yellow-0 green-0", "red-0"),
        street="red-3 blue-1 yellow-2 green-2 red-1 blue-2",
        deck="green-1 green-1 green-1",
    )
    assert greedy(state) == Recruit(card="red-3", to_area="red-2", back_to_hand="red-2")


def test_takes_a_free_card_rather_than_pass() -> None:
    state = make_state(hands=("blue-0 yellow-0", "red-0"), street="green-0 red-4", deck="green-1")
    assert greedy(state) == Recruit(card="green-0")


def test_keeps_the_mercenary_in_hand() -> None:
    state = make_state(
        hands=("red-1 green-3 blue-0", "red-0"), street="red-2 blue-4", deck="green-1"
    )
    assert greedy(state) == Recruit(card="red-2", to_area="red-1", back_to_hand="green-3")


def test_plays_a_brute_when_it_opens_a_better_recruit() -> None:
    state = make_state(
        hands=("yellow-2 red-2 green-4 blue-0", "red-0"),
        street="red-4 blue-1 yellow-3 green-3",
        deck="green-1 green-1",
    )
    brute = greedy(state)
    assert brute == PlayBrute(card="yellow-2", target="red-4", amount=1)
    _, state = act(state, 0, brute)
    assert greedy(state) == Recruit(card="red-4", to_area="red-2", back_to_hand="green-4")


def test_plays_an_accountant_to_fetch_the_missing_card() -> None:
    state = make_state(
        hands=("blue-1 red-2 green-0", "red-0"),
        areas=("red-2", ""),
        street="red-3 yellow-4 blue-4 yellow-3",
        deck="green-1 green-1",
    )
    accountant = greedy(state)
    assert accountant == PlayAccountant(card="blue-1")
    _, state = act(state, 0, accountant)
    swap = greedy(state)
    assert isinstance(swap, Swap) and swap.area_card == "red-2"
    _, state = act(state, 0, swap)
    assert greedy(state) == Recruit(card="red-3", to_area="red-2", back_to_hand="red-2")


def test_a_useless_brute_is_not_played() -> None:
    state = make_state(
        hands=("yellow-1 blue-0 blue-0", "red-0"),
        street="blue-1 green-4 red-4",
        deck="green-1",
    )
    assert greedy(state) == Recruit(card="blue-1", to_area="blue-0", back_to_hand="blue-0")


def test_a_brute_for_a_green_standing_in_for_green_is_not_played() -> None:
    """By default a Mercenary does not stand in for green: lowering green-4 to 3 would not let
    green-2 + green-4 take it, so the Brute gains nothing; with mercenary_for_green it does."""
    situation = {
        "hands": ("yellow-1 green-2 green-4", "red-0"),
        "street": "green-4 blue-3 red-0",
        "deck": "green-1",
    }
    assert greedy(make_state(**situation)) == Recruit(card="red-0")
    published = make_state(**situation, options=game.options({"preset": "published"}))
    assert greedy(published) == PlayBrute(card="yellow-1", target="green-4", amount=1)
