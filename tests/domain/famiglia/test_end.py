"""FAMIGLIA.md "The deck" (both exhaustions, equal turns, double pass) and "End and scoring"."""

from __future__ import annotations

from domain.famiglia import game
from domain.famiglia.messages import (
    DeckRanOut,
    DeckReshuffled,
    GameEnded,
    Options,
    Pass,
    PlayAccountant,
    Recruit,
    Refresh,
    StreetRevealed,
    TurnStarted,
)
from domain.famiglia.state import reshuffled

from .helpers import SECRET, act, c, make_state, play_all, refused, types

NO_DOUBLE_PASS = Options(double_pass_ends=False)


def test_refill_running_out_first_time_reshuffles_discards_and_goes_on():
    """First run-out while refilling the Street: the discard pile becomes the new deck."""
    discard = "blue-3 red-4 yellow-1 yellow-2 green-3"
    state = make_state(street="red-0", deck="green-1 green-2", discard=discard)
    events, state = act(state, 0, Recruit(card="red-0"))
    new_deck = reshuffled(SECRET, c(discard))
    assert sorted(new_deck) == sorted(c(discard))
    assert events[1:4] == [
        StreetRevealed(cards=c("green-1 green-2")),
        DeckReshuffled(size=5),
        StreetRevealed(cards=new_deck[:4]),
    ]
    assert state.deck_pass == 2 and state.deck == new_deck[4:] and state.discard == ()
    assert state.final_turns is None


def test_reshuffle_uses_the_pile_in_canonical_order():
    """The reshuffle depends only on the seed and the pile's contents, not its order."""
    assert reshuffled(SECRET, c("red-1 blue-2 green-3")) == reshuffled(
        SECRET, c("green-3 red-1 blue-2")
    )


def test_second_run_out_in_start_players_turn_other_player_has_one_more_turn():
    """Second run-out during the start player's turn: the other player takes one more turn."""
    state = make_state(street="red-0", deck="green-0", deck_pass=2, start_player=0, current=0)
    events, state = act(state, 0, Recruit(card="red-0"))
    assert events[1:] == [
        StreetRevealed(cards=c("green-0")),
        DeckRanOut(extra_turns=1),
        TurnStarted(seat=1, turn=2),
    ]
    events, state = act(state, 1, Recruit(card="green-0"))
    assert types(events) == ["Recruited", "GameEnded"]  # the emptied Street stays empty
    assert events[-1].reason == "deck_exhausted"
    assert game.result(state).reason == "deck_exhausted"


def test_second_run_out_in_second_players_turn_each_player_has_one_more_turn():
    """Second run-out during the second player's turn: start player, then second player again."""
    state = make_state(
        street="red-2 blue-1",
        deck="green-1",
        deck_pass=2,
        start_player=0,
        current=1,
        options=NO_DOUBLE_PASS,
        hands=("", "blue-2"),
    )
    # the run-out happens in action 1: the player finishes the turn
    events, state = act(state, 1, Refresh(card="red-2"))
    assert events[1:] == [StreetRevealed(cards=c("green-1 red-2")), DeckRanOut(extra_turns=2)]
    _, state = act(state, 1, PlayAccountant(card="blue-2"))  # the turn goes on
    state = play_all(state, [(1, game.legal(state, 1)[0]), (1, Pass())])
    assert (state.current, state.final_turns) == (0, 1)
    _, state = act(state, 0, Pass())
    assert (state.current, state.final_turns) == (1, 0)
    events, state = act(state, 1, Pass())
    assert isinstance(events[-1], GameEnded) and events[-1].reason == "deck_exhausted"
    refused(state, 0, Pass(), "game_over")


def test_empty_discard_pile_at_first_run_out_is_the_second_run_out():
    """Reading 2: reshuffling an empty pile leaves no deck: that is the second run-out."""
    state = make_state(street="red-0", deck="green-1", start_player=1, current=0)
    events, state = act(state, 0, Recruit(card="red-0"))
    assert events[1:4] == [
        StreetRevealed(cards=c("green-1")),
        DeckReshuffled(size=0),
        DeckRanOut(extra_turns=2),
    ]


def test_two_consecutive_turns_without_a_recruit_end_the_game():
    """Option double_pass_ends (default): both players pass in a row, the game ends at once."""
    state = make_state(street="red-0", deck="green-1", hands=("blue-1 red-4", "red-1"))
    _, state = act(state, 0, Pass())
    events, state = act(state, 1, Pass())
    assert types(events) == ["Passed", "GameEnded"]
    assert events[-1] == GameEnded(
        reason="double_pass",
        scores=(16, 3),
        winners=(0,),
        hands=(c("red-4 blue-1"), c("red-1")),
        secret=SECRET,
    )


def test_a_turn_with_actions_but_no_recruit_counts_as_a_pass_turn():
    """Reading 10: a turn ending in pass counts, whatever actions 1-3 it had; a recruit resets."""
    state = make_state(street="red-0 red-1", deck="green-1", hands=("blue-1", "blue-1"))
    _, state = act(state, 0, Recruit(card="red-0"))
    _, state = act(state, 1, PlayAccountant(card="blue-1"))
    state = play_all(state, [(1, game.legal(state, 1)[0]), (1, Pass())])
    assert state.passes_in_row == 1 and game.result(state) is None
    _, state = act(state, 0, Pass())
    assert game.result(state).reason == "double_pass"


def test_double_pass_option_off_keeps_playing():
    """double_pass_ends false: passing players never end the game by passing."""
    state = make_state(street="red-0", deck="green-1", options=NO_DOUBLE_PASS)
    state = play_all(state, [(0, Pass()), (1, Pass()), (0, Pass())])
    assert game.result(state) is None and state.current == 1


def _ended(hands: tuple[str, str], areas: tuple[str, str]):
    state = make_state(hands=hands, areas=areas, street="red-0", final_turns=0)
    _, state = act(state, 0, Pass())
    return game.result(state)


def test_score_is_hand_plus_area_and_higher_score_wins():
    """Score = victory points of hand plus area."""
    result = _ended(("red-4 blue-1", "green-3"), ("yellow-2", "red-3 red-3 blue-0"))
    assert result.scores == [15 + 1 + 3, 6 + 10 + 10 + 0]
    assert result.winners == [1]


def test_tie_goes_to_the_single_highest_valued_card():
    """Tie: the player holding the single highest-valued card wins."""
    result = _ended(("red-3 blue-2", "blue-3 red-2"), ("", "yellow-1"))
    assert result.scores == [13, 13]
    assert result.winners == [0]
    assert result.details["best_card"] == [10, 6]


def test_tie_with_equal_best_card_is_a_draw():
    """Still tied: draw (both seats win)."""
    result = _ended(("red-3 blue-1", "green-4 red-0"), ("", "blue-0"))
    assert result.scores == [11, 11]
    assert result.winners == [0, 1]
