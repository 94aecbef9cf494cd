"""A full Gangsta! state drawn from what one seat knows (its view and its redacted history), for
search: a determinization consistent with everything the seat has seen.

The sample is the seat's history replayed through ``evolve`` from a fresh start whose hidden
parts are drawn at random: every deck holds the cards not seen elsewhere, shuffled; other
players' resource cards come from the cards the seat has not seen. Before each event that
reveals a deck card (a card dealt into a row, a snitch, a 910 or 912 card taken from the top,
the seat's own look at a top), the sample's deck gets that card moved to its top, so the
replay never contradicts the history and the state equals the real one in everything the seat
can see. Others' completed heists come from the public history (the cards lay face up in the
row). The sample gets a fresh secret of its own for any later reshuffle.
"""

from __future__ import annotations

import msgspec

from domain.core import HistoryMismatch, Secret
from domain.gangsta import cards, resources
from domain.gangsta.evolve import evolve
from domain.gangsta.messages import (
    CardsDealt,
    Event,
    GameEnded,
    GameStarted,
    GangsterHired,
    GangsterPeeked,
    HeistChosen,
    HeistPeeked,
    ResourceKept,
    ResourcesRevealed,
    SnitchRevealed,
    SnitchShuffledBack,
)
from domain.gangsta.state import HEISTS_ROW, Member, Player, State, replace
from domain.gangsta.view import View
from domain.rng import Rng

SECRET_BYTES = 32


