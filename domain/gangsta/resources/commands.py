"""The resources module's decisions (docs/gangsta.md, "Resources module"): what ``legal`` lists
and what ``decide`` checks for keeping a card at set-up, 903 Headquarters, 905 Private jet,
907 High tech equipment, 908 Secret society and 911 Hospital, and their ``skip``. 910's heist
and 912's hire are the ordinary ``choose_heist`` and ``hire`` commands (rules.py)."""

from __future__ import annotations

from domain.core import RuleViolation
from domain.gangsta import cards, resources
from domain.gangsta.messages import (
    Command,
    Discharge,
    Event,
    Headquarters,
    HeadquartersUsed,
    HospitalDischarged,
    IgnoreSkill,
    KeepResource,
    PrivateJet,
    PrivateJetUsed,
    ResourceKept,
    SecretSociety,
    SecretSocietyUsed,
    Skip,
)
from domain.gangsta.queries import (
    check_stage,
    coverable,
    current_heist,
    minus_one,
    needed,
    own_member,
    pay,
)
from domain.gangsta.state import State


def _missing(ability: str) -> RuleViolation:
    # Named by its ability, never by a card id: another player may hold (or have discarded) it.
    return RuleViolation(
        "no_resource", f"You have no active {ability.replace('_', ' ')} card.", ability=ability
    )


# --- Set-up: keep one of two ---------------------------------------------------------------


def keep_choices(state: State, seat: int) -> list[Command]:
    p = state.players[seat]
    return [KeepResource(c) for c in p.dealt] if p.resource is None else []


def keep(state: State, seat: int, c: KeepResource) -> list[Event]:
    check_stage(state, "resources")
    if c.card not in state.players[seat].dealt:
        # The same answer for any card not dealt to this seat: it tells nothing of the others.
        raise RuleViolation("not_dealt", f"Resource {c.card} was not dealt to you.", card=c.card)
    return [ResourceKept(seat=seat, card=c.card)]


# --- 903 Headquarters ------------------------------------------------------------------------


def headquarters_possible(state: State, seat: int) -> bool:
    return (
        state.stage == "turn"
        and not state.hq_used
        and resources.has(state, seat, "hq")
        and state.players[seat].money >= resources.HEADQUARTERS_COST
        and any(m.engaged for m in state.players[seat].gang)
    )


def headquarters(state: State, seat: int, _: Headquarters) -> list[Event]:
    check_stage(state, "turn")
    if not resources.has(state, seat, "hq"):
        raise _missing("headquarters")
    if state.hq_used:
        raise RuleViolation("already_used", "Headquarters was used this turn.", ability="hq")
    if not any(m.engaged for m in state.players[seat].gang):
        raise RuleViolation(
            "not_engaged", "Your whole gang is already Available.", case="whole_gang"
        )
    pay(state, seat, resources.HEADQUARTERS_COST)
    return [HeadquartersUsed(seat=seat, cost=resources.HEADQUARTERS_COST)]


# --- 905 Private jet, 908 Secret society: one Engaged gangster becomes Available -----------


def jet_choices(state: State, seat: int) -> list[Command]:
    if seat not in state.jets:
        return []
    return [*(PrivateJet(g) for g in resources.engaged_of(state, seat)), Skip()]


def private_jet(state: State, seat: int, c: PrivateJet) -> list[Event]:
    if seat not in state.jets:
        raise RuleViolation(
            "wrong_phase", "You owe no private jet decision.", case="no_private_jet"
        )
    if not own_member(state, seat, c.gangster).engaged:
        raise RuleViolation(
            "not_engaged", f"Gangster {c.gangster} is already Available.", gangster=c.gangster
        )
    return [PrivateJetUsed(seat=seat, gangster=c.gangster)]


def society_choices(state: State) -> list[Command]:
    if not resources.society_pending(state):
        return []
    leaders = resources.engaged_of(state, state.active, leaders_only=True)
    return [*(SecretSociety(g) for g in leaders), Skip()]


def secret_society(state: State, seat: int, c: SecretSociety) -> list[Event]:
    if not resources.society_pending(state):
        raise RuleViolation(
            "wrong_phase", "There is no secret society decision now.", case="no_secret_society"
        )
    if c.gangster not in resources.engaged_of(state, seat, leaders_only=True):
        raise RuleViolation(
            "bad_target",
            f"Gangster {c.gangster} is not an Engaged Leader of yours.",
            case="engaged_leader",
            gangster=c.gangster,
        )
    return [SecretSocietyUsed(seat=seat, gangster=c.gangster)]


# --- 907 High tech equipment ------------------------------------------------------------------


def ignore_choices(state: State, seat: int) -> list[Command]:
    """One unit of a still-needed skill, if the rest can then still be covered; never before
    a gangster is committed when it would leave nothing to do (someone performs the heist)."""
    if state.stage != "heist" or state.ignored is not None:
        return []
    heist = current_heist(state)
    if not resources.high_tech(state, seat, heist):
        return []
    need = needed(state)
    if not state.committed and sum(need) < 2:
        return []
    return [
        IgnoreSkill(cards.SKILLS[k])
        for k, n in enumerate(need)
        if n and coverable(state, seat, heist, minus_one(need, k), state.committed)
    ]


def check_ignore(state: State, seat: int, c: IgnoreSkill) -> None:
    check_stage(state, "heist")
    if not resources.has(state, seat, "high_tech_eq"):
        raise _missing("high_tech_eq")
    if not resources.high_tech(state, seat, current_heist(state)):
        raise RuleViolation(
            "wrong_phase",
            "High tech equipment works only on an Art theft or a Hack attack.",
            case="high_tech",
            heist=state.heist,
        )
    if c not in ignore_choices(state, seat):
        raise RuleViolation(
            "skill_not_needed",
            f"{c.skill} cannot be ignored in this heist now.",
            case="ignore",
            skill=c.skill,
        )


# --- 911 Hospital ------------------------------------------------------------------------------


def discharge(state: State, seat: int, _: Discharge) -> list[Event]:
    check_stage(state, "hospital")
    return [HospitalDischarged(seat=seat, gangsters=state.players[seat].hospital)]


# --- skip: declining an ability --------------------------------------------------------------


def skip(state: State, seat: int) -> Event | None:
    """The event of declining the ability this seat is asked about, if it is one of these."""
    if seat in state.jets:
        return PrivateJetUsed(seat=seat, gangster=None)
    if state.stage == "hospital":
        return HospitalDischarged(seat=seat, gangsters=())
    if resources.society_pending(state):
        return SecretSocietyUsed(seat=seat, gangster=None)
    return None
