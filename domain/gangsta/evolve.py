"""Gangsta!'s ``evolve``: the pure fold of events into state (state.py).

Every event that reveals cards is checked against the decks recomputed from the seed; an event
that contradicts the state raises HistoryMismatch. ``evolve`` returns a new State and never
changes the one it is given.
"""

from __future__ import annotations

import msgspec

from domain import rng
from domain.core import HistoryMismatch, Result, check_commitment, unknown_event
from domain.gangsta import cards, resources
from domain.gangsta.messages import (
    CardsDealt,
    ChapterChanged,
    DeckReshuffled,
    Event,
    GameEnded,
    GameStarted,
    GangsterCommitted,
    GangsterDiscarded,
    GangsterHired,
    GangsterReadied,
    GangWar,
    HeistCancelled,
    HeistChosen,
    HeistCompleted,
    Owed,
    PassDiscardSkipped,
    Passed,
    RowCardDiscarded,
    SnitchRevealed,
    SnitchShuffledBack,
    TurnStarted,
)
from domain.gangsta.resources import folds as resources_folds
from domain.gangsta.resources.messages import ResourceEvent
from domain.gangsta.rewards import folds as rewards
from domain.gangsta.rewards.folds import RewardEvent, reward_done, rewards_of
from domain.gangsta.state import (
    BOSSES_LABEL,
    GANGSTERS_LABEL,
    HEISTS_ROW,
    START_PLAYER_LABEL,
    Member,
    Player,
    State,
    add_money,
    after_pass,
    after_refill_stage,
    chapter_label,
    money,
    replace,
    reshuffle_label,
    set_engaged,
    set_player,
    take,
    without,
)


def _game_started(e: GameStarted) -> State:
    if e.secret is None:
        raise HistoryMismatch("a state can only be built from the unredacted game_started event")
    if not check_commitment(e.secret, e.commitment):
        raise HistoryMismatch("the secret does not match the commitment")
    seed = e.secret.seed
    bosses = rng.shuffled(seed, BOSSES_LABEL, cards.BOSS_IDS)
    if tuple(bosses[: e.seats]) != e.bosses:
        raise HistoryMismatch("bosses differ from the seed's")
    if rng.choice_index(seed, START_PLAYER_LABEL, e.seats) != e.start_player:
        raise HistoryMismatch("start player differs from the seed's")
    dealt = resources.deal(seed, e.seats) if e.options.resources else ((),) * e.seats
    return State(
        options=e.options,
        secret=e.secret,
        commitment=e.commitment,
        start_player=e.start_player,
        players=tuple(
            Player(boss=b, gang=(Member(b),), money=m, dealt=d)
            for b, m, d in zip(e.bosses, e.money, dealt, strict=True)
        ),
        gangster_deck=tuple(rng.shuffled(seed, GANGSTERS_LABEL, cards.HIRABLE_IDS)),
        heist_decks=tuple(
            tuple(rng.shuffled(seed, chapter_label(n), deck))
            for n, deck in enumerate(cards.CHAPTER_DECKS, 1)
        ),
        removed=tuple(bosses[e.seats :]),
        active=e.start_player,
    )


def _cards_dealt(s: State, e: CardsDealt) -> State:
    counted = not (s.stage == "setup" or (s.stage == "opening" and e.row == HEISTS_ROW))
    drawn = s.drawn
    if counted:
        i = 0 if e.row == HEISTS_ROW else 1
        drawn = (
            (drawn[0] + len(e.cards), drawn[1]) if i == 0 else (drawn[0], drawn[1] + len(e.cards))
        )
    stage = "refill" if counted and s.stage in ("end", "opening") else s.stage
    if e.row == HEISTS_ROW:
        decks = list(s.heist_decks)
        decks[s.chapter - 1] = take(s.heist_deck, e.cards)
        return replace(
            s, heist_decks=tuple(decks), heist_row=s.heist_row + e.cards, drawn=drawn, stage=stage
        )
    return replace(
        s,
        gangster_deck=take(s.gangster_deck, e.cards),
        market=s.market + e.cards,
        drawn=drawn,
        stage=stage,
    )


def _deck_reshuffled(s: State, e: DeckReshuffled) -> State:
    seed = s.secret.seed
    stage = after_refill_stage(s)
    if e.row == HEISTS_ROW:
        if s.heist_deck or len(s.heist_discard) != e.size:
            raise HistoryMismatch("reshuffle does not match the heist deck and discard")
        label = reshuffle_label(cards.CHAPTERS[s.chapter - 1], s.shuffles)
        decks = list(s.heist_decks)
        decks[s.chapter - 1] = tuple(rng.shuffled(seed, label, sorted(s.heist_discard)))
        return replace(
            s, heist_decks=tuple(decks), heist_discard=(), shuffles=s.shuffles + 1, stage=stage
        )
    if s.gangster_deck or len(s.gangster_discard) != e.size:
        raise HistoryMismatch("reshuffle does not match the gangster deck and discard")
    label = reshuffle_label(GANGSTERS_LABEL, s.shuffles)
    return replace(
        s,
        gangster_deck=tuple(rng.shuffled(seed, label, sorted(s.gangster_discard))),
        gangster_discard=(),
        shuffles=s.shuffles + 1,
        stage=stage,
    )