def _fresh_secret(rng: Rng) -> Secret:
    def random_bytes() -> bytes:
        return b"".join(rng.below(1 << 64).to_bytes(8, "big") for _ in range(SECRET_BYTES // 8))

    return Secret(seed=random_bytes(), salt=random_bytes())


def _dealt(seat: int, view: View, history: list[Event], rng: Rng) -> tuple[tuple[int, ...], ...]:
    """Each seat's two resource cards: the seat's own as its view shows them (or at least the
    kept one), others' kept cards once revealed, the rest drawn from the cards not seen."""
    if not view.options.resources:
        return ((),) * view.seats
    revealed = next((e.cards for e in history if isinstance(e, ResourcesRevealed)), None)
    known: list[list[int]] = []
    for p in view.players:
        if p.seat == seat:
            known.append(list(p.dealt) or ([p.resource] if p.resource is not None else []))
        else:
            known.append([revealed[p.seat]] if revealed is not None else [])
    seen = {c for k in known for c in k}
    pool = rng.shuffle([c for c in cards.RESOURCE_IDS if c not in seen])
    for k in known:
        while len(k) < resources.DEALT:
            k.append(pool.pop())
    return tuple(tuple(k) for k in known)


def _start(e: GameStarted, dealt: tuple[tuple[int, ...], ...], secret: Secret, rng: Rng) -> State:
    return State(
        options=e.options,
        secret=secret,
        commitment=e.commitment,
        start_player=e.start_player,
        players=tuple(
            Player(boss=b, gang=(Member(b),), money=m, dealt=d)
            for b, m, d in zip(e.bosses, e.money, dealt, strict=True)
        ),
        gangster_deck=tuple(rng.shuffle(cards.HIRABLE_IDS)),
        heist_decks=tuple(tuple(rng.shuffle(deck)) for deck in cards.CHAPTER_DECKS),
        removed=tuple(rng.shuffle([b for b in cards.BOSS_IDS if b not in e.bosses])),
        active=e.start_player,
    )


def _to_top(s: State, heists: bool, shown: tuple[int, ...]) -> State:
    """The deck with ``shown`` moved to its top, in that order. A look another seat took at
    the old top (910 or 912, still valid) was in truth at the card now revealed on top."""
    deck = s.heist_deck if heists else s.gangster_deck
    if deck[: len(shown)] == shown:
        return s
    if not set(shown) <= set(deck):
        raise HistoryMismatch(f"cards {list(shown)} are not in the deck")
    new = shown + tuple(c for c in deck if c not in shown)
    field = "peek_heist" if heists else "peek_gangster"
    players = tuple(
        msgspec.structs.replace(p, **{field: new[0]})
        if deck and getattr(p, field) == deck[0]
        else p
        for p in s.players
    )
    if heists:
        decks = list(s.heist_decks)
        decks[s.chapter - 1] = new
        return replace(s, heist_decks=tuple(decks), players=players)
    return replace(s, gangster_deck=new, players=players)


def _prepared(
    s: State, e: Event, revealed: tuple[int, ...] | None, rng: Rng
) -> tuple[State, Event]:
    """The state made to agree with what ``e`` reveals, and ``e`` with a hidden card filled."""
    if isinstance(e, CardsDealt):
        return _to_top(s, e.row == HEISTS_ROW, e.cards), e
    if isinstance(e, SnitchRevealed | SnitchShuffledBack):
        return _to_top(s, True, (e.card,)), e
    if isinstance(e, HeistChosen) and e.from_deck:
        return _to_top(s, True, (e.heist,)), e
    if isinstance(e, GangsterHired) and e.from_deck:
        return _to_top(s, False, (e.gangster,)), e
    if isinstance(e, HeistPeeked | GangsterPeeked):
        heists = isinstance(e, HeistPeeked)
        if e.card is not None:
            return _to_top(s, heists, (e.card,)), e
        deck = s.heist_deck if heists else s.gangster_deck
        return s, msgspec.structs.replace(e, card=deck[0])
    if isinstance(e, ResourceKept) and e.card is None:
        dealt = s.players[e.seat].dealt
        card = revealed[e.seat] if revealed is not None else dealt[rng.below(len(dealt))]
        return s, msgspec.structs.replace(e, card=card)
    if isinstance(e, GameEnded):
        return s, msgspec.structs.replace(e, secret=s.secret)
    return s, e


class _Replayed(msgspec.Struct, frozen=True):
    """The last replay: for which seat, view and history (kept, so their ids stay theirs)."""

    seat: int
    view: View
    history: list[Event]
    length: int
    state: State


_last: list[_Replayed] = []  # at most one


def sample(seat: int, view: View, history: list[Event], rng: Rng) -> State:
    """A state of the game drawn at random among those consistent with ``seat``'s ``view`` and
    ``history`` (the game's events as ``redact(event, seat)`` gives them, creation first).

    Search asks again and again with the same view and history: then the last replay's state
    only gets its decks reshuffled (``_reshuffled``), since what varies between samples is the
    order of the decks (their cards are fixed by the history) and the secret; while another
    seat's resource card is still face down, every sample replays."""
    last = _last[0] if _last else None
    if (
        last is not None
        and last.seat == seat
        and last.view is view
        and last.history is history
        and last.length == len(history)
        and (last.state.revealed or not last.state.options.resources)
    ):
        return _reshuffled(last.state, seat, rng)
    state = _replay(seat, view, history, rng)
    _last[:] = [_Replayed(seat, view, history, len(history), state)]
    return state


def _replay(seat: int, view: View, history: list[Event], rng: Rng) -> State:
    first = history[0]
    if not isinstance(first, GameStarted):
        raise HistoryMismatch("the history starts with game_started")
    revealed = next((e.cards for e in history if isinstance(e, ResourcesRevealed)), None)
    state = _start(first, _dealt(seat, view, history, rng), _fresh_secret(rng), rng)
    for e in history[1:]:
        state, e = _prepared(state, e, revealed, rng)
        state = evolve(state, e)
    return state


def _shuffled(deck: tuple[int, ...], keep_top: bool, rng: Rng) -> tuple[int, ...]:
    if keep_top:
        return (deck[0], *rng.shuffle(deck[1:]))
    return tuple(rng.shuffle(deck))


def _reshuffled(s: State, seat: int, rng: Rng) -> State:
    """``s`` with every deck in a new random order (the seat's own valid look at a top keeps
    that card on top; another seat's valid look follows the new top, as in ``_to_top``) and a
    fresh secret."""
    current = s.chapter - 1
    heist_decks = tuple(
        _shuffled(deck, i == current and resources.peeked_heist(s, seat) is not None, rng)
        for i, deck in enumerate(s.heist_decks)
    )
    gangsters = _shuffled(s.gangster_deck, resources.peeked_gangster(s, seat) is not None, rng)
    new = replace(s, heist_decks=heist_decks, gangster_deck=gangsters, secret=_fresh_secret(rng))
    players = tuple(
        p if other == seat else _looks_follow(p, s, new) for other, p in enumerate(s.players)
    )
    return replace(new, players=players)


def _looks_follow(p: Player, old: State, new: State) -> Player:
    """Another seat's looks at deck tops after a reshuffle: a valid one saw the new top (which
    card it saw is hidden); one no longer valid must not become valid by chance."""
    heist = _look(p.peek_heist, old.heist_deck, new.heist_deck)
    gangster = _look(p.peek_gangster, old.gangster_deck, new.gangster_deck)
    if (heist, gangster) == (p.peek_heist, p.peek_gangster):
        return p
    return msgspec.structs.replace(p, peek_heist=heist, peek_gangster=gangster)


def _look(card: int | None, old: tuple[int, ...], new: tuple[int, ...]) -> int | None:
    if card is None:
        return None
    if old[:1] == (card,):
        return new[0]
    return None if new[:1] == (card,) else card
