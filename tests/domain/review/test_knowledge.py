"""What a seat could have known: checked against the true state (server side), which the
knowledge itself never reads."""

from __future__ import annotations

from collections import Counter

from domain import GAMES
from domain.gangsta import cards as gangsta_cards
from domain.review import KNOWLEDGE
from domain.review.analyse import decision_points
from tests.domain.review.games import finished


def _points(game: str, seats: int) -> list[tuple[object, list[object]]]:
    points, kept = decision_points(GAMES[game], finished(game, seats))
    return [(p, kept) for p in points]


def test_famiglia_knowledge_is_the_other_hand_and_the_deck_contents() -> None:
    inner = GAMES["famiglia"].inner
    checked = 0
    for point, kept in _points("famiglia", 2):
        seat = point.seat  # type: ignore[attr-defined]
        state = point.state  # type: ignore[attr-defined]
        history = [inner.redact(e, seat) for e in kept[: point.index]]  # type: ignore[attr-defined]
        known = KNOWLEDGE["famiglia"](seat, inner.view(state, seat), history)
        assert known["opponent_hand"] == list(state.hands[1 - seat])
        assert Counter(known["deck"]) == Counter(state.deck)
        assert known["deck_size"] == len(state.deck)
        checked += 1
    assert checked > 20


def test_gangsta_knowledge_is_the_unseen_cards_and_the_influence_bounds() -> None:
    inner = GAMES["gangsta"].inner
    widened = 0
    for point, kept in _points("gangsta", 3):
        seat = point.seat  # type: ignore[attr-defined]
        state = point.state  # type: ignore[attr-defined]
        history = [inner.redact(e, seat) for e in kept[: point.index]]  # type: ignore[attr-defined]
        known = KNOWLEDGE["gangsta"](seat, inner.view(state, seat), history)
        assert known["gangster_deck"] == sorted(state.gangster_deck)
        assert known["heist_deck"] == sorted(state.heist_deck)
        assert [o["seat"] for o in known["opponents"]] == [s for s in range(3) if s != seat]
        for o in known["opponents"]:
            heists = state.players[o["seat"]].heists
            truth = sum(gangsta_cards.HEISTS[h].influence for h in heists)
            assert o["heists"] == len(heists) and o["influence"] == truth
            assert o["low"] <= truth <= o["high"]
            widened += o["low"] < o["high"]
    assert widened  # the view alone leaves some doubt: the bounds are not the truth copied