def _snitch_shuffled_back(s: State, e: SnitchShuffledBack) -> State:
    deck = s.heist_deck
    if not deck or deck[0] != e.card or e.card not in cards.SNITCHES:
        raise HistoryMismatch(f"snitch {e.card} is not the top of the deck")
    label = reshuffle_label(cards.CHAPTERS[s.chapter - 1], s.shuffles)
    decks = list(s.heist_decks)
    decks[s.chapter - 1] = tuple(rng.shuffled(s.secret.seed, label, sorted(deck)))
    return replace(s, heist_decks=tuple(decks), shuffles=s.shuffles + 1)


def _snitch_revealed(s: State, e: SnitchRevealed) -> State:
    decks = list(s.heist_decks)
    decks[s.chapter - 1] = take(s.heist_deck, (e.card,))
    players = money(s.players, [-p for p in e.payments])
    if any(p.money < 0 for p in players):
        raise HistoryMismatch("a snitch payment exceeds a player's money")
    owed = s.owed + tuple(Owed(seat=x, chooser=x, reason="snitch") for x in e.discards)
    return replace(
        s,
        heist_decks=tuple(decks),
        snitches=(*s.snitches, e.card),
        players=players,
        owed=owed,
        stage=after_refill_stage(s),
    )


def _turn_started(s: State, e: TurnStarted) -> State:
    players = s.players
    if e.synchronised:
        p = players[e.seat]
        gang = tuple(msgspec.structs.replace(m, engaged=False) for m in p.gang)
        players = set_player(players, e.seat, msgspec.structs.replace(p, gang=gang))
    return replace(
        s,
        players=players,
        stage="turn",
        active=e.seat,
        extra_turn=e.extra,
        play_again=False,
        free_readies=e.free_readies,
        drawn=(0, 0),
        hq_used=False,
        society_done=False,
    )


def _gangster_readied(s: State, e: GangsterReadied) -> State:
    s = replace(s, players=set_engaged(s, (e.gangster,), False))
    if e.cost == 0:
        return replace(s, free_readies=s.free_readies - 1)
    return replace(s, players=add_money(s, e.seat, -e.cost))


def _gangster_hired(s: State, e: GangsterHired) -> State:
    p = s.players[e.seat]
    p = msgspec.structs.replace(p, gang=(*p.gang, Member(e.gangster)), money=p.money - e.cost)
    s = replace(s, players=set_player(s.players, e.seat, p))
    if e.from_deck:  # 912 Indicator network
        s = replace(s, gangster_deck=take(s.gangster_deck, (e.gangster,)))
    elif e.gangster in s.market:
        s = replace(s, market=without(s.market, e.gangster))
    else:
        raise HistoryMismatch(f"gangster {e.gangster} is not in the market")
    return reward_done(s) if e.fast else replace(s, stage="end")


def _heist_chosen(s: State, e: HeistChosen) -> State:
    if e.from_deck:  # 910 Bikers gang: the top of the deck, for $1
        if s.heist_deck[:1] != (e.heist,):
            raise HistoryMismatch(f"heist {e.heist} is not the top of the deck")
        s = replace(s, players=add_money(s, e.seat, -resources.BIKERS_COST))
    return replace(
        s, stage="heist", heist=e.heist, committed=(), from_deck=e.from_deck, ignored=None
    )


def _heist_cancelled(s: State, _: HeistCancelled) -> State:
    return replace(s, stage="turn", heist=None, committed=(), ignored=None)


def _gangster_committed(s: State, e: GangsterCommitted) -> State:
    return replace(s, committed=(*s.committed, e.gangster))


def _heist_completed(s: State, e: HeistCompleted) -> State:
    heist = cards.HEISTS[e.heist]
    players = replace(s, players=set_engaged(s, e.participants, True)).players
    players = money(players, e.coop_money)
    p = players[e.seat]
    p = msgspec.structs.replace(p, money=p.money + e.money, heists=(*p.heists, e.heist))
    if s.from_deck:
        decks = list(s.heist_decks)
        decks[s.chapter - 1] = take(s.heist_deck, (e.heist,))
        s = replace(s, heist_decks=tuple(decks))
    else:
        s = replace(s, heist_row=without(s.heist_row, e.heist))
    s = replace(s, players=set_player(players, e.seat, p))
    jets = resources.jets_after(s, e.participants) if heist.cooperative else ()
    s = replace(
        s,
        jets=jets,
        from_deck=False,
        ignored=None,
        heist=e.heist,
        committed=e.participants,
        rewards=rewards_of(heist),
        diversions_left=heist.diversion,
        stage="reward",
    )
    return s if s.rewards else replace(s, heist=None, committed=(), stage="end")


def _passed(s: State, e: Passed) -> State:
    stage = "hospital" if resources.hospital_pending(s, e.seat) else after_pass(s)
    return replace(s, players=add_money(s, e.seat, e.income), stage=stage)


