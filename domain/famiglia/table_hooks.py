"""What the table (domain.table) needs of Famiglia: which events reveal or shuffle, which are
automatic steps, the standing, and the view of a game the table ended (the undo policy:
docs/famiglia.md, "Undo")."""

from __future__ import annotations

from domain.famiglia.messages import (
    DeckRanOut,
    DeckReshuffled,
    Event,
    GameEnded,
    GameStarted,
    StreetRevealed,
    TurnStarted,
)
from domain.famiglia.rules import SEATS, score
from domain.famiglia.state import State
from domain.famiglia.view import ended_view as ended_view

# Dealing (the start), cards turned up onto the Street (FAMIGLIA.md, "The street", action 1),
# the reshuffle of the discard pile ("The deck"), and the end, which reveals the seed and hands.
REVEALING: frozenset[type] = frozenset({GameStarted, StreetRevealed, DeckReshuffled, GameEnded})
# Steps of the rules nobody chooses: a turn starts, the deck runs out the second time.
AUTOMATIC: frozenset[type] = frozenset({TurnStarted, DeckRanOut})


def reveals(event: Event) -> bool:
    return type(event) in REVEALING


def automatic(event: Event) -> bool:
    return type(event) in AUTOMATIC


def standing(state: State) -> list[int]:
    """The points of each player's cards, hand and area, as the end would count them."""
    return [score(state, seat) for seat in range(SEATS)]
