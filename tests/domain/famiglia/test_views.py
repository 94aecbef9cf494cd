"""FAMIGLIA.md "What each player sees", redaction, and options."""

from __future__ import annotations

import msgspec
import pytest

from domain.core import RuleViolation, replay
from domain.famiglia import game
from domain.famiglia.messages import GameStarted, Options, Pass, PlayBrute, Recruit
from domain.famiglia.view import StreetCard
from domain.play import secret_for

from .helpers import act, make_state


def test_seat_sees_own_hand_and_only_the_size_of_the_other():
    state = make_state(
        hands=("red-1 yellow-2", "blue-3 green-4 red-4"),
        areas=("green-1", "blue-0"),
        street="red-3 blue-2",
        deck="green-2 green-3 yellow-1",
        discard="blue-1",
    )
    mine = game.view(state, 0)
    assert mine.hand == ["red-1", "yellow-2"]
    assert mine.hand_sizes == [2, 3]
    assert mine.areas == [["green-1"], ["blue-0"]]
    assert mine.discard == ["blue-1"]
    assert mine.deck_size == 3 and mine.deck_pass == 1
    assert mine.to_move == 0 and mine.phase == "refresh"
    assert mine.actions == ["refresh", "play_accountant", "play_brute", "recruit", "pass"]
    encoded = msgspec.json.encode(game.view(state, 0))
    for hidden in (b"blue-3", b"green-4", b"red-4", b"green-2", b"yellow-1", b"seed"):
        assert hidden not in encoded
    spectator = game.view(state, None)
    assert spectator.hand is None and spectator.hand_sizes == [2, 3]
    assert b"yellow-2" not in msgspec.json.encode(spectator)


def test_view_shows_this_turns_lowered_rank_and_the_remaining_actions():
    state = make_state(hands=("yellow-1", ""), street="red-3 blue-2", deck="green-2")
    _, state = act(state, 0, PlayBrute(card="yellow-1", target="blue-2", amount=1))
    view = game.view(state, 1)
    assert view.street == [StreetCard("red-3", 3), StreetCard("blue-2", 1)]
    assert view.phase == "recruit" and view.actions == ["recruit", "pass"]


def test_view_of_a_bad_seat_is_refused():
    with pytest.raises(RuleViolation) as info:
        game.view(make_state(), 2)
    assert info.value.code == "bad_seat"


def test_redact_hides_the_secret_while_running_and_game_ended_reveals_it():
    events = game.start(2, secret_for(5), game.options(None))
    started = events[0]
    assert isinstance(started, GameStarted) and started.secret == secret_for(5)
    for seat in (0, 1, None):
        redacted = game.redact(started, seat)
        assert redacted.secret is None and redacted.commitment == started.commitment
        assert game.redact(events[1], seat) == events[1]
    with pytest.raises(RuleViolation) as info:
        replay(game, [game.redact(started, None)])
    assert info.value.code == "history_mismatch"


def test_evolve_refuses_revealed_cards_that_do_not_match_the_seeded_deck():
    events = game.start(2, secret_for(5), game.options(None))
    forged = msgspec.structs.replace(events[1], cards=tuple(reversed(events[1].cards)))
    assert forged != events[1]
    with pytest.raises(RuleViolation) as info:
        replay(game, [events[0], forged])
    assert info.value.code == "history_mismatch"


def test_options_default_and_validation():
    """Options: double_pass_ends defaults true, mercenary_for_green false; action1_strict_order
    is refused."""
    assert game.options(None) == Options(
        double_pass_ends=True, mercenary_for_green=False, action1_strict_order=False
    )
    assert game.options({"double_pass_ends": False}).double_pass_ends is False
    for raw in (
        {"nope": 1},
        {"double_pass_ends": "yes"},
        {"action1_strict_order": True},
        {"preset": "deluxe"},
    ):
        with pytest.raises(RuleViolation) as info:
            game.options(raw)
        assert info.value.code == "bad_options" and info.value.message


def test_options_published_preset_and_explicit_options_override_it():
    """FAMIGLIA.md "Options": the preset `published` switches every option to the published
    reading (a Mercenary stands in for green too); an option named beside it wins."""
    assert game.options({"preset": "description"}) == game.options(None)
    published = game.options({"preset": "published"})
    assert published == Options(mercenary_for_green=True, double_pass_ends=True)
    mixed = game.options({"preset": "published", "mercenary_for_green": False})
    assert mixed == Options()
    started = game.start(2, secret_for(5), published)[0]
    assert started.options == published  # the game records the resolved options


def test_game_ended_view_carries_the_result():
    state = make_state(hands=("red-2", "red-1"), street="red-0", final_turns=0)
    _, state = act(state, 0, Pass())  # the last turn ends
    view = game.view(state, None)
    assert view.phase == "over" and view.to_move is None and view.actions == []
    assert view.result is not None and view.result.scores == [6, 3]
    assert game.to_act(state) == set() and game.legal(state, 1) == []


def test_between_two_turns_the_view_says_the_turn_is_over_and_nobody_moves():
    """The states between the recruit or pass that ends a turn and the next turn_started (the
    Street's refill, the deck running out) have a view: phase turn_over, no actions."""
    state = make_state(street="red-0", deck="green-1 green-2 green-3 blue-1 blue-2 blue-3 red-1")
    events = game.decide(state, 0, Recruit(card="red-0"))
    assert [type(e).__name__ for e in events] == ["Recruited", "StreetRevealed", "TurnStarted"]
    for event in events[:-1]:
        state = game.evolve(state, event)
        for seat in (0, 1, None):
            view = game.view(state, seat)
            assert (view.phase, view.actions, view.to_move) == ("turn_over", [], None)
        assert game.to_act(state) == set()
        assert game.legal(state, 0) == game.legal(state, 1) == []
    state = game.evolve(state, events[-1])
    assert game.view(state, None).phase == "refresh" and game.to_act(state) == {1}
