"""The greedy Gangsta! bot: one-move lookahead on the seat's view (GANGSTA.md).

Values are in victory points: influence counts in full, money about half (a gangster costs ~$5
for ~2 influence, and the richest player gets 2 points) while the gang holds less than $12 and a
tenth beyond, a skill about a third (it makes later heists possible), one more gangster half a
point (the chapters, the "most gangsters" bonus, the end at nine).

* Action: a free mobilisation first; then the best of: a heist (its money, influence, cooperation
  money and special reward, minus the gangsters it engages; plus, when it engages all that are
  left, the synchronisation that makes the whole gang Available next turn), a hire (the
  gangster's influence and skills, minus its cost), a paid mobilisation that opens a better
  heist, or passing (the Leader income). A cooperative heist the gang cannot do alone counts
  with the other players' Available gangsters (engaging them is no loss to this seat).
* Committing: the gangster covering most of what is still needed, own ones first, the least
  skilled first (the versatile stay Available).
* Rewards: the best gangster, the largest theft from the richest opponent, the most skilled
  opponent's gangster to divert.
* Discards: the least valuable own gangster; for an opponent (double-Mercenary gang war) the
  most valuable. After a pass, the row card most useful to the next player.
* Resources module: keep the card with the most influence for the fewest skills still missing;
  Headquarters when the whole gang Available opens a better heist; 907's ignore always; 905 and
  908 ready the most skilled gangster unless that would spoil a synchronisation (every gangster
  Engaged); 911's gangsters always come back; the deck tops of 910 and 912 like row cards.
"""

from __future__ import annotations

from domain.bots.scoring import best
from domain.gangsta import cards
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
    Headquarters,
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
from domain.gangsta.state import Member, skills_of
from domain.gangsta.view import View
from domain.rng import Rng

MONEY = 0.5
# Money beyond what a gang can spend soon buys nothing but the "most money" bonus: worth a
# tenth. Without this, three Leaders' pass income outweighed every hire and rich greedy gangs
# passed for ever.
RICH = 12
SPARE_MONEY = MONEY / 10
INFLUENCE = 1.0
SKILL = 0.35
GANGSTER = 0.5
ENGAGED = 0.3  # a gangster engaged by a heist is unavailable for a while
SYNCHRONISED = 0.6  # per gangster, when a heist engages the last Available ones
REWARDS = {
    "fast_recruit": 1.0,
    "learn_skill": SKILL,
    "play_again": 3.0,
    "assassination": 1.0,
    "rally": 1.5,
}
DENIAL = 0.5  # a card taken from the next player's reach, against keeping the row as it is
FREE_READY = 100.0  # always take a free mobilisation
IGNORE = 5.0  # 907: one skill fewer to cover, never a loss
MISSING = 0.4  # per required skill a resource card still lacks (it may never activate)
MEDIA = 3.0  # 906's influence, counted by heists later
NOTHING = -1e9


def greedy(view: View, legal: list[Command], rng: Rng) -> Command:
    assert view.seat is not None, "a bot plays a seat"
    me = view.players[view.seat]
    money = MONEY if me.money < RICH else SPARE_MONEY
    available = [m for m in me.gang if not m.engaged]
    best_heist = max(
        (heist_value(cards.HEISTS[h], available) for h in view.heist_row), default=NOTHING
    )

    def score(command: Command) -> float:
        if isinstance(command, Ready):
            if view.free_readies > 0:
                return FREE_READY
            readied = [*available, _member(me.gang, command.gangster)]
            gain = max(
                (heist_value(cards.HEISTS[h], readied) for h in view.heist_row), default=NOTHING
            )
            return gain - money if gain > best_heist else NOTHING
        if isinstance(command, ChooseHeist):
            heist = cards.HEISTS[command.heist]
            alone = heist_value(heist, available)
            if alone == NOTHING and heist.cooperative:
                alone = cooperative_value(view, heist, available)
            if alone == NOTHING:  # possible only with 907's ignore
                alone = heist_value(heist, available, ignore=True)
            # 910: the deck's top heist costs $1.
            return alone - (MONEY if command.heist not in view.heist_row else 0.0)
        if isinstance(command, Headquarters):
            gain = max(
                (heist_value(cards.HEISTS[h], list(me.gang)) for h in view.heist_row),
                default=NOTHING,
            )
            return gain - MONEY if gain > best_heist else NOTHING
        if isinstance(command, KeepResource):
            return resource_value(me.skills, command.card)
        if isinstance(command, IgnoreSkill):
            return IGNORE
        if isinstance(command, PrivateJet | SecretSociety):
            if all(m.engaged for m in me.gang):  # readying one spoils the synchronisation
                return -1.0
            return 1.0 + 0.1 * sum(skills_of(_member(me.gang, command.gangster)))
        if isinstance(command, Discharge):
            return 1.0
        if isinstance(command, Hire | FastRecruit):
            card = cards.GANGSTERS[command.gangster]
            return gangster_value(card) - money * card.cost
        if isinstance(command, Pass):
            return money * me.skills[cards.LEADER] - GANGSTER
        if isinstance(command, Commit):
            return commit_value(view, command.gangster)
        if isinstance(command, CancelHeist):
            return NOTHING
        if isinstance(command, Theft):
            return command.amount + 0.01 * view.players[command.target].money
        if isinstance(command, Diversion):
            owner = _owner(view, command.gangster)
            return sum(skills_of(_member(view.players[owner].gang, command.gangster)))
        if isinstance(command, LearnSkill):
            return 1.0
        if isinstance(command, Assassination):
            return 1.0 + 0.01 * len(view.players[command.target].gang)
        if isinstance(command, Discard):
            owner = _owner(view, command.gangster)
            worth = member_value(_member(view.players[owner].gang, command.gangster))
            return -worth if owner == view.seat else worth
        if isinstance(command, DiscardRowCard):
            return DENIAL * denial_value(view, command.card)
        return 0.0  # skip

    return best(legal, score, rng)


