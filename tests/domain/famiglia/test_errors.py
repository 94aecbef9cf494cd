"""Bad input to decide: a specific code, a clear message, nothing changed."""

from __future__ import annotations

import pytest

from domain.core import RuleViolation
from domain.famiglia import game
from domain.famiglia.messages import (
    EndSwaps,
    Pass,
    PlayAccountant,
    PlayBrute,
    Recruit,
    Refresh,
    Swap,
    TurnStarted,
)

from .helpers import act, make_state, refused

STATE = make_state(
    hands=("blue-1 yellow-2 red-2 red-2", "red-1"), street="red-3 blue-2", deck="green-1 green-2"
)


@pytest.mark.parametrize(
    ("seat", "command", "code"),
    [
        (0, Refresh(card="purple-1"), "unknown_card"),
        (0, Recruit(card="red-3", to_area="red-9", back_to_hand="red-2"), "unknown_card"),
        (0, PlayAccountant(card="blue-3"), "card_not_in_hand"),
        (0, PlayBrute(card="yellow-1", target="red-3", amount=1), "card_not_in_hand"),
        (1, Pass(), "not_your_turn"),
        (2, Pass(), "bad_seat"),
        (0, Swap(hand_card="red-2", area_card="blue-1"), "wrong_phase"),
        (0, EndSwaps(), "wrong_phase"),
        (0, Refresh(card="red-4"), "not_on_street"),
        (0, Recruit(card="blue-2", to_area="red-2", back_to_hand="red-2"), "bad_pair"),
        (0, TurnStarted(seat=0, turn=3), "unknown_command"),
    ],
)
def test_bad_commands_are_refused_with_a_code(seat, command, code):
    refused(STATE, seat, command, code)


def test_action_out_of_order_is_refused():
    _, state = act(STATE, 0, PlayBrute(card="yellow-2", target="red-3", amount=1))
    refused(state, 0, Refresh(card="red-3"), "action_out_of_order")
    refused(state, 0, PlayAccountant(card="blue-1"), "action_out_of_order")


def test_commands_after_the_game_are_refused():
    state = make_state(street="red-0", final_turns=0)
    _, state = act(state, 0, Pass())
    refused(state, 1, Pass(), "game_over")
    refused(state, 0, Recruit(card="red-0"), "game_over")


def test_messages_do_not_reveal_hidden_cards():
    """A refusal tells the player nothing about the deck."""
    with pytest.raises(RuleViolation) as info:
        game.decide(STATE, 0, Refresh(card="green-1"))  # on top of the deck, not on the Street
    assert info.value.code == "not_on_street"
    assert "deck" not in info.value.message
