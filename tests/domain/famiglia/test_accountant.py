"""FAMIGLIA.md action 2, "Play an Accountant (blue)"."""

from __future__ import annotations

from domain.famiglia import game
from domain.famiglia.messages import (
    AccountantPlayed,
    CardsSwapped,
    EndSwaps,
    Pass,
    PlayAccountant,
    PlayBrute,
    Recruit,
    Swap,
    SwapsEnded,
)

from .helpers import act, c, make_state, refused

STREET = "red-3 blue-2"


def test_accountant_exchanges_up_to_its_rank_then_stops():
    """Accountant of rank r: up to r one-for-one exchanges between hand and area."""
    state = make_state(
        hands=("blue-2 red-1 red-2", ""), areas=("green-3 yellow-1 red-4", ""), street=STREET
    )
    events, state = act(state, 0, PlayAccountant(card="blue-2"))
    assert events == [AccountantPlayed(seat=0, card="blue-2")]
    assert state.areas[0] == c("red-4 blue-2 yellow-1 green-3")
    assert game.view(state, 0).phase == "swap"
    _, state = act(state, 0, Swap(hand_card="red-1", area_card="green-3"))
    events, state = act(state, 0, Swap(hand_card="red-2", area_card="red-4"))
    assert events == [CardsSwapped(seat=0, hand_card="red-2", area_card="red-4")]
    assert state.hands[0] == c("red-4 green-3")
    assert state.areas[0] == c("red-1 red-2 blue-2 yellow-1")
    # two exchanges used: the Accountant is done, the Brute is next
    assert state.accountant is None
    refused(state, 0, Swap(hand_card="red-4", area_card="yellow-1"), "wrong_phase")
    assert game.view(state, 0).phase == "brute"


def test_accountant_fewer_exchanges_then_end_swaps():
    """Fewer exchanges than the rank are allowed (FAQ: partial use)."""
    state = make_state(hands=("blue-3 red-1", ""), areas=("green-3", ""), street=STREET)
    _, state = act(state, 0, PlayAccountant(card="blue-3"))
    _, state = act(state, 0, Swap(hand_card="red-1", area_card="green-3"))
    refused(state, 0, Pass(), "wrong_phase")
    events, state = act(state, 0, EndSwaps())
    assert events == [SwapsEnded(seat=0)]
    assert state.hands[0] == c("green-3") and state.areas[0] == c("red-1 blue-3")
    assert Pass() in game.legal(state, 0)


def test_accountant_just_played_cannot_be_taken_back():
    """The Accountant just played cannot be exchanged back; an earlier identical one can."""
    state = make_state(hands=("blue-2 red-1", ""), areas=("", ""), street=STREET)
    _, state = act(state, 0, PlayAccountant(card="blue-2"))
    refused(state, 0, Swap(hand_card="red-1", area_card="blue-2"), "accountant_locked")
    assert game.legal(state, 0) == [EndSwaps()]

    state = make_state(hands=("blue-2 red-1", ""), areas=("blue-2", ""), street=STREET)
    _, state = act(state, 0, PlayAccountant(card="blue-2"))
    _, state = act(state, 0, Swap(hand_card="red-1", area_card="blue-2"))
    assert state.hands[0] == c("blue-2") and state.areas[0] == c("red-1 blue-2")


def test_accountant_at_most_once_per_turn_and_before_the_brute():
    """Action 2 at most once a turn, and not after action 3."""
    state = make_state(hands=("blue-1 blue-2 yellow-1", ""), street=STREET)
    _, state = act(state, 0, PlayAccountant(card="blue-1"))
    _, state = act(state, 0, EndSwaps())
    refused(state, 0, PlayAccountant(card="blue-2"), "action_out_of_order")

    state = make_state(hands=("blue-1 yellow-1", ""), street=STREET)
    _, state = act(state, 0, PlayBrute(card="yellow-1", target="red-3", amount=1))
    refused(state, 0, PlayAccountant(card="blue-1"), "action_out_of_order")


def test_accountant_rank_zero_has_no_power():
    """Rank-0 blue cards have no power."""
    state = make_state(hands=("blue-0 red-1", ""), street=STREET)
    refused(state, 0, PlayAccountant(card="blue-0"), "no_power")
    refused(state, 0, PlayAccountant(card="red-1"), "wrong_family")


def test_accountant_exchange_of_identical_cards_is_refused():
    """Reading 7: exchanging a card for an identical one changes nothing."""
    state = make_state(hands=("blue-1 red-1", ""), areas=("red-1", ""), street=STREET)
    _, state = act(state, 0, PlayAccountant(card="blue-1"))
    refused(state, 0, Swap(hand_card="red-1", area_card="red-1"), "same_card")
    refused(state, 0, Swap(hand_card="red-2", area_card="red-1"), "card_not_in_hand")
    refused(state, 0, Swap(hand_card="red-1", area_card="red-4"), "not_in_area")
    assert Recruit(card="red-3") not in game.legal(state, 0)
