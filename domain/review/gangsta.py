"""What a Gangsta! seat could have known at a decision (the review's ``knowledge``).

The decks' order is hidden, their contents are not: a deck holds the cards the seat has not
seen elsewhere (``domain.gangsta.sample`` folds them from the seat's view and redacted history,
so any state it draws has the decks' true contents). The influence of another player's
completed heists is hidden in the views, but the history names every heist taken (the card lay
face up in the row): a seat that remembers knows it exactly. From the view alone it is only
bounded: the player's count of heists, each among the heists of the chapters so far that the
seat cannot see elsewhere.

Keys: ``gangster_deck`` and ``heist_deck`` (the unseen cards of the gangster deck and of the
current chapter's heist deck, snitches included, by id; a deck top the seat looked at with 910
or 912 counts as seen), ``resources`` (the resource cards an opponent may hold face down, while
any does), ``opponents`` (per other seat: ``seat``, ``heists`` completed, ``influence`` of them as
the history tells it, ``low`` and ``high``: the bounds from the view alone).
"""

from __future__ import annotations

from typing import Any

from domain.gangsta import cards
from domain.gangsta.sample import sample
from domain.gangsta.view import View
from domain.rng import Rng


def _unseen(deck: tuple[int, ...], peeked: int | None) -> list[int]:
    return sorted(c for c in deck if c != peeked)


def _bounds(view: View, seat: int, count: int) -> tuple[int, int]:
    visible = set(view.heist_row) | set(view.heist_discard) | set(view.players[seat].heists or ())
    pool = sorted(
        h.influence
        for i, h in cards.HEISTS.items()
        if h.chapter <= view.chapter and i not in visible
    )
    if count == 0:
        return 0, 0
    return sum(pool[:count]), sum(pool[-count:])


def knowledge(seat: int, view: View, history: list[Any]) -> dict[str, Any]:
    state = sample(seat, view, history, Rng(b"", b"review-knowledge"))
    own = view.players[seat]
    opponents = []
    for p in view.players:
        if p.seat == seat:
            continue
        low, high = _bounds(view, seat, p.heists_completed)
        heists = state.players[p.seat].heists
        opponents.append(
            {
                "seat": p.seat,
                "heists": p.heists_completed,
                "influence": sum(cards.HEISTS[h].influence for h in heists),
                "low": low,
                "high": high,
            }
        )
    hidden = [
        p for p in view.players if p.seat != seat and p.resource_chosen and p.resource is None
    ]
    seen = {p.resource for p in view.players if p.resource is not None} | set(own.dealt)
    return {
        "gangster_deck": _unseen(state.gangster_deck, own.peek_gangster),
        "heist_deck": _unseen(state.heist_deck, own.peek_heist),
        "resources": sorted(set(cards.RESOURCE_IDS) - seen) if hidden else [],
        "opponents": opponents,
    }
