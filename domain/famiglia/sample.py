"""A full Famiglia state consistent with what one seat knows: the determinization for search.

Every card move in Famiglia is public (``view.redact`` removes only the seed): the starting
hands, each recruit with the two cards shown, Accountants, exchanges and Brutes. So the other
hand is known exactly by folding the public events. The only hidden thing is the order of the
deck: its contents are the 60 cards minus every card whose place is known, and after the
reshuffle the cards a refresh put under the deck keep their known places at its bottom. The
sample shuffles the rest uniformly (no player ever saw the deck, so every order is equally
likely) and gets a fresh secret of its own, for the reshuffle a rollout may reach.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import msgspec

from domain.core import HistoryMismatch, Secret, commitment
from domain.famiglia import cards
from domain.famiglia.messages import (
    AccountantPlayed,
    BrutePlayed,
    CardsSwapped,
    DeckReshuffled,
    Event,
    GameEnded,
    GameStarted,
    Passed,
    Recruited,
    StreetRefreshed,
    StreetRevealed,
    TurnStarted,
)
from domain.famiglia.rules import SEATS
from domain.famiglia.state import BRUTE, RECRUIT, REFRESH, TURN_OVER, State
from domain.famiglia.view import View
from domain.rng import Rng

# The stage a view's phase stands for; "swap" follows an Accountant, which opens the Brute's.
_STAGES = {
    "refresh": REFRESH,
    "brute": BRUTE,
    "swap": BRUTE,
    "recruit": RECRUIT,
    "turn_over": TURN_OVER,
    "over": TURN_OVER,
}
_START_DECK = len(cards.FULL_DECK) - SEATS * len(cards.STARTING_HAND)


class _Public:
    """What the events tell every seat, beyond the view: both hands, whose turn it is, how
    the deck's size splits into shuffled cards on top and known cards under them."""

    def __init__(self, started: GameStarted) -> None:
        self.hands = [Counter(h) for h in started.hands]
        self.current = started.start_player
        self.deck_size = _START_DECK
        self.bottom: list[str] = []  # refreshed under the deck after the reshuffle, top first
        self.deck_refreshed = False
        self.lowered: tuple[str, int] | None = None
        self.ended: GameEnded | None = None

    def fold(self, e: Event) -> None:
        if isinstance(e, StreetRevealed):
            self.deck_size -= len(e.cards)
            # The shuffled part is on top: what goes past it comes off the known bottom.
            from_bottom = max(0, len(self.bottom) - self.deck_size)
            del self.bottom[:from_bottom]
        elif isinstance(e, DeckReshuffled):
            self.deck_size = e.size
        elif isinstance(e, TurnStarted):
            self.current, self.deck_refreshed, self.lowered = e.seat, False, None
        elif isinstance(e, StreetRefreshed):
            if e.destination == "deck_bottom":
                self.bottom.append(e.card)
                self.deck_size += 1
                self.deck_refreshed = True
        elif isinstance(e, AccountantPlayed):
            self._take(e.seat, e.card)
        elif isinstance(e, CardsSwapped):
            self._take(e.seat, e.hand_card)
            self.hands[e.seat][e.area_card] += 1
        elif isinstance(e, BrutePlayed):
            self._take(e.seat, e.card)
            self.lowered = (e.target, cards.RANK[e.target] - e.amount)
        elif isinstance(e, Recruited):
            if e.to_area is not None:
                self._take(e.seat, e.to_area)
            self.hands[e.seat][e.card] += 1
            self.lowered = None
        elif isinstance(e, Passed):
            self.lowered = None
        elif isinstance(e, GameEnded):
            self.ended = e

    def _take(self, seat: int, card: str) -> None:
        if self.hands[seat][card] <= 0:
            raise HistoryMismatch(f"seat {seat} played {card} without holding it")
        self.hands[seat][card] -= 1


def sample(seat: int, view: View, history: list[Event], rng: Rng) -> State:
    """A state whose ``view`` for ``seat`` is ``view``, drawn uniformly from those the seat
    cannot tell apart, built from the view and the seat's redacted events only."""
    base, hidden, bottom = _known(seat, view, history)
    deck = (*rng.shuffle(hidden), *bottom)
    secret = base.ended.secret if base.ended else _fresh_secret(rng)
    return msgspec.structs.replace(base, secret=secret, commitment=commitment(secret), deck=deck)


# The last position sample() was asked about: a search asks about the same one every iteration
# (the same history list, not grown since, and an equal view).
_last: list[Any] = []


def _known(seat: int, view: View, history: list[Event]) -> tuple[State, tuple[str, ...], list[str]]:
    """What ``seat`` knows at ``view``: the state but for its deck and secret, the cards
    shuffled into the deck (in canonical order), and the known cards under them."""
    same = bool(_last) and _last[0] is history and _last[1] == len(history)
    if same and _last[2] == view and _last[3] == seat:
        return _last[4]
    known = _fold_known(seat, view, history)
    _last[:] = [history, len(history), view, seat, known]
    return known


def _fold_known(
    seat: int, view: View, history: list[Event]
) -> tuple[State, tuple[str, ...], list[str]]:
    if not history or not isinstance(history[0], GameStarted):
        raise HistoryMismatch("the history must begin with game_started")
    public = _Public(history[0])
    for event in history[1:]:
        public.fold(event)
    hands = tuple(cards.sort(list(h.elements())) for h in public.hands)
    if view.hand is None or list(hands[seat]) != view.hand:
        raise HistoryMismatch("the history does not lead to the seat's hand")
    if [len(h) for h in hands] != view.hand_sizes or public.deck_size != view.deck_size:
        raise HistoryMismatch("the history does not lead to the view")
    street = tuple(s.card for s in view.street)
    placed = Counter(street) + Counter(view.discard) + Counter(public.bottom)
    for pile in (*view.areas, *hands):
        placed.update(pile)
    hidden = Counter(cards.FULL_DECK) - placed
    if sum(hidden.values()) + len(public.bottom) != view.deck_size:
        raise HistoryMismatch("the cards in view and history do not add up to sixty")
    base = State(
        options=view.options,
        secret=_NO_SECRET,
        commitment="",
        start_player=view.start_player,
        deck=(),
        street=street,
        discard=tuple(view.discard),
        hands=hands,
        areas=tuple(tuple(a) for a in view.areas),
        current=public.current,
        turn=view.turn,
        stage=_STAGES[view.phase],
        deck_pass=view.deck_pass,
        deck_refreshed=public.deck_refreshed,
        accountant=view.accountant,
        swaps_left=view.swaps_left,
        lowered=public.lowered,
        final_turns=view.final_turns,
        passes_in_row=view.passes_in_row,
        ended=public.ended,
    )
    return base, cards.sort(list(hidden.elements())), list(public.bottom)


_NO_SECRET = Secret(seed=b"", salt=b"")  # replaced in every sample


def _fresh_secret(rng: Rng) -> Secret:
    def draw() -> bytes:
        return b"".join(rng.below(1 << 64).to_bytes(8, "big") for _ in range(4))

    return Secret(seed=draw(), salt=draw())
