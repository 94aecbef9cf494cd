"""What the Gangsta! rules ask of a state, and the checks that refuse a command: shared by the
commands (rules.py, resources/commands.py), the automatic steps (flow.py) and the views."""

from __future__ import annotations

import functools

from domain.core import RuleViolation
from domain.gangsta import cards, resources
from domain.gangsta.messages import (
    Assassination,
    Command,
    Diversion,
    FastRecruit,
    LearnSkill,
    Owed,
    Theft,
)
from domain.gangsta.state import Member, State, gang_skills, locate, skills_of

ASSASSINATION_SKILLS = 2


def to_act(state: State) -> set[int]:
    """Who owes a decision: every seat still choosing its resource card at set-up; every seat
    owing a discard or a Private jet decision; otherwise the active player."""
    if state.stage == "over":
        return set()
    if state.stage == "resources":
        return {seat for seat, p in enumerate(state.players) if p.resource is None}
    if state.owed or state.jets:
        return {o.chooser for o in state.owed} | set(state.jets)
    return {state.active}


def hire_cost(state: State, seat: int, gangster: int) -> int:
    """A market gangster's price (option clans: $1 less from the Boss's clan)."""
    card = cards.GANGSTERS[gangster]
    boss = cards.GANGSTERS[state.players[seat].boss]
    if state.options.clans and card.clan == boss.clan:
        return max(0, card.cost - 1)
    return card.cost


def owner_member(state: State, gangster: int) -> tuple[int, Member] | None:
    where = locate(state, gangster)
    if where is None:
        return None
    return where[0], state.players[where[0]].gang[where[1]]


def committed(state: State) -> list[tuple[int, Member]]:
    """(owner, member) of each gangster committed to the current heist."""
    if not state.committed:
        return []
    found = {m.card: (seat, m) for seat, p in enumerate(state.players) for m in p.gang}
    return [found[card] for card in state.committed if card in found]


def current_heist(state: State) -> cards.Heist:
    if state.heist is None:
        raise RuleViolation("wrong_phase", "No heist is under way.", case="no_heist")
    return cards.HEISTS[state.heist]


def minus_one(needed: list[int], skill: int) -> list[int]:
    return [max(0, n - 1) if i == skill else n for i, n in enumerate(needed)]


def needed(state: State) -> list[int]:
    """Skills the chosen heist still needs after the committed gangsters (and 907's ignore)."""
    need = list(current_heist(state).requires)
    for _, member in committed(state):
        for i, n in enumerate(skills_of(member)):
            if n:
                need[i] = max(0, need[i] - n)
    if state.ignored is not None:
        need = minus_one(need, cards.SKILL_INDEX[state.ignored])
    return need


def supplies(member: Member, need: list[int] | tuple[int, ...]) -> bool:
    return _supplies(skills_of(member), tuple(need))


# Cached: legal() asks it for every Available gangster at every commit.
@functools.lru_cache(maxsize=1 << 14)
def _supplies(skills: tuple[int, ...], need: tuple[int, ...]) -> bool:
    return any(n and k for n, k in zip(skills, need, strict=True))


def coverable(
    state: State, seat: int, heist: cards.Heist, need: list[int], taken: tuple[int, ...]
) -> bool:
    """Whether the Available gangsters not yet committed (``taken``) can cover ``need``. If they
    can, any order of commits each covering a still-needed skill completes it, so commits never
    run into a dead end. The first gangster of a cooperative heist must be the player's own."""
    own = _free_skills(state.players[seat].gang, taken)
    totals = own
    if heist.cooperative:
        # Some own gangster supplies a needed skill: the own totals hold one.
        if not taken and not any(t and n for t, n in zip(own, need, strict=True)):
            return False
        totals = tuple(
            map(sum, zip(*(_free_skills(p.gang, taken) for p in state.players), strict=True))
        )
    return all(t >= n for t, n in zip(totals, need, strict=True))


# Cached (gangs and ``taken`` are immutable): legal() asks it for every heist in the row.
@functools.lru_cache(maxsize=1 << 14)
def _free_skills(gang: tuple[Member, ...], taken: tuple[int, ...]) -> tuple[int, ...]:
    """The skill totals of the gang's Available gangsters not in ``taken``."""
    return gang_skills(tuple(m for m in gang if not m.engaged and m.card not in taken))


def heist_possible(state: State, seat: int, heist: cards.Heist) -> bool:
    """Coverable as printed, or with 907 ignoring one required skill (never down to a heist
    that nobody performs: it needs 2 skills or more)."""
    return bool(possible_heists(state, seat, (heist.id,)))


