"""Gangsta!'s fast path for search (``domain.search.playout``'s contract): the rules on the full
state without building events twice, and the rollout policy that estimates each seat's reward.

The search state is the game's own ``State`` (``enter`` is the identity): ``to_act``, ``legal``
and ``done`` are the rules' own, and ``step`` is ``rules.play`` (decide's scratch state, folded
once). tests/domain/gangsta/test_playout.py keeps them equal to decide + evolve.

The rollout policy (``choose``) is a cheap greedy on the state, with the greedy bot's values
(domain/bots/gangsta.py) read from tables per card: the best heist by its money, influence and
special reward, the best affordable hire by influence and skills for its cost, a free
mobilisation always, a pass for the Leaders' income otherwise; one random legal command in
``EPSILON`` (exploration). A rollout plays ``DEPTH`` commands, then ``estimate`` values the
standing: each seat's influence so far plus what its money, skills and gang are worth, turned
into a win share (softmax, ``TEMPERATURE`` points) and a margin, the shape of
``domain.search.rewards`` (used as is when the game ended).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Collection
from typing import Any

from domain.bots import gangsta as bot
from domain.core import Result
from domain.gangsta import cards, rules
from domain.gangsta.messages import (
    Assassination,
    CancelHeist,
    ChooseHeist,
    Command,
    Commit,
    Discard,
    DiscardRowCard,
    Discharge,
    Diversion,
    FastRecruit,
    Hire,
    IgnoreSkill,
    KeepResource,
    LearnSkill,
    Pass,
    PrivateJet,
    Ready,
    SecretSociety,
    Theft,
)
from domain.gangsta.queries import needed
from domain.gangsta.queries import to_act as _to_act
from domain.gangsta.state import Member, State, gang_skills, skills_of
from domain.rng import Rng
from domain.search import MARGIN_WEIGHT, rewards

# Commands played by the policy before the standing is estimated (a game lasts ~100-250).
DEPTH = 30
EPSILON = 10  # percent of the policy's choices made uniformly at random
# Points of estimated standing that make one seat's win e (2.7) times as likely as another's.
TEMPERATURE = 3.0

_SKILL_SUM = {g.id: sum(g.skills) for g in cards.GANGSTERS.values()}
_GANGSTER = {g.id: bot.gangster_value(g) for g in cards.GANGSTERS.values()}


def _heist_value(heist: cards.Heist) -> float:
    """The greedy bot's heist value without the gangsters' part (it depends on the gang)."""
    special = sum(v for k, v in bot.REWARDS.items() if bot.has_reward(heist, k))
    special += bot.MONEY * heist.theft + 0.5 * heist.diversion
    engaged = bot.ENGAGED * sum(heist.requires) / 2
    return bot.MONEY * (heist.money + heist.coop_money) + heist.influence + special - engaged


_HEIST = {h.id: _heist_value(h) for h in cards.HEISTS.values()}
_RESOURCE = {
    r.id: float(bot.MEDIA if r.max_influence else r.influence) for r in cards.RESOURCES.values()
}


def enter(state: State) -> State:
    return state


def to_act(s: State) -> Collection[int]:
    return _to_act(s)


def legal(s: State, seat: int) -> list[Command]:
    return rules.legal(s, seat)


def step(s: State, seat: int, command: Command) -> State:
    return rules.play(s, seat, command)


def done(s: State) -> Result | None:
    return s.result


def considered(legal: list[Command]) -> list[Command]:
    """The legal commands but ``cancel_heist`` while there are others: it puts back the heist
    the seat just chose, a position a search values like the one before, so it could choose and
    cancel again and again (seen in 4-player searches)."""
    kept: list[Command] = [c for c in legal if not isinstance(c, CancelHeist)]
    return kept or legal


@functools.lru_cache(maxsize=1 << 15)
def _heist_for(heist: int, available: tuple[Member, ...]) -> float:
    """The greedy bot's value of a heist for these Available gangsters (NOTHING if they
    cannot do it alone)."""
    return bot.heist_value(cards.HEISTS[heist], list(available))


def _available(gang: tuple[Member, ...]) -> tuple[Member, ...]:
    return tuple(m for m in gang if not m.engaged)


def _best_heist(s: State, available: tuple[Member, ...]) -> float:
    return max((_heist_for(h, available) for h in s.heist_row), default=bot.NOTHING)


def _heist_score(s: State, heist: int, available: tuple[Member, ...]) -> float:
    value = _heist_for(heist, available)
    if value == bot.NOTHING:  # with others' gangsters (cooperative) or 907's ignore
        value = _HEIST[heist]
    return value - (0.0 if heist in s.heist_row else bot.MONEY)


def _ready_score(s: State, seat: int, gangster: int) -> float:
    """As the greedy bot: a paid mobilisation only when it opens a better heist."""
    if s.free_readies > 0:
        return bot.FREE_READY
    p = s.players[seat]
    available = _available(p.gang)
    readied = tuple(m for m in p.gang if not m.engaged or m.card == gangster)
    gain = _best_heist(s, readied)
    money = bot.MONEY if p.money < bot.RICH else bot.SPARE_MONEY
    return gain - money if gain > _best_heist(s, available) else bot.NOTHING


def _denial(s: State, seat: int, card: int) -> float:
    """A row card discarded after a pass: what it is worth to the next player (greedy's)."""
    after = s.players[(seat + 1) % s.seats]
    if card in cards.HEISTS:
        return bot.DENIAL * max(0.0, _heist_for(card, _available(after.gang)))
    gangster = cards.GANGSTERS[card]
    if gangster.cost > after.money:
        return 0.0
    return bot.DENIAL * max(0.0, _GANGSTER[card] - bot.MONEY * gangster.cost)


def _score(s: State, seat: int, command: Any, need: list[int] | None) -> float:
    """The policy's value of one legal command (higher is better)."""
    p = s.players[seat]
    kind = type(command)
    money = bot.MONEY if p.money < bot.RICH else bot.SPARE_MONEY
    if kind is ChooseHeist:
        return _heist_score(s, command.heist, _available(p.gang))
    if kind is Hire or kind is FastRecruit:
        return _GANGSTER[command.gangster] - money * cards.GANGSTERS[command.gangster].cost
    if kind is Pass:
        return money * gang_skills(p.gang)[cards.LEADER] - bot.GANGSTER
    if kind is Ready:
        return _ready_score(s, seat, command.gangster)
    if kind is DiscardRowCard:
        return _denial(s, seat, command.card)
    if kind is Commit:
        assert need is not None
        own = any(m.card == command.gangster for m in p.gang)
        member = next(m for q in s.players for m in q.gang if m.card == command.gangster)
        covered = sum(min(n, k) for n, k in zip(need, skills_of(member), strict=True))
        return 10.0 * covered - _SKILL_SUM[command.gangster] - (0.0 if own else 0.5)
    if kind is Discard:
        own = any(m.card == command.gangster for m in p.gang)
        return -_GANGSTER[command.gangster] if own else _GANGSTER[command.gangster]
    if kind is Theft:
        return float(command.amount)
    if kind is Diversion:
        return float(_SKILL_SUM[command.gangster])
    if kind is Assassination or kind is LearnSkill or kind is Discharge:
        return 1.0
    if kind is PrivateJet or kind is SecretSociety:
        return 1.0
    if kind is IgnoreSkill:
        return bot.IGNORE
    if kind is KeepResource:
        return _RESOURCE[command.card]
    if kind is CancelHeist:
        return bot.NOTHING
    return 0.0  # Skip, Headquarters


def choose(s: State, seat: int, options: list[Command], rng: Rng) -> Command:
    """The rollout policy's command for ``seat`` among its legal ``options``."""
    if len(options) == 1:
        return options[0]
    if rng.below(100) < EPSILON:
        return options[rng.below(len(options))]
    need = needed(s) if s.stage == "heist" and not (s.owed or s.jets) else None
    top = -math.inf
    tied: list[Command] = []
    for command in options:
        value = _score(s, seat, command, need)
        if value > top + 1e-9:
            top, tied = value, [command]
        elif value >= top - 1e-9:
            tied.append(command)
    return tied[0] if len(tied) == 1 else tied[rng.below(len(tied))]


def _majority(values: list[float]) -> list[float]:
    top = max(values)
    holders = sum(1 for v in values if v == top)
    return [(2.0 if holders == 1 else 1.0) if v == top else 0.0 for v in values]


def estimate(s: State, weight: float = MARGIN_WEIGHT) -> list[float]:
    """Each seat's reward estimated from the standing of an unfinished game."""
    values = []
    for p in s.players:
        influence: float = sum(cards.GANGSTERS[m.card].influence for m in p.gang)
        influence += sum(cards.HEISTS[h].influence for h in p.heists)
        if p.resource is not None and p.resource_active:
            influence += _RESOURCE[p.resource]
        cash = bot.MONEY * min(p.money, bot.RICH) + bot.SPARE_MONEY * max(0, p.money - bot.RICH)
        values.append(influence + cash + bot.SKILL * sum(gang_skills(p.gang)))
    bonus_money = _majority([float(p.money) for p in s.players])
    bonus_size = _majority([float(len(p.gang)) for p in s.players])
    values = [v + a + b for v, a, b in zip(values, bonus_money, bonus_size, strict=True)]
    top = max(values)
    weights = [math.exp((v - top) / TEMPERATURE) for v in values]
    total = sum(weights)
    scale = max(1.0, max(abs(v) for v in values))
    out = []
    for seat, v in enumerate(values):
        best_other = max(x for other, x in enumerate(values) if other != seat)
        margin = max(-1.0, min(1.0, (v - best_other) / scale))
        out.append((1 - weight) * weights[seat] / total + weight * (1 + margin) / 2)
    return out


def playout(s: State, rng: Rng, margin: float = MARGIN_WEIGHT) -> list[float]:
    """Each seat's reward from ``s``: ``DEPTH`` commands of the policy (the lowest waiting seat
    first, as domain.play), then the game's result if it ended, else the estimate."""
    for _ in range(DEPTH):
        if s.result is not None:
            return rewards(s.result, s.seats, margin)
        seat = min(_to_act(s))
        s = rules.play(s, seat, choose(s, seat, rules.legal(s, seat), rng))
    if s.result is not None:
        return rewards(s.result, s.seats, margin)
    return estimate(s, margin)
