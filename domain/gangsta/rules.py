"""Gangsta!'s rules: options, start, decide, legal, to_act and result (GANGSTA.md).

``decide`` validates a command and returns its events followed by every automatic step that
follows (rewards without a choice, the end of the turn, refills, snitches, chapter changes, the
next turn) up to the next decision. It folds each event into a scratch state as it goes, so the
automatic steps read the state exactly as ``evolve`` will build it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from domain import rng
from domain.core import Result, RuleViolation, Secret, commitment
from domain.gangsta import cards
from domain.gangsta.messages import (
    Assassination,
    AssassinationOrdered,
    CancelHeist,
    CardsDealt,
    ChapterChanged,
    ChooseHeist,
    Commit,
    DeckReshuffled,
    Discard,
    DiscardRowCard,
    Diversion,
    FastRecruit,
    GameEnded,
    GameStarted,
    GangRallied,
    GangsterCommitted,
    GangsterDiscarded,
    GangsterDiverted,
    GangsterHired,
    GangsterReadied,
    GangWar,
    HeistCancelled,
    HeistChosen,
    HeistCompleted,
    Hire,
    LearnSkill,
    MoneyStolen,
    Options,
    Pass,
    PassDiscardSkipped,
    Passed,
    PlayAgain,
    Ready,
    RewardSkipped,
    RowCardDiscarded,
    SkillLearned,
    Skip,
    SnitchRevealed,
    SnitchShuffledBack,
    Theft,
    TurnStarted,
)
from domain.gangsta.state import (
    BOSSES_LABEL,
    DEALING,
    GANGSTERS_ROW,
    HEISTS_ROW,
    ROW_SIZE,
    START_PLAYER_LABEL,
    Member,
    State,
    domination_snitches_revealed,
    evolve,
    gang_skills,
    locate,
    skill_count,
    skills_of,
    snitch_value,
)

MIN_SEATS, MAX_SEATS = 2, 4
CHAPTER_GANG_SIZE = {1: 4, 2: 7}  # a gang this big ends the chapter
END_GANG_SIZE = 9
END_SNITCHES = 3
ASSASSINATION_SKILLS = 2

# The option values of the published game (GANGSTA.md, table of options).
PUBLISHED: dict[str, Any] = {
    "domination_snitches": [3, 3, 3, 4, 4],
    "coop_reward_needs_partner": True,
    "refill": "one_per_row",
    "pass_discard": True,
    "public_heist_influence": False,
    "min_pass_income": 0,
    "catch_up_cash": False,
    "clans": False,
}
PRESETS: dict[str, dict[str, Any]] = {"description": {}, "published": PUBLISHED}


def options(raw: dict[str, Any] | None) -> Options:
    """Validated options. ``preset`` ("description", the default, or "published") sets every
    option first; options named beside it override the preset."""
    raw = dict(raw or {})
    preset = raw.pop("preset", "description")
    if preset not in PRESETS:
        raise RuleViolation(
            "bad_options",
            f"unknown preset {preset!r}; choose one of {sorted(PRESETS)}",
            case="unknown_preset",
            preset=str(preset),
            presets=sorted(PRESETS),
        )
    try:
        opts = msgspec.convert({**PRESETS[preset], **raw}, Options)
    except msgspec.ValidationError as exc:
        raise RuleViolation(
            "bad_options", f"invalid rule options: {exc}", case="invalid", error=str(exc)
        ) from None
    if opts.resources:
        raise RuleViolation(
            "bad_options",
            "resources: the resource cards are not available yet; leave it false",
            case="not_implemented",
            option="resources",
        )
    return opts


# --- Shared queries ------------------------------------------------------------------------


def to_act(state: State) -> set[int]:
    if state.stage == "over":
        return set()
    if state.owed:
        return {o.chooser for o in state.owed}
    return {state.active}


def result(state: State) -> Result | None:
    return state.result


def hire_cost(state: State, seat: int, gangster: int) -> int:
    card = cards.GANGSTERS[gangster]
    boss = cards.GANGSTERS[state.players[seat].boss]
    if state.options.clans and card.clan == boss.clan:
        return max(0, card.cost - 1)
    return card.cost


def _owner_member(state: State, gangster: int) -> tuple[int, Member] | None:
    where = locate(state, gangster)
    if where is None:
        return None
    return where[0], state.players[where[0]].gang[where[1]]


def _committed(state: State) -> list[tuple[int, Member]]:
    """(owner, member) of each gangster committed to the current heist."""
    found = {m.card: (seat, m) for seat, p in enumerate(state.players) for m in p.gang}
    return [found[card] for card in state.committed if card in found]


def _current_heist(state: State) -> cards.Heist:
    if state.heist is None:
        raise RuleViolation("wrong_phase", "No heist is under way.", case="no_heist")
    return cards.HEISTS[state.heist]


def _needed(state: State) -> list[int]:
    """Skills the chosen heist still needs after the committed gangsters."""
    needed = list(_current_heist(state).requires)
    for _, member in _committed(state):
        for i, n in enumerate(skills_of(member)):
            if n:
                needed[i] = max(0, needed[i] - n)
    return needed


def _supplies(member: Member, needed: list[int]) -> bool:
    return any(n and needed[i] for i, n in enumerate(skills_of(member)))


def _heist_possible(state: State, seat: int, heist: cards.Heist) -> bool:
    """Whether the Available gangsters can cover the heist. If they can, any order of commits
    each covering a still-needed skill completes it, so commits never run into a dead end."""
    req = list(heist.requires)
    own = [m for m in state.players[seat].gang if not m.engaged]
    pool = own
    if heist.cooperative:
        if not any(_supplies(m, req) for m in own):
            return False  # the first gangster committed must be the player's own
        pool = [m for p in state.players for m in p.gang if not m.engaged]
    totals = gang_skills(tuple(pool))
    return all(t >= r for t, r in zip(totals, req, strict=True))


def _commit_candidates(state: State, seat: int) -> list[int]:
    heist = _current_heist(state)
    needed = _needed(state)
    players = state.players if heist.cooperative and state.committed else (state.players[seat],)
    return [
        m.card
        for p in players
        for m in p.gang
        if not m.engaged and m.card not in state.committed and _supplies(m, needed)
    ]


def _non_boss(state: State, seat: int) -> list[int]:
    p = state.players[seat]
    return [m.card for m in p.gang if m.card != p.boss]


def _assassination_victims(state: State, seat: int) -> list[int]:
    p = state.players[seat]
    return [
        m.card for m in p.gang if m.card != p.boss and sum(skills_of(m)) == ASSASSINATION_SKILLS
    ]


def _opponents(state: State, seat: int) -> list[int]:
    return [x for x in range(state.seats) if x != seat]


def _learners(state: State, seat: int) -> list[int]:
    skill = _current_heist(state).learn_skill
    return [
        m.card
        for owner, m in _committed(state)
        if owner == seat
        and m.learned is None
        and not (skill == "leader" and skills_of(m)[cards.LEADER])
    ]


# --- Reward choices (listed by legal, checked by decide) -----------------------------------


def _reward_choices(state: State, seat: int, reward: str) -> list[Any]:
    p = state.players[seat]
    if reward == "fast_recruit":
        return [FastRecruit(g) for g in state.market if hire_cost(state, seat, g) <= p.money]
    if reward == "learn_skill":
        return [LearnSkill(g) for g in _learners(state, seat)]
    if reward == "theft":
        most = _current_heist(state).theft
        return [
            Theft(target=t, amount=a)
            for t in _opponents(state, seat)
            for a in range(1, min(most, state.players[t].money) + 1)
        ]
    if reward == "diversion":
        return [
            Diversion(m.card)
            for t in _opponents(state, seat)
            for m in state.players[t].gang
            if not m.engaged
        ]
    if reward == "assassination":
        return [
            Assassination(t) for t in _opponents(state, seat) if _assassination_victims(state, t)
        ]
    return []  # rally and play_again need no choice


# --- Scoring ---------------------------------------------------------------------------------


def _majority_bonus(values: list[int]) -> list[int]:
    """2 to the single highest, 1 to each tied highest (GANGSTA.md, Scoring)."""
    top = max(values)
    holders = [i for i, v in enumerate(values) if v == top]
    bonus = 2 if len(holders) == 1 else 1
    return [bonus if v == top else 0 for v in values]


def _clan_bonus(state: State) -> list[int]:
    """Option clans: each clan's majority (Boss included, at least one gangster) scores like
    "most gangsters" does: 2, or 1 each on a tie."""
    total = [0] * state.seats
    for clan in cards.CLANS:
        counts = [
            sum(1 for m in p.gang if cards.GANGSTERS[m.card].clan == clan) for p in state.players
        ]
        if max(counts) > 0:
            total = [t + b for t, b in zip(total, _majority_bonus(counts), strict=True)]
    return total


def final_scores(state: State, reason: str) -> GameEnded:
    players = state.players
    gang_influence = tuple(sum(cards.GANGSTERS[m.card].influence for m in p.gang) for p in players)
    heist_influence = tuple(sum(cards.HEISTS[h].influence for h in p.heists) for p in players)
    money_bonus = tuple(_majority_bonus([p.money for p in players]))
    sizes = [len(p.gang) for p in players]
    size_bonus = tuple(_clan_bonus(state) if state.options.clans else _majority_bonus(sizes))
    scores = tuple(
        sum(parts)
        for parts in zip(gang_influence, heist_influence, money_bonus, size_bonus, strict=True)
    )
    best = max(scores)
    tied = [i for i in range(len(players)) if scores[i] == best]
    most = max(sizes[i] for i in tied)
    winners = tuple(i for i in tied if sizes[i] == most)
    return GameEnded(
        reason=reason,
        scores=scores,
        winners=winners,
        gang_influence=gang_influence,
        heist_influence=heist_influence,
        money_bonus=money_bonus,
        size_bonus=size_bonus,
        secret=state.secret,
    )


# --- Automatic steps ---------------------------------------------------------------------------


class _Out:
    """Events of one decision, folded into a scratch state as they are emitted."""

    __slots__ = ("events", "state")

    def __init__(self, state: State, events: list[Any] | None = None) -> None:
        self.state = state
        self.events: list[Any] = events or []

    def emit(self, event: Any) -> None:
        self.state = evolve(self.state, event)
        self.events.append(event)


def _snitch(state: State, card: int) -> SnitchRevealed:
    value = snitch_value(state, card)
    payments, discards = [], []
    for seat, p in enumerate(state.players):
        owe = max(0, value - skill_count(p.gang, cards.INFORMANT))
        if p.money >= owe:
            payments.append(owe)
        else:
            payments.append(p.money)
            if _non_boss(state, seat):
                discards.append(seat)
    return SnitchRevealed(
        card=card, informants=value, payments=tuple(payments), discards=tuple(discards)
    )


def _refill(state: State) -> Any | None:
    """The next refill event, or None when the rows are done (GANGSTA.md, end of turn 4)."""
    dealing = state.stage in DEALING
    for row in (HEISTS_ROW, GANGSTERS_ROW):
        heists = row == HEISTS_ROW
        shown = state.heist_row if heists else state.market
        if len(shown) >= ROW_SIZE:
            continue
        full = (
            state.options.refill == "full"
            or state.stage == "setup"
            or (state.stage == "opening" and heists)
        )
        if not full and state.drawn[0 if heists else 1]:
            continue
        deck = state.heist_deck if heists else state.gangster_deck
        if not deck:
            discard = state.heist_discard if heists else state.gangster_discard
            if discard:
                return DeckReshuffled(row=row, size=len(discard))
            continue
        if deck[0] in cards.SNITCHES:
            return SnitchShuffledBack(deck[0]) if dealing else _snitch(state, deck[0])
        take = []
        for card in deck[: ROW_SIZE - len(shown) if full else 1]:
            if card in cards.SNITCHES:
                break
            take.append(card)
        return CardsDealt(row=row, cards=tuple(take))
    return None


def _next_turn(state: State) -> TurnStarted:
    if state.stage == "setup":
        seat, extra = state.start_player, False
    elif state.play_again:
        seat, extra = state.active, True
    else:
        seat, extra = (state.active + 1) % state.seats, False
    gang = state.players[seat].gang
    synchronised = all(m.engaged for m in gang)
    free = 0 if synchronised else sum(skills_of(m)[cards.LEADER] for m in gang if not m.engaged)
    return TurnStarted(seat=seat, extra=extra, synchronised=synchronised, free_readies=free)


def _gang_war(state: State) -> GangWar:
    mercs = tuple(skill_count(p.gang, cards.MERCENARY) for p in state.players)
    best = max(mercs)
    leaders = [i for i, m in enumerate(mercs) if m == best]
    unique = leaders[0] if len(leaders) == 1 else None
    losers = tuple(i for i in range(state.seats) if i != unique and _non_boss(state, i))
    chooser = None
    if (
        state.seats == 2
        and unique is not None
        and losers
        and mercs[unique] >= 2 * mercs[1 - unique]
    ):
        chooser = unique
    return GangWar(mercenaries=mercs, losers=losers, chooser=chooser)


def _end_check(state: State) -> Any | None:
    """End of turn, step 1: chapter change or game end (GANGSTA.md, Chapters)."""
    biggest = max(len(p.gang) for p in state.players)
    if state.chapter == 1 and biggest >= CHAPTER_GANG_SIZE[1]:
        totals = [sum(gang_skills(p.gang)) for p in state.players]
        most = max(totals)
        return ChapterChanged(chapter=2, income=tuple(most - t for t in totals))
    if state.chapter == 2 and biggest >= CHAPTER_GANG_SIZE[2]:
        return _gang_war(state)
    if state.chapter == 3 and biggest >= END_GANG_SIZE:
        return final_scores(state, "nine_gangsters")
    return None


def _advance(out: _Out) -> None:
    """Emit every automatic step until a player owes a decision or the game is over."""
    while True:
        s = out.state
        if s.stage in ("over", "turn", "heist", "pass_discard") or s.owed:
            return
        if s.stage == "reward":
            head = s.rewards[0]
            if head == "rally":
                out.emit(GangRallied(s.active))
            elif head == "play_again":
                out.emit(PlayAgain(seat=s.active, granted=not s.extra_turn))
            elif _reward_choices(s, s.active, head):
                return
            else:
                out.emit(RewardSkipped(seat=s.active, reward=head, forced=True))
        elif s.stage == "end":
            out.emit(_end_check(s) or _refill(s) or _next_turn(s))
        elif s.stage == "gang_war":
            out.emit(ChapterChanged(chapter=3, income=(0,) * s.seats))
        elif s.chapter == 3 and domination_snitches_revealed(s) >= END_SNITCHES:
            out.emit(final_scores(s, "third_snitch"))
        else:  # setup, opening, refill
            out.emit(_refill(s) or _next_turn(s))


def start(seats: int, secret: Secret, opts: Options) -> list[Any]:
    if not MIN_SEATS <= seats <= MAX_SEATS:
        raise RuleViolation(
            "bad_seats",
            f"Gangsta! is for {MIN_SEATS} to {MAX_SEATS} players",
            seats=seats,
            min=MIN_SEATS,
            max=MAX_SEATS,
        )
    if opts.resources:
        raise RuleViolation(
            "bad_options",
            "resources: the resource cards are not available yet",
            case="not_implemented",
            option="resources",
        )
    bosses = tuple(rng.shuffled(secret.seed, BOSSES_LABEL, cards.BOSS_IDS)[:seats])
    first = rng.choice_index(secret.seed, START_PLAYER_LABEL, seats)
    # catch_up_cash: the 2nd, 3rd, 4th player in turn order start with $1, $2, $3 more.
    money = tuple(
        cards.GANGSTERS[b].start_money + (((seat - first) % seats) if opts.catch_up_cash else 0)
        for seat, b in enumerate(bosses)
    )
    started = GameStarted(
        seats=seats,
        options=opts,
        commitment=commitment(secret),
        secret=secret,
        bosses=bosses,
        start_player=first,
        money=money,
    )
    out = _Out(evolve(None, started), [started])
    _advance(out)
    return out.events


# --- decide ----------------------------------------------------------------------------------


def _stage(state: State, *stages: str) -> None:
    if state.stage not in stages:
        raise RuleViolation(
            "wrong_phase", f"That is not possible now (stage: {state.stage}).", stage=state.stage
        )


def _reward_stage(state: State, reward: str) -> None:
    if state.stage != "reward" or state.rewards[0] != reward:
        raise RuleViolation(
            "wrong_phase",
            f"There is no {reward.replace('_', ' ')} to resolve now.",
            case="no_reward",
            reward=reward,
        )


def _own_member(state: State, seat: int, gangster: int) -> Member:
    found = _owner_member(state, gangster)
    if found is None:
        raise RuleViolation(
            "unknown_gangster", f"Gangster {gangster} is in no gang.", gangster=gangster
        )
    if found[0] != seat:
        raise RuleViolation(
            "not_your_gangster", f"Gangster {gangster} is not in your gang.", gangster=gangster
        )
    return found[1]


def _pay(state: State, seat: int, cost: int) -> None:
    if state.players[seat].money < cost:
        raise RuleViolation(
            "cannot_afford",
            f"That costs ${cost}; you have ${state.players[seat].money}.",
            cost=cost,
            money=state.players[seat].money,
        )


def _ready(s: State, seat: int, c: Ready, out: _Out) -> None:
    _stage(s, "turn")
    if not _own_member(s, seat, c.gangster).engaged:
        raise RuleViolation(
            "not_engaged", f"Gangster {c.gangster} is already Available.", gangster=c.gangster
        )
    cost = 0 if s.free_readies > 0 else 1
    _pay(s, seat, cost)
    out.emit(GangsterReadied(seat=seat, gangster=c.gangster, cost=cost))


def _market_hire(s: State, seat: int, gangster: int, fast: bool, out: _Out) -> None:
    if gangster not in s.market:
        raise RuleViolation(
            "not_in_market", f"Gangster {gangster} is not in the market.", gangster=gangster
        )
    cost = hire_cost(s, seat, gangster)
    _pay(s, seat, cost)
    out.emit(GangsterHired(seat=seat, gangster=gangster, cost=cost, fast=fast))


def _hire(s: State, seat: int, c: Hire, out: _Out) -> None:
    _stage(s, "turn")
    _market_hire(s, seat, c.gangster, False, out)


def _choose_heist(s: State, seat: int, c: ChooseHeist, out: _Out) -> None:
    _stage(s, "turn")
    if c.heist not in s.heist_row:
        raise RuleViolation("not_in_row", f"Heist {c.heist} is not in the row.", heist=c.heist)
    if not _heist_possible(s, seat, cards.HEISTS[c.heist]):
        raise RuleViolation(
            "heist_not_possible",
            "Your Available gangsters cannot cover this heist's skills.",
            heist=c.heist,
        )
    out.emit(HeistChosen(seat=seat, heist=c.heist))


def _commit(s: State, seat: int, c: Commit, out: _Out) -> None:
    _stage(s, "heist")
    found = _owner_member(s, c.gangster)
    if found is None:
        raise RuleViolation(
            "unknown_gangster", f"Gangster {c.gangster} is in no gang.", gangster=c.gangster
        )
    owner, member = found
    heist = cards.HEISTS[s.heist]
    if owner != seat and not heist.cooperative:
        raise RuleViolation(
            "not_your_gangster",
            "Only your own gangsters take part in this heist.",
            case="not_cooperative",
            gangster=c.gangster,
        )
    if owner != seat and not s.committed:
        raise RuleViolation(
            "not_your_gangster",
            "The first gangster committed must be your own.",
            case="first_own",
            gangster=c.gangster,
        )
    if c.gangster in s.committed:
        raise RuleViolation(
            "already_committed", f"Gangster {c.gangster} is already committed.", gangster=c.gangster
        )
    if member.engaged:
        raise RuleViolation(
            "not_available", f"Gangster {c.gangster} is Engaged.", gangster=c.gangster
        )
    needed = _needed(s)
    if not _supplies(member, needed):
        raise RuleViolation(
            "skill_not_needed",
            f"Gangster {c.gangster} adds no skill still needed.",
            gangster=c.gangster,
        )
    out.emit(GangsterCommitted(seat=seat, gangster=c.gangster))
    s = out.state
    if any(_needed(s)):
        return
    coop = [0] * s.seats
    if heist.cooperative:
        taking_part = {owner for owner, _ in _committed(s)}
        if len(taking_part) > 1 or not s.options.coop_reward_needs_partner:
            for x in taking_part:
                coop[x] = heist.coop_money
    out.emit(
        HeistCompleted(
            seat=seat,
            heist=heist.id,
            participants=s.committed,
            money=heist.money,
            coop_money=tuple(coop),
        )
    )


def _cancel_heist(s: State, seat: int, _: CancelHeist, out: _Out) -> None:
    _stage(s, "heist")
    out.emit(HeistCancelled(seat=seat, heist=_current_heist(s).id))


def _pass(s: State, seat: int, _: Pass, out: _Out) -> None:
    _stage(s, "turn")
    leaders = skill_count(s.players[seat].gang, cards.LEADER)
    out.emit(Passed(seat=seat, income=max(leaders, s.options.min_pass_income)))


def _discard_row_card(s: State, seat: int, c: DiscardRowCard, out: _Out) -> None:
    _stage(s, "pass_discard")
    if c.card in s.heist_row:
        out.emit(RowCardDiscarded(seat=seat, row=HEISTS_ROW, card=c.card))
    elif c.card in s.market:
        out.emit(RowCardDiscarded(seat=seat, row=GANGSTERS_ROW, card=c.card))
    else:
        raise RuleViolation(
            "not_in_row", f"Card {c.card} is in neither row.", case="rows", card=c.card
        )


def _skip(s: State, seat: int, _: Skip, out: _Out) -> None:
    _stage(s, "pass_discard", "reward")
    if s.stage == "pass_discard":
        out.emit(PassDiscardSkipped(seat))
    else:
        out.emit(RewardSkipped(seat=seat, reward=s.rewards[0], forced=False))


def _fast_recruit(s: State, seat: int, c: FastRecruit, out: _Out) -> None:
    _reward_stage(s, "fast_recruit")
    _market_hire(s, seat, c.gangster, True, out)


def _learn_skill(s: State, seat: int, c: LearnSkill, out: _Out) -> None:
    _reward_stage(s, "learn_skill")
    member = _own_member(s, seat, c.gangster)
    skill = _current_heist(s).learn_skill
    if c.gangster not in s.committed:
        raise RuleViolation(
            "not_participant",
            f"Gangster {c.gangster} did not take part in the heist.",
            gangster=c.gangster,
        )
    if member.learned is not None:
        raise RuleViolation(
            "already_learned",
            f"Gangster {c.gangster} already learned a skill.",
            gangster=c.gangster,
        )
    if skill == "leader" and skills_of(member)[cards.LEADER]:
        raise RuleViolation(
            "second_leader", f"Gangster {c.gangster} is already a Leader.", gangster=c.gangster
        )
    out.emit(SkillLearned(seat=seat, gangster=c.gangster, skill=skill))


def _opponent(s: State, seat: int, target: int) -> None:
    if target == seat or not 0 <= target < s.seats:
        raise RuleViolation("bad_target", "Choose an opponent.", case="opponent", target=target)


def _theft(s: State, seat: int, c: Theft, out: _Out) -> None:
    _reward_stage(s, "theft")
    _opponent(s, seat, c.target)
    most = min(_current_heist(s).theft, s.players[c.target].money)
    if not 1 <= c.amount <= most:
        raise RuleViolation(
            "bad_amount",
            f"You may take $1 to ${most} from that player.",
            amount=c.amount,
            most=most,
        )
    out.emit(MoneyStolen(seat=seat, target=c.target, amount=c.amount))


def _diversion(s: State, seat: int, c: Diversion, out: _Out) -> None:
    _reward_stage(s, "diversion")
    found = _owner_member(s, c.gangster)
    if found is None or found[0] == seat:
        raise RuleViolation(
            "bad_target", "Divert a gangster of an opponent.", case="diversion", gangster=c.gangster
        )
    if found[1].engaged:
        raise RuleViolation(
            "not_available", f"Gangster {c.gangster} is already Engaged.", gangster=c.gangster
        )
    out.emit(GangsterDiverted(seat=seat, gangster=c.gangster))


def _assassination(s: State, seat: int, c: Assassination, out: _Out) -> None:
    _reward_stage(s, "assassination")
    _opponent(s, seat, c.target)
    if not _assassination_victims(s, c.target):
        raise RuleViolation(
            "bad_target",
            "That player has no non-Boss gangster with exactly 2 skills.",
            case="assassination",
            target=c.target,
        )
    out.emit(AssassinationOrdered(seat=seat, target=c.target))


def _discard_choices(s: State, seat: int) -> tuple[Any, list[int]] | None:
    """The first discard ``seat`` must choose, and the gangsters it may pick."""
    for o in s.owed:
        if o.chooser == seat:
            pool = (
                _assassination_victims(s, o.seat)
                if o.reason == "assassination"
                else _non_boss(s, o.seat)
            )
            return o, pool
    return None


def _discard(s: State, seat: int, c: Discard, out: _Out) -> None:
    found = _discard_choices(s, seat)
    if found is None:
        raise RuleViolation("wrong_phase", "You owe no discard.", case="no_discard")
    owed, pool = found
    if c.gangster not in pool:
        raise RuleViolation(
            "bad_discard",
            f"Gangster {c.gangster} cannot be discarded for this.",
            gangster=c.gangster,
            reason=owed.reason,
        )
    out.emit(
        GangsterDiscarded(seat=owed.seat, gangster=c.gangster, reason=owed.reason, chosen_by=seat)
    )


_HANDLERS: dict[type, Callable[[State, int, Any, _Out], None]] = {
    Ready: _ready,
    Hire: _hire,
    ChooseHeist: _choose_heist,
    Commit: _commit,
    CancelHeist: _cancel_heist,
    Pass: _pass,
    DiscardRowCard: _discard_row_card,
    Skip: _skip,
    FastRecruit: _fast_recruit,
    LearnSkill: _learn_skill,
    Theft: _theft,
    Diversion: _diversion,
    Assassination: _assassination,
    Discard: _discard,
}


def decide(state: State, seat: int, command: Any) -> list[Any]:
    if state.stage == "over":
        raise RuleViolation("game_over", "The game is over.")
    if not isinstance(seat, int) or not 0 <= seat < state.seats:
        raise RuleViolation("bad_seat", f"There is no seat {seat}.", seat=str(seat))
    if seat not in to_act(state):
        raise RuleViolation("not_your_turn", "It is not your turn to decide.")
    handler = _HANDLERS.get(type(command))
    if handler is None:
        raise RuleViolation(
            "unknown_command", "That is not a Gangsta! command.", command=type(command).__name__
        )
    if state.owed and not isinstance(command, Discard):
        raise RuleViolation("wrong_phase", "A discard is owed first.", case="discard_owed")
    out = _Out(state)
    handler(state, seat, command, out)
    _advance(out)
    return out.events


# --- legal -----------------------------------------------------------------------------------


def legal(state: State, seat: int) -> list[Any]:
    if state.stage == "over" or seat not in to_act(state):
        return []
    if state.owed:
        found = _discard_choices(state, seat)
        return [] if found is None else [Discard(g) for g in found[1]]
    p = state.players[seat]
    if state.stage == "turn":
        out: list[Any] = []
        if state.free_readies > 0 or p.money >= 1:
            out += [Ready(m.card) for m in p.gang if m.engaged]
        out += [Hire(g) for g in state.market if hire_cost(state, seat, g) <= p.money]
        out += [
            ChooseHeist(h) for h in state.heist_row if _heist_possible(state, seat, cards.HEISTS[h])
        ]
        out.append(Pass())
        return out
    if state.stage == "heist":
        return [*(Commit(g) for g in _commit_candidates(state, seat)), CancelHeist()]
    if state.stage == "pass_discard":
        return [
            *(DiscardRowCard(c) for c in state.heist_row),
            *(DiscardRowCard(c) for c in state.market),
            Skip(),
        ]
    if state.stage == "reward":
        return [*_reward_choices(state, seat, state.rewards[0]), Skip()]
    return []