def possible_heists(state: State, seat: int, heists: tuple[int, ...]) -> list[int]:
    """The heists of ``heists`` that ``heist_possible`` allows, in order: the gang totals are
    summed once for all of them (legal() asks this for the whole row on every turn)."""
    own = _free_skills(state.players[seat].gang, ())
    everyone: tuple[int, ...] | None = None
    equipped = resources.has(state, seat, "high_tech_eq")
    out = []
    for h in heists:
        heist = cards.HEISTS[h]
        req = heist.requires
        if heist.cooperative:
            # As coverable: some own gangster supplies a needed skill, all together cover it.
            if everyone is None:
                everyone = _all_free(tuple(p.gang for p in state.players))
            ok = any(t and n for t, n in zip(own, req, strict=True)) and _fits(everyone, req)
        else:
            ok = _fits(own, req)
        if ok or (
            equipped
            and resources.high_tech(state, seat, heist)
            and sum(req) >= 2
            and any(
                coverable(state, seat, heist, minus_one(list(req), k), ())
                for k, n in enumerate(req)
                if n
            )
        ):
            out.append(h)
    return out


@functools.lru_cache(maxsize=1 << 14)
def _fits(totals: tuple[int, ...], need: tuple[int, ...]) -> bool:
    return all(t >= n for t, n in zip(totals, need, strict=True))


@functools.lru_cache(maxsize=1 << 14)
def _all_free(gangs: tuple[tuple[Member, ...], ...]) -> tuple[int, ...]:
    """The skill totals of every gang's Available gangsters together."""
    return tuple(map(sum, zip(*(_free_skills(g, ()) for g in gangs), strict=True)))


def commit_candidates(state: State, seat: int) -> list[int]:
    heist = current_heist(state)
    need = tuple(needed(state))
    players = state.players if heist.cooperative and state.committed else (state.players[seat],)
    return [
        m.card
        for p in players
        for m in p.gang
        if not m.engaged and m.card not in state.committed and _supplies(skills_of(m), need)
    ]


def non_boss(state: State, seat: int) -> list[int]:
    p = state.players[seat]
    return [m.card for m in p.gang if m.card != p.boss]


def assassination_victims(state: State, seat: int) -> list[int]:
    p = state.players[seat]
    return [
        m.card for m in p.gang if m.card != p.boss and sum(skills_of(m)) == ASSASSINATION_SKILLS
    ]


def discard_choices(s: State, seat: int) -> tuple[Owed, list[int]] | None:
    """The first discard ``seat`` must choose, and the gangsters it may pick."""
    for o in s.owed:
        if o.chooser == seat:
            pool = (
                assassination_victims(s, o.seat)
                if o.reason == "assassination"
                else non_boss(s, o.seat)
            )
            return o, pool
    return None


def opponents(state: State, seat: int) -> list[int]:
    return [x for x in range(state.seats) if x != seat]


def learners(state: State, seat: int) -> list[int]:
    skill = current_heist(state).learn_skill
    return [
        m.card
        for owner, m in committed(state)
        if owner == seat
        and m.learned is None
        and not (skill == "leader" and skills_of(m)[cards.LEADER])
    ]


def hirable_top(s: State, seat: int) -> int | None:
    """912: the top gangster of the deck the player saw this turn, hirable as the action."""
    return (
        resources.peeked_gangster(s, seat) if resources.has(s, seat, "indicator_network") else None
    )


def doable_top(s: State, seat: int) -> int | None:
    """910: the top heist of the deck the player saw this turn (never a snitch)."""
    card = resources.peeked_heist(s, seat) if resources.has(s, seat, "bikers_gang") else None
    return card if card in cards.HEISTS else None


# --- Checks: each refuses with a RuleViolation -------------------------------------------------


def check_stage(state: State, *stages: str) -> None:
    if state.stage not in stages:
        raise RuleViolation(
            "wrong_phase", f"That is not possible now (stage: {state.stage}).", stage=state.stage
        )


def own_member(state: State, seat: int, gangster: int) -> Member:
    found = owner_member(state, gangster)
    if found is None:
        raise RuleViolation(
            "unknown_gangster", f"Gangster {gangster} is in no gang.", gangster=gangster
        )
    if found[0] != seat:
        raise RuleViolation(
            "not_your_gangster", f"Gangster {gangster} is not in your gang.", gangster=gangster
        )
    return found[1]


def pay(state: State, seat: int, cost: int) -> None:
    money = state.players[seat].money
    if money < cost:
        raise RuleViolation(
            "cannot_afford", f"That costs ${cost}; you have ${money}.", cost=cost, money=money
        )


def reward_choices(state: State, seat: int, reward: str) -> list[Command]:
    """The choices of a special reward (listed by legal, checked by decide); none: skipped."""
    p = state.players[seat]
    if reward == "fast_recruit":
        return [FastRecruit(g) for g in state.market if hire_cost(state, seat, g) <= p.money]
    if reward == "learn_skill":
        return [LearnSkill(g) for g in learners(state, seat)]
    if reward == "theft":
        most = current_heist(state).theft
        return [
            Theft(target=t, amount=a)
            for t in opponents(state, seat)
            for a in range(1, min(most, resources.stealable(state, t)) + 1)
        ]
    if reward == "diversion":
        return [
            Diversion(m.card)
            for t in opponents(state, seat)
            for m in state.players[t].gang
            if not m.engaged
        ]
    if reward == "assassination":
        return [Assassination(t) for t in opponents(state, seat) if assassination_victims(state, t)]
    return []  # rally and play_again need no choice
