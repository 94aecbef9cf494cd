"""Gangsta!'s special rewards as decisions (GANGSTA.md, Special rewards; docs/gangsta.md
readings 6-10): what ``decide`` checks for each, and a hire from the market (the action, fast
recruitment) or from the top of the deck seen with 912."""

from __future__ import annotations

from domain.core import RuleViolation
from domain.gangsta import cards, resources
from domain.gangsta.flow import Out
from domain.gangsta.messages import (
    Assassination,
    AssassinationOrdered,
    Diversion,
    FastRecruit,
    GangsterDiverted,
    GangsterHired,
    LearnSkill,
    MoneyStolen,
    SkillLearned,
    Theft,
)
from domain.gangsta.queries import (
    assassination_victims,
    current_heist,
    hirable_top,
    hire_cost,
    own_member,
    owner_member,
    pay,
)
from domain.gangsta.state import State, skills_of


def _reward_stage(state: State, reward: str) -> None:
    if state.stage != "reward" or state.rewards[0] != reward:
        raise RuleViolation(
            "wrong_phase",
            f"There is no {reward.replace('_', ' ')} to resolve now.",
            case="no_reward",
            reward=reward,
        )


def market_hire(s: State, seat: int, gangster: int, fast: bool, out: Out) -> None:
    if gangster in s.market:
        cost = hire_cost(s, seat, gangster)
        pay(s, seat, cost)
        out.emit(GangsterHired(seat=seat, gangster=gangster, cost=cost, fast=fast))
    elif not fast and gangster == hirable_top(s, seat):
        cost = resources.peek_cost(s, seat, gangster)
        pay(s, seat, cost)
        out.emit(GangsterHired(seat=seat, gangster=gangster, cost=cost, from_deck=True))
    else:
        raise RuleViolation(
            "not_in_market", f"Gangster {gangster} is not in the market.", gangster=gangster
        )


def fast_recruit(s: State, seat: int, c: FastRecruit, out: Out) -> None:
    _reward_stage(s, "fast_recruit")
    market_hire(s, seat, c.gangster, True, out)


def learn_skill(s: State, seat: int, c: LearnSkill, out: Out) -> None:
    _reward_stage(s, "learn_skill")
    g = c.gangster
    member = own_member(s, seat, g)
    skill = current_heist(s).learn_skill
    assert skill is not None  # a learn_skill reward comes from a heist that names its skill
    if g not in s.committed:
        raise RuleViolation(
            "not_participant", f"Gangster {g} did not take part in the heist.", gangster=g
        )
    if member.learned is not None:
        raise RuleViolation("already_learned", f"Gangster {g} already learned a skill.", gangster=g)
    if skill == "leader" and skills_of(member)[cards.LEADER]:
        raise RuleViolation("second_leader", f"Gangster {g} is already a Leader.", gangster=g)
    out.emit(SkillLearned(seat=seat, gangster=g, skill=skill))


def _opponent(s: State, seat: int, target: int) -> None:
    if target == seat or not 0 <= target < s.seats:
        raise RuleViolation("bad_target", "Choose an opponent.", case="opponent", target=target)


def theft(s: State, seat: int, c: Theft, out: Out) -> None:
    _reward_stage(s, "theft")
    _opponent(s, seat, c.target)
    most = min(current_heist(s).theft, resources.stealable(s, c.target))
    if not 1 <= c.amount <= most:
        raise RuleViolation(
            "bad_amount",
            f"You may take $1 to ${most} from that player.",
            amount=c.amount,
            most=most,
        )
    out.emit(MoneyStolen(seat=seat, target=c.target, amount=c.amount))


def diversion(s: State, seat: int, c: Diversion, out: Out) -> None:
    _reward_stage(s, "diversion")
    found = owner_member(s, c.gangster)
    if found is None or found[0] == seat:
        raise RuleViolation(
            "bad_target", "Divert a gangster of an opponent.", case="diversion", gangster=c.gangster
        )
    if found[1].engaged:
        raise RuleViolation(
            "not_available", f"Gangster {c.gangster} is already Engaged.", gangster=c.gangster
        )
    out.emit(GangsterDiverted(seat=seat, gangster=c.gangster))


def assassination(s: State, seat: int, c: Assassination, out: Out) -> None:
    _reward_stage(s, "assassination")
    _opponent(s, seat, c.target)
    if not assassination_victims(s, c.target):
        raise RuleViolation(
            "bad_target",
            "That player has no non-Boss gangster with exactly 2 skills.",
            case="assassination",
            target=c.target,
        )
    out.emit(AssassinationOrdered(seat=seat, target=c.target))
