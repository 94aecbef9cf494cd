"""FAMIGLIA.md action 4, "Recruit or pass"."""

from __future__ import annotations

from domain.famiglia import game
from domain.famiglia.messages import Pass, Passed, Recruit, Recruited, StreetRevealed, TurnStarted

from .helpers import act, c, make_state, refused

DECK = "green-1 green-2 green-3 blue-1 blue-2 blue-3 red-1"


def test_recruit_rank_zero_is_free():
    """A Street card of rank 0 is taken into hand for free."""
    state = make_state(street="yellow-0 red-2", deck=DECK)
    events, state = act(state, 0, Recruit(card="yellow-0"))
    assert events[0] == Recruited(seat=0, card="yellow-0", rank=0, to_area=None, back_to_hand=None)
    assert state.hands[0] == c("yellow-0") and state.street == c("red-2")
    refused(
        make_state(hands=("red-1", ""), street="red-2"), 0, Recruit(card="red-2"), "pair_required"
    )


def test_recruit_with_two_cards_of_the_family_one_lower():
    """Rank k: show two same-family cards of rank k-1; one to the area, one back to hand."""
    state = make_state(hands=("red-2 red-2 blue-1", ""), street="red-3 blue-1", deck=DECK)
    events, after = act(state, 0, Recruit(card="red-3", to_area="red-2", back_to_hand="red-2"))
    assert events[:2] == [
        Recruited(seat=0, card="red-3", rank=3, to_area="red-2", back_to_hand="red-2"),
        TurnStarted(seat=1, turn=2),
    ]
    assert after.hands[0] == c("red-2 red-3 blue-1")
    assert after.areas[0] == c("red-2")
    assert after.street == c("blue-1")
    refused(state, 0, Recruit(card="red-3", to_area="red-2", back_to_hand="blue-1"), "bad_pair")
    refused(state, 0, Recruit(card="blue-1", to_area="red-2", back_to_hand="red-2"), "bad_pair")
    refused(state, 0, Recruit(card="red-3", to_area="red-2"), "bad_pair")


def test_recruit_with_one_mercenary_stand_in():
    """One of the two may be a green card of a higher rank than k-1; never two stand-ins."""
    state = make_state(
        hands=("red-2 green-3 green-3 green-4 green-2", ""), street="red-3", deck=DECK
    )
    legal = game.legal(state, 0)
    for other in ("green-3", "green-4"):
        for to_area, back in (("red-2", other), (other, "red-2")):
            command = Recruit(card="red-3", to_area=to_area, back_to_hand=back)
            assert command in legal
            events, after = act(state, 0, command)
            assert events[0].rank == 3 and after.areas[0] == (to_area,)
    refused(state, 0, Recruit(card="red-3", to_area="green-3", back_to_hand="green-3"), "bad_pair")
    refused(state, 0, Recruit(card="red-3", to_area="red-2", back_to_hand="green-2"), "bad_pair")
    refused(
        state, 0, Recruit(card="red-3", to_area="red-2", back_to_hand="red-2"), "card_not_in_hand"
    )


def test_recruit_mercenary_stands_in_for_another_family_only():
    """A Mercenary stands in for a card of another family (the description's 別種): recruiting
    a green card with a higher green standing in for the green one is refused by default."""
    state = make_state(
        hands=("green-2 green-2 green-4 red-2", ""), street="green-3 red-3", deck=DECK
    )
    for to_area, back in (("green-4", "green-2"), ("green-2", "green-4")):
        error = refused(
            state,
            0,
            Recruit(card="green-3", to_area=to_area, back_to_hand=back),
            "mercenary_not_for_green",
        )
        assert error.params == {"card": "green-3", "mercenary": "green-4", "real": "green-2"}
        assert "green-4" in error.message and "green-2" in error.message
    green_3 = {r for r in game.legal(state, 0) if isinstance(r, Recruit) and r.card == "green-3"}
    assert green_3 == {Recruit(card="green-3", to_area="green-2", back_to_hand="green-2")}
    events, _ = act(state, 0, Recruit(card="green-3", to_area="green-2", back_to_hand="green-2"))
    assert events[0].rank == 3
    events, _ = act(state, 0, Recruit(card="red-3", to_area="red-2", back_to_hand="green-4"))
    assert events[0].rank == 3  # green still stands in for the other families


def test_recruit_option_mercenary_for_green_lets_green_stand_in_for_green():
    """Option mercenary_for_green (the published FAQ): green 3 with green 2 + green 4."""
    state = make_state(
        hands=("green-2 green-4", ""),
        street="green-3",
        deck=DECK,
        options=game.options({"mercenary_for_green": True}),
    )
    command = Recruit(card="green-3", to_area="green-4", back_to_hand="green-2")
    assert command in game.legal(state, 0)
    events, _ = act(state, 0, command)
    assert events[0].rank == 3


def test_recruit_emptying_the_street_reveals_six_new_cards():
    """If the Street is now empty, six new cards are revealed."""
    state = make_state(street="red-0", deck=DECK)
    events, state = act(state, 0, Recruit(card="red-0"))
    assert events[1] == StreetRevealed(cards=c(DECK)[:6])
    assert state.street == c(DECK)[:6] and state.deck == c("red-1")


def test_pass_instead_of_recruiting_ends_the_turn():
    """Instead of recruiting, the player may pass."""
    state = make_state(street="red-0", deck=DECK)
    events, state = act(state, 0, Pass())
    assert events == [Passed(seat=0), TurnStarted(seat=1, turn=2)]
    assert state.current == 1 and state.street == c("red-0")
