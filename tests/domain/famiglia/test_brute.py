"""FAMIGLIA.md action 3, "Play a Brute (yellow)"."""

from __future__ import annotations

from domain.famiglia import game
from domain.famiglia.messages import BrutePlayed, Pass, PlayBrute, Recruit
from domain.famiglia.view import StreetCard

from .helpers import act, c, make_state, refused

STREET = "red-3 blue-2"
DECK = "green-1 green-2 green-3"


def test_brute_lowers_a_street_card_for_this_turn_only():
    """Brute of rank r: lower one Street card by 1..r for this turn only."""
    state = make_state(hands=("yellow-2", ""), street=STREET, deck=DECK)
    events, state = act(state, 0, PlayBrute(card="yellow-2", target="red-3", amount=2))
    assert events == [BrutePlayed(seat=0, card="yellow-2", target="red-3", amount=2)]
    assert state.areas[0] == c("yellow-2")
    assert game.view(state, 1).street == [StreetCard("red-3", 1), StreetCard("blue-2", 2)]
    _, state = act(state, 0, Pass())
    assert game.view(state, 1).street == [StreetCard("red-3", 3), StreetCard("blue-2", 2)]


def test_brute_partial_use_and_limits():
    """Lower by 1..r (partial use allowed), never below 0; rank-0 Brutes have no power."""
    state = make_state(hands=("yellow-3 yellow-0", ""), street="red-1 blue-2 green-0", deck=DECK)
    assert {(b.target, b.amount) for b in game.legal(state, 0) if isinstance(b, PlayBrute)} == {
        ("red-1", 1),
        ("blue-2", 1),
        ("blue-2", 2),
    }
    refused(state, 0, PlayBrute(card="yellow-3", target="red-1", amount=2), "bad_amount")
    refused(state, 0, PlayBrute(card="yellow-3", target="blue-2", amount=0), "bad_amount")
    refused(state, 0, PlayBrute(card="yellow-3", target="blue-2", amount=4), "bad_amount")
    refused(state, 0, PlayBrute(card="yellow-0", target="blue-2", amount=1), "no_power")
    refused(state, 0, PlayBrute(card="yellow-3", target="red-4", amount=1), "not_on_street")


def test_brute_at_most_once_per_turn():
    """Action 3 at most once a turn."""
    state = make_state(hands=("yellow-1 yellow-2", ""), street=STREET, deck=DECK)
    _, state = act(state, 0, PlayBrute(card="yellow-1", target="red-3", amount=1))
    refused(state, 0, PlayBrute(card="yellow-2", target="blue-2", amount=1), "action_out_of_order")


def test_brute_lowered_card_is_recruited_at_its_lowered_rank():
    """A lowered card is recruited at its new rank; an identical copy keeps its printed rank."""
    state = make_state(
        hands=("yellow-2 red-0 red-0 red-2 red-2", ""), street="red-3 red-3 blue-1", deck=DECK
    )
    _, lowered = act(state, 0, PlayBrute(card="yellow-2", target="red-3", amount=2))
    recruits = [r for r in game.legal(lowered, 0) if isinstance(r, Recruit)]
    printed = Recruit(card="red-3", to_area="red-2", back_to_hand="red-2")
    cheap = Recruit(card="red-3", to_area="red-0", back_to_hand="red-0")
    assert printed in recruits and cheap in recruits
    events, after = act(lowered, 0, cheap)
    assert events[0].rank == 1 and after.street.count("red-3") == 1
    events, after = act(lowered, 0, printed)
    assert events[0].rank == 3
    assert game.view(after, 1).turn == 2  # the turn is over and the lowering with it
    assert after.lowered is None


def test_brute_lowered_to_zero_is_free():
    """A card lowered to rank 0 is taken for free."""
    state = make_state(hands=("yellow-3 red-2 red-2", ""), street="red-3 blue-1", deck=DECK)
    _, lowered = act(state, 0, PlayBrute(card="yellow-3", target="red-3", amount=3))
    refused(lowered, 0, Recruit(card="red-3", to_area="red-2", back_to_hand="red-2"), "bad_pair")
    events, after = act(lowered, 0, Recruit(card="red-3"))
    assert events[0].rank == 0 and "red-3" in after.hands[0]


def test_brute_lowering_ends_with_the_turn_also_when_the_game_ends():
    """FAMIGLIA.md "End and scoring": a Brute's lowering ends with the turn, also when the game
    ends in that turn: the final position shows printed ranks."""
    for ending in ({"final_turns": 0}, {"passes_in_row": 1}):
        state = make_state(hands=("yellow-2", ""), street=STREET, deck=DECK, **ending)
        _, state = act(state, 0, PlayBrute(card="yellow-2", target="red-3", amount=2))
        events, state = act(state, 0, Pass())
        assert game.result(state) is not None, events
        for seat in (0, 1, None):
            assert game.view(state, seat).street == [
                StreetCard("red-3", 3),
                StreetCard("blue-2", 2),
            ]
