"""FAMIGLIA.md action 1, "Refresh the Street", in both deck passes."""

from __future__ import annotations

from domain.famiglia import game
from domain.famiglia.messages import (
    DeckReshuffled,
    EndSwaps,
    Pass,
    PlayAccountant,
    Refresh,
    StreetRefreshed,
    StreetRevealed,
)
from domain.famiglia.state import reshuffled

from .helpers import SECRET, act, c, make_state, refused

STREET = "red-3 blue-2 yellow-1 green-4 red-1 blue-1"


def test_refresh_first_pass_discards_and_reveals_exactly_its_rank():
    """Action 1, first pass: the card goes to the discard pile, rank-many cards are revealed."""
    state = make_state(street=STREET, deck="red-2 blue-3 green-1 red-4 blue-4")
    events, after = act(state, 0, Refresh(card="red-3"))
    assert events == [
        StreetRefreshed(seat=0, card="red-3", destination="discard"),
        StreetRevealed(cards=c("red-2 blue-3 green-1")),
    ]
    assert after.discard == c("red-3")
    assert after.deck == c("red-4 blue-4")
    assert sorted(after.street) == sorted(
        c("blue-2 yellow-1 green-4 red-1 blue-1 red-2 blue-3 green-1")
    )


def test_refresh_first_pass_may_repeat_while_street_has_no_rank_zero():
    """Action 1, first pass: repeatable as long as the Street holds no rank-0 card."""
    state = make_state(street=STREET, deck="red-2 blue-4 green-0 red-4 blue-4")
    _, state = act(state, 0, Refresh(card="yellow-1"))
    _, state = act(state, 0, Refresh(card="red-1"))  # still no rank 0: again
    assert state.discard == c("yellow-1 red-1")
    _, state = act(state, 0, Refresh(card="blue-1"))  # reveals green-0
    assert "green-0" in state.street
    refused(state, 0, Refresh(card="red-3"), "street_has_rank_zero")


def test_refresh_not_allowed_while_street_holds_rank_zero():
    """Action 1 only while the Street holds no rank-0 card."""
    state = make_state(street="red-0 blue-2", deck="red-2 blue-3")
    refused(state, 0, Refresh(card="blue-2"), "street_has_rank_zero")


def test_refresh_only_before_the_other_actions():
    """Actions go in order: after an Accountant, the Street can no longer be refreshed."""
    state = make_state(hands=("blue-1", ""), street=STREET, deck="red-2 blue-3")
    _, state = act(state, 0, PlayAccountant(card="blue-1"))
    _, state = act(state, 0, EndSwaps())
    refused(state, 0, Refresh(card="red-3"), "action_out_of_order")


def test_refresh_second_pass_card_goes_under_the_deck_once_per_turn():
    """Action 1 after the reshuffle: the card goes to the bottom of the deck, once a turn."""
    state = make_state(street=STREET, deck="red-2 blue-3 green-1 red-4", deck_pass=2)
    events, state = act(state, 0, Refresh(card="yellow-1"))
    assert events[0] == StreetRefreshed(seat=0, card="yellow-1", destination="deck_bottom")
    assert state.deck == c("blue-3 green-1 red-4 yellow-1")
    assert state.discard == ()
    refused(state, 0, Refresh(card="red-3"), "refresh_used")
    # the next turn may refresh again
    _, state = act(state, 0, Pass())
    assert any(isinstance(x, Refresh) for x in game.legal(state, 1))


def test_refresh_deck_runs_out_first_time_mid_reveal_reshuffles_and_allows_once_more():
    """Deck runs out the first time mid-reveal: reshuffle the discards, go on revealing; then the
    second-pass rule holds, and one more refresh is allowed if still no rank-0 card."""
    state = make_state(street=STREET, deck="red-4", discard="blue-3 yellow-2 green-2 red-1")
    events, state = act(state, 0, Refresh(card="red-3"))
    new_deck = reshuffled(SECRET, c("blue-3 yellow-2 green-2 red-1 red-3"))
    assert events == [
        StreetRefreshed(seat=0, card="red-3", destination="discard"),
        StreetRevealed(cards=c("red-4")),
        DeckReshuffled(size=5),
        StreetRevealed(cards=new_deck[:2]),
    ]
    assert state.deck_pass == 2 and state.deck == new_deck[2:] and state.discard == ()
    # the reshuffled pile holds no rank-0 card: the Street still has none, one more refresh
    events, state = act(state, 0, Refresh(card="blue-1"))
    assert events[0].destination == "deck_bottom"
    refused(state, 0, Refresh(card="blue-2"), "refresh_used")
