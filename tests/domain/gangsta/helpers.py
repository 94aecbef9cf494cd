"""Explicit Gangsta! states for scenario tests, and running commands against them.

``build`` lays out a game exactly as asked (gangs, money, rows, chapter, deck tops) and keeps
every card in exactly one place: cards not named stay in their decks in id order, Bosses not
dealt and earlier chapters' heists are out of the game.
"""

from __future__ import annotations

from typing import Any

import msgspec

from domain.core import RuleViolation
from domain.gangsta import cards, game
from domain.gangsta.messages import Options
from domain.gangsta.state import Member, Player, State
from domain.play import secret_for

Gang = list[int | Member]


def started(seats: int = 2, options: dict[str, Any] | None = None, n: int = 1) -> State:
    state = None
    for event in game.start(seats, secret_for(n), game.options(options)):
        state = game.evolve(state, event)
    assert state is not None
    return state


def member(card: int, engaged: bool = False, learned: str | None = None) -> Member:
    return Member(card=card, engaged=engaged, learned=learned)


def build(
    gangs: list[Gang],
    money: list[int] | None = None,
    *,
    heists: list[list[int]] | None = None,
    heist_row: list[int] | None = None,
    market: list[int] | None = None,
    chapter: int = 1,
    active: int = 0,
    stage: str = "turn",
    free_readies: int = 0,
    heist_top: list[int] | None = None,
    later_tops: dict[int, list[int]] | None = None,
    gangster_top: list[int] | None = None,
    heist_discard: list[int] | None = None,
    gangster_discard: list[int] | None = None,
    snitches: list[int] | None = None,
    options: dict[str, Any] | Options | None = None,
    extra_turn: bool = False,
    rest_in_decks: bool = True,
) -> State:
    """A state at the start of ``active``'s action choice (stage ``turn``) unless told.
    ``heist_top`` is the top of the current chapter's deck, ``later_tops`` of later chapters'.
    ``rest_in_decks=False`` leaves the current decks holding only the named tops (the other
    cards are out of the game), to test running out."""
    seats = len(gangs)
    base = started(seats)
    opts = options if isinstance(options, Options) else game.options(options)
    players = []
    for i, gang in enumerate(gangs):
        members = tuple(m if isinstance(m, Member) else Member(m) for m in gang)
        players.append(
            Player(
                boss=members[0].card,
                gang=members,
                money=(money or [10] * seats)[i],
                heists=tuple((heists or [[]] * seats)[i]),
            )
        )
    heist_row = heist_row if heist_row is not None else []
    market = market if market is not None else []
    named = (
        [m.card for p in players for m in p.gang]
        + [h for p in players for h in p.heists]
        + heist_row
        + market
        + (heist_top or [])
        + [c for top in (later_tops or {}).values() for c in top]
        + (gangster_top or [])
        + (heist_discard or [])
        + (gangster_discard or [])
        + (snitches or [])
    )
    twice = sorted({c for c in named if named.count(c) > 1})
    if twice:
        raise ValueError(f"cards named twice: {twice}")
    used = set(named)
    bosses = {p.boss for p in players}
    if not bosses <= set(cards.BOSS_IDS):
        raise ValueError("each gang starts with its Boss")
    removed = [b for b in cards.BOSS_IDS if b not in bosses]
    decks = []
    for n, deck in enumerate(cards.CHAPTER_DECKS, 1):
        rest = [c for c in deck if c not in used]
        if n < chapter:
            removed += rest
            decks.append(())
        elif n == chapter:
            if not rest_in_decks:
                removed += rest
                rest = []
            decks.append(tuple((heist_top or []) + rest))
        else:
            decks.append(tuple((later_tops or {}).get(n, []) + rest))
    rest = [c for c in cards.HIRABLE_IDS if c not in used]
    if not rest_in_decks:
        removed += rest
        rest = []
    gangster_deck = (gangster_top or []) + rest
    return msgspec.structs.replace(
        base,
        options=opts,
        players=tuple(players),
        chapter=chapter,
        gangster_deck=tuple(gangster_deck),
        gangster_discard=tuple(gangster_discard or []),
        market=tuple(market),
        heist_decks=tuple(decks),
        heist_discard=tuple(heist_discard or []),
        heist_row=tuple(heist_row),
        snitches=tuple(snitches or []),
        removed=tuple(removed),
        stage=stage,
        active=active,
        extra_turn=extra_turn,
        free_readies=free_readies,
    )


def run(state: State, seat: int, command: Any) -> tuple[list[Any], State]:
    """decide, then fold the events; the command must be among legal()."""
    assert command in game.legal(state, seat), (command, game.legal(state, seat))
    events = game.decide(state, seat, command)
    for event in events:
        state = game.evolve(state, event)
    return events, state


def rejected(state: State, seat: int, command: Any) -> str:
    """The code of a refused command (which must not be among legal())."""
    assert command not in game.legal(state, seat)
    try:
        game.decide(state, seat, command)
    except RuleViolation as exc:
        return exc.code
    raise AssertionError(f"{command} was accepted")


def of_type(events: list[Any], kind: type) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]


def money(state: State) -> list[int]:
    return [p.money for p in state.players]


def gang(state: State, seat: int) -> list[int]:
    return [m.card for m in state.players[seat].gang]


def engaged(state: State, card: int) -> bool:
    for p in state.players:
        for m in p.gang:
            if m.card == card:
                return m.engaged
    raise AssertionError(f"{card} is in no gang")


def all_places(state: State) -> list[int]:
    """Every card of the game, wherever it is (a card twice means a bug)."""
    return [
        *state.gangster_deck,
        *state.gangster_discard,
        *state.market,
        *(c for deck in state.heist_decks for c in deck),
        *state.heist_discard,
        *state.heist_row,
        *(m.card for p in state.players for m in p.gang),
        *(c for p in state.players for c in p.hospital),
        *(h for p in state.players for h in p.heists),
        *state.snitches,
        *state.removed,
    ]