def _row_card_discarded(s: State, e: RowCardDiscarded) -> State:
    if e.row == HEISTS_ROW:
        return replace(
            s,
            heist_row=without(s.heist_row, e.card),
            heist_discard=(*s.heist_discard, e.card),
            stage="end",
        )
    return replace(
        s,
        market=without(s.market, e.card),
        gangster_discard=(*s.gangster_discard, e.card),
        stage="end",
    )


def _pass_discard_skipped(s: State, _: PassDiscardSkipped) -> State:
    return replace(s, stage="end")


def _gangster_discarded(s: State, e: GangsterDiscarded) -> State:
    p = s.players[e.seat]
    gang = tuple(m for m in p.gang if m.card != e.gangster)
    if len(gang) == len(p.gang) or e.gangster == p.boss:
        raise HistoryMismatch(f"seat {e.seat} cannot discard gangster {e.gangster}")
    for i, o in enumerate(s.owed):
        if o.seat == e.seat and o.reason == e.reason:
            owed = s.owed[:i] + s.owed[i + 1 :]
            break
    else:
        raise HistoryMismatch(f"seat {e.seat} owes no {e.reason} discard")
    # A gangster lost from a gang leaves the game (GANGSTA.md, A turn 4): only gangsters
    # discarded from the market by a pass are ever reshuffled. 911 keeps some in its hospital.
    if e.hospital:
        p = msgspec.structs.replace(p, gang=gang, hospital=(*p.hospital, e.gangster))
        return replace(s, players=set_player(s.players, e.seat, p), owed=owed)
    return replace(
        s,
        players=set_player(s.players, e.seat, msgspec.structs.replace(p, gang=gang)),
        removed=(*s.removed, e.gangster),
        owed=owed,
    )


def _chapter_changed(s: State, e: ChapterChanged) -> State:
    old = s.heist_row + s.heist_deck + s.heist_discard
    decks = list(s.heist_decks)
    decks[s.chapter - 1] = ()
    return replace(
        s,
        players=money(s.players, e.income),
        chapter=e.chapter,
        heist_decks=tuple(decks),
        heist_row=(),
        heist_discard=(),
        removed=s.removed + old,
        stage="opening",
    )


def _gang_war(s: State, e: GangWar) -> State:
    owed = tuple(
        Owed(seat=x, chooser=x if e.chooser is None else e.chooser, reason="gang_war")
        for x in e.losers
    )
    return replace(s, owed=s.owed + owed, stage="gang_war")


def _game_ended(s: State, e: GameEnded) -> State:
    if e.secret != s.secret:
        raise HistoryMismatch("the revealed secret is not the game's secret")
    result = Result(
        scores=list(e.scores),
        winners=list(e.winners),
        reason=e.reason,
        details={
            "gang_influence": list(e.gang_influence),
            "heist_influence": list(e.heist_influence),
            "money_bonus": list(e.money_bonus),
            "size_bonus": list(e.size_bonus),
            **({"resource_influence": list(e.resource_influence)} if e.resource_influence else {}),
            # The tie-break (GANGSTA.md, "Scoring"): the most gangsters among the tied.
            "gangsters": [len(p.gang) for p in s.players],
            "tie_break": e.scores.count(max(e.scores)) > 1,
        },
    )
    return replace(s, stage="over", result=result)


_FIRST = "game_started comes first, and only once"


def evolve(state: State | None, event: Event) -> State:
    if isinstance(event, GameStarted):
        if state is not None:
            raise HistoryMismatch(_FIRST)
        return _game_started(event)
    if state is None:
        raise HistoryMismatch(_FIRST)
    if state.stage == "over":
        raise HistoryMismatch("the game is over")
    # The cases go by how often rollouts meet them: isinstance misses are slow on msgspec
    # classes (their metaclass is no plain type), and a rollout folds every event.
    match event:
        case TurnStarted():
            return _turn_started(state, event)
        case CardsDealt():
            return _cards_dealt(state, event)
        case GangsterCommitted():
            return _gangster_committed(state, event)
        case Passed():
            return _passed(state, event)
        case HeistChosen():
            return _heist_chosen(state, event)
        case RowCardDiscarded():
            return _row_card_discarded(state, event)
        case GangsterHired():
            return _gangster_hired(state, event)
        case GangsterReadied():
            return _gangster_readied(state, event)
        case HeistCancelled():
            return _heist_cancelled(state, event)
        case HeistCompleted():
            return _heist_completed(state, event)
        case GangsterDiscarded():
            return _gangster_discarded(state, event)
        case PassDiscardSkipped():
            return _pass_discard_skipped(state, event)
        case SnitchRevealed():
            return _snitch_revealed(state, event)
        case ChapterChanged():
            return _chapter_changed(state, event)
        case DeckReshuffled():
            return _deck_reshuffled(state, event)
        case SnitchShuffledBack():
            return _snitch_shuffled_back(state, event)
        case GangWar():
            return _gang_war(state, event)
        case GameEnded():
            return _game_ended(state, event)
        case _:
            if isinstance(event, RewardEvent):
                return rewards.fold(state, event)
            if isinstance(event, ResourceEvent):
                return resources_folds.fold(state, event)
            unknown_event(event, "Gangsta!")
