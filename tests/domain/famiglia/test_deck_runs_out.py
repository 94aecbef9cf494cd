"""FAMIGLIA.md "The deck", "When the deck 'runs out' (settled readings)": one test per bullet."""

from __future__ import annotations

from domain.famiglia import game
from domain.famiglia.messages import (
    DeckRanOut,
    DeckReshuffled,
    Pass,
    PlayAccountant,
    Recruit,
    Refresh,
    StreetRefreshed,
    StreetRevealed,
    TurnStarted,
)
from domain.famiglia.state import reshuffled

from .helpers import SECRET, act, c, make_state, refused, types

STREET = "red-3 blue-2 yellow-1 green-4 red-1 blue-1"
SIX = "red-1 red-2 blue-1 blue-2 yellow-1 yellow-2"


def test_the_deck_runs_out_when_its_last_card_is_taken_the_first_time():
    """Settled readings, bullet 1: the deck runs out at the moment its last card is taken, even
    when no further card is needed: a reveal of exactly the cards left reshuffles at once the
    first time (in action 1 and when refilling an empty Street)."""
    state = make_state(street=STREET, deck="red-4", discard="blue-3")
    events, after = act(state, 0, Refresh(card="red-1"))
    assert events == [
        StreetRefreshed(seat=0, card="red-1", destination="discard"),
        StreetRevealed(cards=c("red-4")),
        DeckReshuffled(size=2),
    ]
    assert after.deck_pass == 2 and after.deck == reshuffled(SECRET, c("blue-3 red-1"))
    assert after.final_turns is None
    # so the second-pass rule of action 1 holds at once: the next refresh goes under the deck
    events, after = act(after, 0, Refresh(card="blue-1"))
    assert events[0].destination == "deck_bottom"

    refill = make_state(street="red-0", deck=SIX, discard="green-2 green-3")
    events, after = act(refill, 0, Recruit(card="red-0"))
    assert events[1:] == [
        StreetRevealed(cards=c(SIX)),
        DeckReshuffled(size=2),
        TurnStarted(seat=1, turn=2),
    ]
    assert after.deck_pass == 2 and sorted(after.deck) == sorted(c("green-2 green-3"))


def test_the_deck_runs_out_when_its_last_card_is_taken_the_second_time():
    """Settled readings, bullet 1: a reveal of exactly the cards left starts the end the second
    time, in action 1 (the card put under the deck is the last one revealed) and when refilling
    an empty Street."""
    state = make_state(street=STREET, deck="red-4", deck_pass=2, start_player=0)
    events, after = act(state, 0, Refresh(card="blue-2"))
    assert events == [
        StreetRefreshed(seat=0, card="blue-2", destination="deck_bottom"),
        StreetRevealed(cards=c("red-4 blue-2")),
        DeckRanOut(extra_turns=1),
    ]
    assert after.deck == () and after.final_turns == 1

    refill = make_state(street="red-0", deck=SIX, deck_pass=2, start_player=1, current=0)
    events, after = act(refill, 0, Recruit(card="red-0"))
    assert events[1:] == [
        StreetRevealed(cards=c(SIX)),
        DeckRanOut(extra_turns=2),
        TurnStarted(seat=1, turn=2),
    ]
    assert after.final_turns == 1  # the start player's turn, then this player's, then the end


def test_after_the_second_exhaustion_no_refresh_a_reveal_stops_an_emptied_street_stays_empty():
    """Settled readings, bullet 2: after the second exhaustion no refresh is possible (there is
    nothing to reveal), a reveal in progress stops part way, and a Street emptied after that
    stays empty."""
    state = make_state(
        street=STREET,
        deck="red-4",
        deck_pass=2,
        current=1,
        start_player=0,
        hands=("", "blue-1"),
    )
    events, state = act(state, 1, Refresh(card="red-3"))  # 3 to reveal, 2 left: stops part way
    assert events == [
        StreetRefreshed(seat=1, card="red-3", destination="deck_bottom"),
        StreetRevealed(cards=c("red-4 red-3")),
        DeckRanOut(extra_turns=2),
    ]
    assert state.deck == () and state.final_turns == 2
    # The Street still has no rank-0 card and the second-pass refresh would be this turn's
    # second, but the reason it is refused is the empty deck, as in every later turn.
    refused(state, 1, Refresh(card="red-4"), "deck_empty")
    _, state = act(state, 1, PlayAccountant(card="blue-1"))  # the turn goes on after action 1
    _, state = act(state, 1, game.legal(state, 1)[0])
    _, state = act(state, 1, Pass())
    refused(state, 0, Refresh(card="red-4"), "deck_empty")
    assert not any(isinstance(x, Refresh) for x in game.legal(state, 0))

    emptied = make_state(street="red-0", deck_pass=2, final_turns=1, start_player=1)
    events, emptied = act(emptied, 0, Recruit(card="red-0"))
    assert types(events) == ["Recruited", "TurnStarted"]  # nothing revealed
    assert emptied.street == () and game.view(emptied, 1).street == []
    assert game.legal(emptied, 1) == [Pass()]


def test_in_the_second_pass_the_refreshed_card_goes_under_the_deck_before_the_reveal():
    """Settled readings, bullet 3: in the second pass the discarded Street card goes under the
    deck before the reveal, so a small deck can bring it straight back."""
    state = make_state(street=STREET, deck="red-2 blue-4", deck_pass=2)
    events, state = act(state, 0, Refresh(card="red-3"))
    assert events[0] == StreetRefreshed(seat=0, card="red-3", destination="deck_bottom")
    assert events[1] == StreetRevealed(cards=c("red-2 blue-4 red-3"))
    assert state.street.count("red-3") == 1 and "red-3" in state.street
