"""What a Famiglia seat could have known at a decision (the review's ``knowledge``).

Every card move is public (FAMIGLIA.md, "What each player sees"): the starting hands, each
recruit with the two cards shown, Accountants, exchanges and Brutes. So a seat that remembers
the moves knows the other hand exactly, and the deck's contents are the 60 cards less every card
whose place is known; only the deck's order is hidden. ``domain.famiglia.sample`` already folds
that from the seat's view and redacted history: any state it draws has the true other hand and
the deck's true contents (in some order), so one draw gives both.

Keys: ``opponent_hand`` (cards, canonical order), ``deck`` (card -> copies in the deck, canonical
order), ``deck_size``.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from domain.famiglia import cards
from domain.famiglia.sample import sample
from domain.famiglia.view import View
from domain.rng import Rng


def knowledge(seat: int, view: View, history: list[Any]) -> dict[str, Any]:
    state = sample(seat, view, history, Rng(b"", b"review-knowledge"))
    deck = Counter(state.deck)
    return {
        "opponent_hand": list(cards.sort(list(state.hands[1 - seat]))),
        "deck": {card: deck[card] for card in cards.KINDS if deck[card]},
        "deck_size": len(state.deck),
    }
