"""The fold of a heist's special rewards into state (GANGSTA.md, Special rewards): which
rewards a completed heist brings, in the order of docs/gangsta.md, and each reward's event."""

from __future__ import annotations

from typing import assert_never

import msgspec

from domain.core import HistoryMismatch
from domain.gangsta import cards
from domain.gangsta.messages import (
    AssassinationOrdered,
    GangRallied,
    GangsterDiverted,
    MoneyStolen,
    Owed,
    PlayAgain,
    Reward,
    RewardSkipped,
    SkillLearned,
)
from domain.gangsta.state import State, locate, money, replace, set_engaged, with_members


def rewards_of(heist: cards.Heist) -> tuple[Reward, ...]:
    """The special rewards to resolve, in this order (docs/gangsta.md)."""
    flags: tuple[tuple[Reward, bool], ...] = (
        ("fast_recruit", heist.fast_recruit),
        ("learn_skill", heist.learn_skill is not None),
        ("theft", heist.theft > 0),
        ("diversion", heist.diversion > 0),
        ("assassination", heist.assassination),
        ("rally", heist.rally),
        ("play_again", heist.play_again),
    )
    return tuple(name for name, present in flags if present)


def reward_done(s: State) -> State:
    """The head reward is resolved: the next one, or the end of the turn."""
    rewards = s.rewards[1:]
    if rewards:
        return replace(s, rewards=rewards)
    return replace(s, rewards=(), heist=None, committed=(), diversions_left=0, stage="end")


def _skill_learned(s: State, e: SkillLearned) -> State:
    where = locate(s, e.gangster)
    if where is None:
        raise HistoryMismatch(f"gangster {e.gangster} is in no gang")
    m = s.players[where[0]].gang[where[1]]
    players = with_members(s, {e.gangster: msgspec.structs.replace(m, learned=e.skill)})
    return reward_done(replace(s, players=players))


def _money_stolen(s: State, e: MoneyStolen) -> State:
    deltas = [0] * s.seats
    deltas[e.seat] += e.amount
    deltas[e.target] -= e.amount
    return reward_done(replace(s, players=money(s.players, deltas)))


def _gangster_diverted(s: State, e: GangsterDiverted) -> State:
    s = replace(
        s, players=set_engaged(s, (e.gangster,), True), diversions_left=s.diversions_left - 1
    )
    return reward_done(s) if s.diversions_left == 0 else s


def _assassination_ordered(s: State, e: AssassinationOrdered) -> State:
    owed = (*s.owed, Owed(seat=e.target, chooser=e.target, reason="assassination"))
    return reward_done(replace(s, owed=owed))


def _gang_rallied(s: State, e: GangRallied) -> State:
    gang = tuple(m.card for m in s.players[e.seat].gang)
    return reward_done(replace(s, players=set_engaged(s, gang, False)))


def _play_again(s: State, e: PlayAgain) -> State:
    return reward_done(replace(s, play_again=e.granted))


def _reward_skipped(s: State, _: RewardSkipped) -> State:
    return reward_done(s)


RewardEvent = (
    SkillLearned
    | MoneyStolen
    | GangsterDiverted
    | AssassinationOrdered
    | GangRallied
    | PlayAgain
    | RewardSkipped
)


def fold(s: State, e: RewardEvent) -> State:
    """``evolve`` for the special rewards' events."""
    match e:
        case RewardSkipped():
            return _reward_skipped(s, e)
        case GangsterDiverted():
            return _gangster_diverted(s, e)
        case MoneyStolen():
            return _money_stolen(s, e)
        case PlayAgain():
            return _play_again(s, e)
        case SkillLearned():
            return _skill_learned(s, e)
        case GangRallied():
            return _gang_rallied(s, e)
        case AssassinationOrdered():
            return _assassination_ordered(s, e)
        case _:
            assert_never(e)