def denial_value(view: View, card: int) -> float:
    """What a row card is worth to the next player (who moves before this seat again)."""
    assert view.seat is not None
    after = view.players[(view.seat + 1) % view.seats]
    if card in cards.HEISTS:
        ready = [m for m in after.gang if not m.engaged]
        return max(0.0, heist_value(cards.HEISTS[card], ready))
    gangster = cards.GANGSTERS[card]
    if gangster.cost > after.money:
        return 0.0
    return max(0.0, gangster_value(gangster) - MONEY * gangster.cost)


def resource_value(skills: tuple[int, ...], card: int) -> float:
    """A resource card to keep: its influence, less for each required skill still missing."""
    resource = cards.RESOURCES[card]
    missing = sum(max(0, n - h) for n, h in zip(resource.requires, skills, strict=True))
    influence = MEDIA if resource.max_influence else resource.influence
    return INFLUENCE * influence - MISSING * missing


def gangster_value(card: cards.Gangster) -> float:
    return INFLUENCE * card.influence + SKILL * sum(card.skills) + GANGSTER


def member_value(member: Member) -> float:
    return gangster_value(cards.GANGSTERS[member.card]) + SKILL * (member.learned is not None)


def heist_value(heist: cards.Heist, available: list[Member], ignore: bool = False) -> float:
    """The heist's rewards minus the gangsters it would engage (NOTHING if these cannot do
    it alone; a cooperative heist may still be possible with others' help). ``ignore``: one
    required skill fewer, the one that leaves the fewest gangsters to engage (907)."""
    if ignore:
        options = [
            cover(tuple(max(0, n - (i == k)) for i, n in enumerate(heist.requires)), available)
            for k, n in enumerate(heist.requires)
            if n
        ]
        found = [x for x in options if x is not None]
        needed = min(found) if found else None
    else:
        needed = cover(heist.requires, available)
    if needed is None:
        return NOTHING
    special = sum(v for k, v in REWARDS.items() if has_reward(heist, k))
    special += MONEY * heist.theft + 0.5 * heist.diversion
    # Engaging every gangster still Available means the whole gang is Available again at the
    # start of the next turn (synchronisation), for free.
    engaged = -SYNCHRONISED if needed == len(available) else ENGAGED
    return (
        MONEY * (heist.money + heist.coop_money)
        + INFLUENCE * heist.influence
        + special
        - engaged * needed
    )


def cooperative_value(view: View, heist: cards.Heist, available: list[Member]) -> float:
    """A cooperative heist the gang cannot do alone: its own gangsters first, then others'
    (each helper's player gets the cooperation money too)."""
    assert view.seat is not None
    needed = list(heist.requires)
    own = 0
    for member in available:
        if any(min(n, s) for n, s in zip(needed, skills_of(member), strict=True)):
            needed = [max(0, n - s) for n, s in zip(needed, skills_of(member), strict=True)]
            own += 1
    helpers = [m for p in view.players if p.seat != view.seat for m in p.gang if not m.engaged]
    if own == 0 or cover(tuple(needed), helpers) is None:
        return NOTHING
    return MONEY * (heist.money + heist.coop_money) + INFLUENCE * heist.influence - ENGAGED * own


def cover(requires: tuple[int, ...], available: list[Member]) -> int | None:
    """How many of these gangsters a heist engages when each next one covers the most of what
    is still needed; None if they cannot cover it."""
    needed = list(requires)
    pool = list(available)
    used = 0
    while any(needed):
        gains = [sum(min(n, s) for n, s in zip(needed, skills_of(m), strict=True)) for m in pool]
        if not gains or max(gains) == 0:
            return None
        pick = pool.pop(gains.index(max(gains)))
        needed = [max(0, n - s) for n, s in zip(needed, skills_of(pick), strict=True)]
        used += 1
    return used


def commit_value(view: View, gangster: int) -> float:
    assert view.heist is not None
    needed = list(cards.HEISTS[view.heist].requires)
    for card in view.committed:
        owner = _owner(view, card)
        skills = skills_of(_member(view.players[owner].gang, card))
        needed = [max(0, n - s) for n, s in zip(needed, skills, strict=True)]
    owner = _owner(view, gangster)
    skills = skills_of(_member(view.players[owner].gang, gangster))
    covered = sum(min(n, s) for n, s in zip(needed, skills, strict=True))
    return 10.0 * covered - sum(skills) - (0.0 if owner == view.seat else 0.5)


def has_reward(heist: cards.Heist, reward: str) -> bool:
    if reward == "learn_skill":
        return heist.learn_skill is not None
    return bool(getattr(heist, reward))


def _member(gang: tuple[Member, ...], card: int) -> Member:
    return next(m for m in gang if m.card == card)


def _owner(view: View, card: int) -> int:
    return next(p.seat for p in view.players if any(m.card == card for m in p.gang))
