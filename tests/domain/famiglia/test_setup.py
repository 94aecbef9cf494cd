"""FAMIGLIA.md "Cards" and "Set-up"."""

from __future__ import annotations

from collections import Counter

import pytest

from domain import rng
from domain.core import RuleViolation, replay
from domain.famiglia import cards, game
from domain.famiglia.messages import GameStarted, StreetRevealed, TurnStarted
from domain.famiglia.state import initial_deck
from domain.play import secret_for


def test_cards_sixty_cards_four_families_ranks_and_points():
    """Cards: 4 families of 15 (rank 0 x5 .. rank 4 x1); points 0,1,3,6,10 (red 1,3,6,10,15)."""
    deck = Counter(cards.FULL_DECK)
    assert len(cards.FULL_DECK) == 60
    for family in cards.FAMILIES:
        assert [deck[cards.name(family, r)] for r in range(5)] == [5, 4, 3, 2, 1]
    assert [cards.POINTS[cards.name("red", r)] for r in range(5)] == [1, 3, 6, 10, 15]
    for family in ("blue", "yellow", "green"):
        assert [cards.POINTS[cards.name(family, r)] for r in range(5)] == [0, 1, 3, 6, 10]
    assert sum(cards.POINTS[x] for x in cards.FULL_DECK) == 175


def test_setup_hands_deck_street_and_random_start_player():
    """Set-up: each hand one rank-0 card per family; 52 shuffled; 6 on the Street; random start."""
    secret = secret_for(3)
    events = game.start(2, secret, game.options(None))
    assert [type(e) for e in events] == [GameStarted, StreetRevealed, TurnStarted]
    started, street, turn = events
    assert started.hands == (cards.STARTING_HAND, cards.STARTING_HAND)
    assert started.start_player == rng.choice_index(secret.seed, "start-player", 2)
    assert turn.seat == started.start_player and turn.turn == 1
    state = replay(game, events)
    assert len(state.deck) == 46 and len(state.street) == 6
    assert street.cards == initial_deck(secret)[:6]
    assert Counter(state.deck + state.street) + Counter(cards.STARTING_HAND * 2) == Counter(
        cards.FULL_DECK
    )
    assert state.areas == ((), ())


def test_setup_shuffle_is_reproducible_and_depends_on_the_seed():
    a = initial_deck(secret_for(1))
    assert a == initial_deck(secret_for(1))
    assert a != initial_deck(secret_for(2))
    assert {rng.choice_index(secret_for(n).seed, "start-player", 2) for n in range(20)} == {0, 1}


def test_setup_needs_two_seats():
    with pytest.raises(RuleViolation) as info:
        game.start(3, secret_for(1), game.options(None))
    assert info.value.code == "bad_seats"
