"""The fold of the resources module's events into state (evolve.py joins them in)."""

from __future__ import annotations

from typing import assert_never

import msgspec

from domain.core import HistoryMismatch
from domain.gangsta import resources
from domain.gangsta.resources.messages import (
    GangsterPeeked,
    HeadquartersUsed,
    HeistPeeked,
    HospitalDischarged,
    MoneyPrinted,
    PrivateJetUsed,
    ResourceActivated,
    ResourceDiscarded,
    ResourceEvent,
    ResourceKept,
    ResourcesDealt,
    ResourcesRevealed,
    SecretSocietyUsed,
    SkillIgnored,
)
from domain.gangsta.state import (
    Member,
    State,
    add_money,
    after_pass,
    replace,
    set_engaged,
    set_player,
)


def _set(s: State, seat: int, **changes: object) -> State:
    p = msgspec.structs.replace(s.players[seat], **changes)
    return replace(s, players=set_player(s.players, seat, p))


def _resources_dealt(s: State, _: ResourcesDealt) -> State:
    return replace(s, stage="resources")


def _resource_kept(s: State, e: ResourceKept) -> State:
    p = s.players[e.seat]
    if s.stage != "resources" or p.resource is not None or e.card not in p.dealt:
        raise HistoryMismatch(f"seat {e.seat} cannot keep resource {e.card}")
    return _set(s, e.seat, resource=e.card)


def _resources_revealed(s: State, e: ResourcesRevealed) -> State:
    if e.cards != tuple(p.resource for p in s.players):
        raise HistoryMismatch("revealed resources differ from the kept ones")
    return replace(s, revealed=True, stage="setup")


def _resource_activated(s: State, e: ResourceActivated) -> State:
    p = s.players[e.seat]
    if p.resource != e.card or not resources.meets(p):
        raise HistoryMismatch(f"resource {e.card} of seat {e.seat} cannot activate")
    return _set(s, e.seat, resource_active=True)


def _resource_discarded(s: State, e: ResourceDiscarded) -> State:
    return _set(s, e.seat, resource_discarded=True)


def _money_printed(s: State, e: MoneyPrinted) -> State:
    return replace(s, players=add_money(s, e.seat, e.amount))


def _heist_peeked(s: State, e: HeistPeeked) -> State:
    if e.card is None or s.heist_deck[:1] != (e.card,):
        raise HistoryMismatch(f"card {e.card} is not the top of the heist deck")
    return _set(s, e.seat, peek_heist=e.card)


def _gangster_peeked(s: State, e: GangsterPeeked) -> State:
    if e.card is None or s.gangster_deck[:1] != (e.card,):
        raise HistoryMismatch(f"card {e.card} is not the top of the gangster deck")
    return _set(s, e.seat, peek_gangster=e.card)


def _headquarters_used(s: State, e: HeadquartersUsed) -> State:
    gang = tuple(m.card for m in s.players[e.seat].gang)
    s = replace(s, players=set_engaged(s, gang, False), hq_used=True)
    return replace(s, players=add_money(s, e.seat, -e.cost))


def _skill_ignored(s: State, e: SkillIgnored) -> State:
    return replace(s, ignored=e.skill)


def _private_jet_used(s: State, e: PrivateJetUsed) -> State:
    if e.seat not in s.jets:
        raise HistoryMismatch(f"seat {e.seat} owes no private jet decision")
    s = replace(s, jets=tuple(x for x in s.jets if x != e.seat))
    if e.gangster is None:
        return s
    return replace(s, players=set_engaged(s, (e.gangster,), False))


def _secret_society_used(s: State, e: SecretSocietyUsed) -> State:
    s = replace(s, society_done=True)
    if e.gangster is None:
        return s
    return replace(s, players=set_engaged(s, (e.gangster,), False))


def _hospital_discharged(s: State, e: HospitalDischarged) -> State:
    p = s.players[e.seat]
    if e.gangsters and e.gangsters != p.hospital:
        raise HistoryMismatch(f"seat {e.seat}'s hospital holds {list(p.hospital)}")
    gang = p.gang + tuple(Member(card) for card in e.gangsters)
    hospital = () if e.gangsters else p.hospital
    return replace(_set(s, e.seat, gang=gang, hospital=hospital), stage=after_pass(s))


def fold(s: State, e: ResourceEvent) -> State:
    """``evolve`` for the resources module's events."""
    match e:
        case ResourcesDealt():
            return _resources_dealt(s, e)
        case ResourceKept():
            return _resource_kept(s, e)
        case ResourcesRevealed():
            return _resources_revealed(s, e)
        case ResourceActivated():
            return _resource_activated(s, e)
        case ResourceDiscarded():
            return _resource_discarded(s, e)
        case MoneyPrinted():
            return _money_printed(s, e)
        case HeistPeeked():
            return _heist_peeked(s, e)
        case GangsterPeeked():
            return _gangster_peeked(s, e)
        case HeadquartersUsed():
            return _headquarters_used(s, e)
        case SkillIgnored():
            return _skill_ignored(s, e)
        case PrivateJetUsed():
            return _private_jet_used(s, e)
        case SecretSocietyUsed():
            return _secret_society_used(s, e)
        case HospitalDischarged():
            return _hospital_discharged(s, e)
        case _:
            assert_never(e)
