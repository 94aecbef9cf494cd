"""What a seat may see of a Gangsta! game, and events as a seat may see them while it runs.

Public: rows, gangs (each gangster's state and learned skill), money, chapter, deck sizes,
discard piles (their cards were face up), revealed snitches, how many heists each player
completed; with the resources module every kept card once all have chosen, whether it is
active, and 911's hospital. Hidden until the end: deck order, the seed, and which heists (so how
much influence) other players completed, unless the option public_heist_influence is on
(docs/gangsta.md). Hidden from everyone but its owner: the two resource cards dealt, the kept
one until all have chosen, and a deck top seen with 910 or 912 until it is taken or in a row.
"""

from __future__ import annotations

import msgspec

from domain.core import Result, without_secret
from domain.gangsta import cards, resources
from domain.gangsta.messages import (
    Event,
    GameStarted,
    GangsterPeeked,
    HeistPeeked,
    Options,
    Owed,
    ResourceKept,
)
from domain.gangsta.queries import to_act
from domain.gangsta.state import Member, State, domination_snitches_revealed, gang_skills


class PlayerView(msgspec.Struct, frozen=True):
    seat: int
    boss: int
    clan: str
    gang: tuple[Member, ...]
    skills: tuple[int, ...]  # the gang's skill totals, in the order of cards.SKILLS
    money: int
    heists_completed: int
    heists: tuple[int, ...] | None  # None when hidden from the viewer
    heist_influence: int | None  # None when hidden from the viewer
    # Resources module
    dealt: tuple[int, ...]  # the viewer's own two cards while choosing; empty otherwise
    resource_chosen: bool
    resource: int | None  # None while face down to the viewer (or none kept)
    resource_active: bool
    resource_discarded: bool
    hospital: tuple[int, ...]
    peek_heist: int | None  # the viewer's own 910 look at the heist deck, while still on top
    peek_gangster: int | None  # the viewer's own 912 look at the gangster deck


class View(msgspec.Struct, frozen=True):
    seat: int | None  # None: a spectator
    seats: int
    options: Options
    commitment: str
    skills: tuple[str, ...]
    chapter: int
    stage: str
    active: int
    to_act: tuple[int, ...]
    extra_turn: bool
    free_readies: int
    players: tuple[PlayerView, ...]
    heist_row: tuple[int, ...]
    market: tuple[int, ...]
    gangster_deck: int  # sizes only: the order is secret
    gangster_discard: tuple[int, ...]
    heist_decks: tuple[int, ...]  # size of each chapter's deck
    heist_discard: tuple[int, ...]
    snitches: tuple[int, ...]  # revealed, set aside
    domination_snitches: int  # revealed so far (the game ends at the third)
    heist: int | None  # the heist being committed to or rewarded
    committed: tuple[int, ...]
    rewards: tuple[str, ...]  # special rewards still to resolve, first is current
    diversions_left: int
    owed: tuple[Owed, ...]
    jets: tuple[int, ...]  # seats owing a 905 Private jet decision
    ignored: str | None  # 907: the skill ignored in the current heist
    from_deck: bool  # 910: the current heist came from the top of the deck
    result: Result | None


def _player(state: State, seat: int, viewer: int | None) -> PlayerView:
    p = state.players[seat]
    own = seat == viewer
    shown = own or state.options.public_heist_influence or state.stage == "over"
    return PlayerView(
        seat=seat,
        boss=p.boss,
        clan=cards.GANGSTERS[p.boss].clan,
        gang=p.gang,
        skills=tuple(gang_skills(p.gang)),
        money=p.money,
        heists_completed=len(p.heists),
        heists=p.heists if shown else None,
        heist_influence=sum(cards.HEISTS[h].influence for h in p.heists) if shown else None,
        dealt=p.dealt if own and state.stage == "resources" else (),
        resource_chosen=p.resource is not None,
        resource=p.resource if own or state.revealed else None,
        resource_active=p.resource_active,
        resource_discarded=p.resource_discarded,
        hospital=p.hospital,
        peek_heist=resources.peeked_heist(state, seat) if own else None,
        peek_gangster=resources.peeked_gangster(state, seat) if own else None,
    )


def view(state: State, seat: int | None) -> View:
    return View(
        seat=seat,
        seats=state.seats,
        options=state.options,
        commitment=state.commitment,
        skills=cards.SKILLS,
        chapter=state.chapter,
        stage=state.stage,
        active=state.active,
        to_act=tuple(sorted(to_act(state))),
        extra_turn=state.extra_turn,
        free_readies=state.free_readies,
        players=tuple(_player(state, s, seat) for s in range(state.seats)),
        heist_row=state.heist_row,
        market=state.market,
        gangster_deck=len(state.gangster_deck),
        gangster_discard=state.gangster_discard,
        heist_decks=tuple(len(d) for d in state.heist_decks),
        heist_discard=state.heist_discard,
        snitches=state.snitches,
        domination_snitches=domination_snitches_revealed(state),
        heist=state.heist,
        committed=state.committed,
        rewards=state.rewards,
        diversions_left=state.diversions_left,
        owed=state.owed,
        jets=state.jets,
        ignored=state.ignored,
        from_deck=state.from_deck,
        result=state.result,
    )


def ended_view(state: State, seat: int | None) -> View:
    """The view of a game the table ended (a concession, a time-out, a draw): over, with no
    decision owed, and every player's heists shown, as at the end by the rules."""
    return view(msgspec.structs.replace(state, stage="over", owed=(), jets=()), seat)


_PRIVATE = (ResourceKept, HeistPeeked, GangsterPeeked)


def redact(event: Event, seat: int | None) -> Event:
    """The creation event holds the seed; a kept resource card (until the reveal event, which
    shows them all) and a deck top seen with 910 or 912 belong to their owner only. Which
    heist a player completed stays in history: the card lay face up in the row, so every player
    at a table saw it taken (docs/gangsta.md); views never add up another player's influence."""
    if isinstance(event, _PRIVATE) and event.seat != seat:
        return msgspec.structs.replace(event, card=None)
    return without_secret(event, GameStarted)
