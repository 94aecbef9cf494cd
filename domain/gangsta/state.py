"""Gangsta!'s state and ``evolve``, the pure fold of events into state.

The state is server-side: it holds the secret and every deck's order, recomputed from the seed
with ``domain.rng``; every event that reveals cards is checked against it. Views (view.py) decide
what a seat may see. ``evolve`` returns a new State and never changes the one it is given.

Stages: ``setup`` (dealing the first rows), ``turn`` (mobilisation and the action choice),
``heist`` (committing gangsters), ``reward`` (special rewards, head of ``rewards`` first),
``pass_discard``, ``end`` (end-of-turn check), ``gang_war`` (its discards), ``opening`` (dealing a
new chapter's row), ``refill`` and ``over``. Discards owed (``owed``) interrupt any stage.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from domain import rng
from domain.core import HistoryMismatch, Result, Secret, check_commitment
from domain.gangsta import cards
from domain.gangsta.messages import (
    AssassinationOrdered,
    CardsDealt,
    ChapterChanged,
    DeckReshuffled,
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
    MoneyStolen,
    Options,
    Owed,
    PassDiscardSkipped,
    Passed,
    PlayAgain,
    Reward,
    RewardSkipped,
    RowCardDiscarded,
    SkillLearned,
    SnitchRevealed,
    SnitchShuffledBack,
    TurnStarted,
)

ROW_SIZE = 5
HEISTS_ROW, GANGSTERS_ROW = "heists", "gangsters"
# Stages in which rows are dealt in full whatever the refill option (a new row, not a refill).
DEALING = ("setup", "opening")

# rng labels, so every shuffle can be re-run from the revealed seed.
BOSSES_LABEL = "bosses"
START_PLAYER_LABEL = "start-player"
GANGSTERS_LABEL = "gangsters"


def chapter_label(chapter: int) -> str:
    return f"heists-{cards.CHAPTERS[chapter - 1]}"


def reshuffle_label(deck: str, n: int) -> str:
    """Every later shuffle gets its own label: the deck's name and a game-wide counter."""
    return f"{deck}-reshuffle-{n}"


class Member(msgspec.Struct, frozen=True, gc=False):
    """A gangster in a gang (the Boss included)."""

    card: int
    engaged: bool = False
    learned: str | None = None  # a skill learned from a heist (at most one)


class Player(msgspec.Struct, frozen=True):
    boss: int
    gang: tuple[Member, ...]  # the Boss first, then hired gangsters in hiring order
    money: int
    heists: tuple[int, ...] = ()  # completed heists, in order


class State(msgspec.Struct, frozen=True):
    options: Options
    secret: Secret
    commitment: str
    start_player: int
    players: tuple[Player, ...]
    gangster_deck: tuple[int, ...]  # index 0 is the top
    heist_decks: tuple[tuple[int, ...], ...]  # per chapter; index 0 is the top
    chapter: int = 1
    gangster_discard: tuple[int, ...] = ()  # discarded from the market by passes only
    market: tuple[int, ...] = ()
    heist_discard: tuple[int, ...] = ()  # the current chapter's
    heist_row: tuple[int, ...] = ()
    snitches: tuple[int, ...] = ()  # revealed and set aside
    removed: tuple[int, ...] = ()  # out of the game: unused Bosses, lost gangsters, old chapters
    shuffles: int = 0  # reshuffles so far (labels)
    stage: str = "setup"
    active: int = 0
    extra_turn: bool = False
    play_again: bool = False  # granted this turn: the same seat plays next
    free_readies: int = 0
    heist: int | None = None  # chosen, not yet complete (stage heist) or being rewarded
    committed: tuple[int, ...] = ()
    rewards: tuple[Reward, ...] = ()  # special rewards still to resolve, in order
    diversions_left: int = 0
    owed: tuple[Owed, ...] = ()
    drawn: tuple[int, int] = (0, 0)  # cards dealt this turn into (heists, gangsters)
    result: Result | None = None

    @property
    def seats(self) -> int:
        return len(self.players)

    @property
    def heist_deck(self) -> tuple[int, ...]:
        return self.heist_decks[self.chapter - 1]


# --- Queries shared by rules and views ----------------------------------------------------

_SKILLS: dict[tuple[int, str | None], tuple[int, ...]] = {}


def skills_of(member: Member) -> tuple[int, ...]:
    """The member's skills, the learned one included."""
    key = (member.card, member.learned)
    found = _SKILLS.get(key)
    if found is None:
        found = list(cards.GANGSTERS[member.card].skills)
        if member.learned is not None:
            found[cards.SKILL_INDEX[member.learned]] += 1
        found = _SKILLS[key] = tuple(found)
    return found


def gang_skills(gang: tuple[Member, ...]) -> list[int]:
    totals = [0] * len(cards.SKILLS)
    for m in gang:
        for i, n in enumerate(skills_of(m)):
            totals[i] += n
    return totals


def skill_count(gang: tuple[Member, ...], skill: int) -> int:
    return sum(skills_of(m)[skill] for m in gang)


def locate(state: State, card: int) -> tuple[int, int] | None:
    """(seat, index in the gang) of a gangster in a gang, or None."""
    for seat, p in enumerate(state.players):
        for i, m in enumerate(p.gang):
            if m.card == card:
                return seat, i
    return None


def snitch_value(state: State, card: int) -> int:
    snitch = cards.SNITCHES[card]
    if snitch.chapter == 3:
        return state.options.domination_snitches[cards.DOMINATION_SNITCHES.index(card)]
    return snitch.printed_informants


def domination_snitches_revealed(state: State) -> int:
    return sum(1 for c in state.snitches if cards.SNITCHES[c].chapter == 3)


# --- Small immutable updates ---------------------------------------------------------------


def _set_player(players: tuple[Player, ...], seat: int, player: Player) -> tuple[Player, ...]:
    return (*players[:seat], player, *players[seat + 1 :])


def _money(players: tuple[Player, ...], deltas: tuple[int, ...] | list[int]) -> tuple[Player, ...]:
    return tuple(
        p if d == 0 else msgspec.structs.replace(p, money=p.money + d)
        for p, d in zip(players, deltas, strict=True)
    )


def _add_money(state: State, seat: int, amount: int) -> tuple[Player, ...]:
    p = state.players[seat]
    return _set_player(state.players, seat, msgspec.structs.replace(p, money=p.money + amount))


def _with_members(state: State, changes: dict[int, Member]) -> tuple[Player, ...]:
    """Players with the members whose card is a key of ``changes`` replaced."""
    players = list(state.players)
    for seat, p in enumerate(players):
        if any(m.card in changes for m in p.gang):
            gang = tuple(changes.get(m.card, m) for m in p.gang)
            players[seat] = msgspec.structs.replace(p, gang=gang)
    return tuple(players)


def _set_engaged(state: State, gangsters: tuple[int, ...] | list[int], engaged: bool):
    changes = {}
    for card in gangsters:
        where = locate(state, card)
        if where is None:
            raise HistoryMismatch(f"gangster {card} is in no gang")
        m = state.players[where[0]].gang[where[1]]
        changes[card] = msgspec.structs.replace(m, engaged=engaged)
    return _with_members(state, changes)


def _take(deck: tuple[int, ...], shown: tuple[int, ...]) -> tuple[int, ...]:
    if deck[: len(shown)] != shown:
        raise HistoryMismatch(
            f"cards {list(shown)} are not the top of the deck: history and seed differ"
        )
    return deck[len(shown) :]


def _after_refill_event(state: State) -> str:
    return "refill" if state.stage == "end" else state.stage


def _replace(state: State, **changes: Any) -> State:
    return msgspec.structs.replace(state, **changes)


# --- evolve ------------------------------------------------------------------------------------


def _game_started(_: State | None, e: GameStarted) -> State:
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
    return State(
        options=e.options,
        secret=e.secret,
        commitment=e.commitment,
        start_player=e.start_player,
        players=tuple(
            Player(boss=b, gang=(Member(b),), money=m)
            for b, m in zip(e.bosses, e.money, strict=True)
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
        decks[s.chapter - 1] = _take(s.heist_deck, e.cards)
        return _replace(
            s, heist_decks=tuple(decks), heist_row=s.heist_row + e.cards, drawn=drawn, stage=stage
        )
    return _replace(
        s,
        gangster_deck=_take(s.gangster_deck, e.cards),
        market=s.market + e.cards,
        drawn=drawn,
        stage=stage,
    )


def _deck_reshuffled(s: State, e: DeckReshuffled) -> State:
    seed = s.secret.seed
    stage = _after_refill_event(s)
    if e.row == HEISTS_ROW:
        if s.heist_deck or len(s.heist_discard) != e.size:
            raise HistoryMismatch("reshuffle does not match the heist deck and discard")
        label = reshuffle_label(cards.CHAPTERS[s.chapter - 1], s.shuffles)
        decks = list(s.heist_decks)
        decks[s.chapter - 1] = tuple(rng.shuffled(seed, label, sorted(s.heist_discard)))
        return _replace(
            s, heist_decks=tuple(decks), heist_discard=(), shuffles=s.shuffles + 1, stage=stage
        )
    if s.gangster_deck or len(s.gangster_discard) != e.size:
        raise HistoryMismatch("reshuffle does not match the gangster deck and discard")
    label = reshuffle_label(GANGSTERS_LABEL, s.shuffles)
    return _replace(
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
    return _replace(s, heist_decks=tuple(decks), shuffles=s.shuffles + 1)


def _snitch_revealed(s: State, e: SnitchRevealed) -> State:
    decks = list(s.heist_decks)
    decks[s.chapter - 1] = _take(s.heist_deck, (e.card,))
    players = _money(s.players, [-p for p in e.payments])
    if any(p.money < 0 for p in players):
        raise HistoryMismatch("a snitch payment exceeds a player's money")
    owed = s.owed + tuple(Owed(seat=x, chooser=x, reason="snitch") for x in e.discards)
    return _replace(
        s,
        heist_decks=tuple(decks),
        snitches=(*s.snitches, e.card),
        players=players,
        owed=owed,
        stage=_after_refill_event(s),
    )


def _turn_started(s: State, e: TurnStarted) -> State:
    players = s.players
    if e.synchronised:
        p = players[e.seat]
        gang = tuple(msgspec.structs.replace(m, engaged=False) for m in p.gang)
        players = _set_player(players, e.seat, msgspec.structs.replace(p, gang=gang))
    return _replace(
        s,
        players=players,
        stage="turn",
        active=e.seat,
        extra_turn=e.extra,
        play_again=False,
        free_readies=e.free_readies,
        drawn=(0, 0),
    )


def _gangster_readied(s: State, e: GangsterReadied) -> State:
    s = _replace(s, players=_set_engaged(s, (e.gangster,), False))
    if e.cost == 0:
        return _replace(s, free_readies=s.free_readies - 1)
    return _replace(s, players=_add_money(s, e.seat, -e.cost))


def _gangster_hired(s: State, e: GangsterHired) -> State:
    if e.gangster not in s.market:
        raise HistoryMismatch(f"gangster {e.gangster} is not in the market")
    p = s.players[e.seat]
    p = msgspec.structs.replace(p, gang=(*p.gang, Member(e.gangster)), money=p.money - e.cost)
    s = _replace(
        s, players=_set_player(s.players, e.seat, p), market=_without(s.market, e.gangster)
    )
    return _reward_done(s) if e.fast else _replace(s, stage="end")


def _without(cards_: tuple[int, ...], card: int) -> tuple[int, ...]:
    i = cards_.index(card)
    return cards_[:i] + cards_[i + 1 :]


def _heist_chosen(s: State, e: HeistChosen) -> State:
    return _replace(s, stage="heist", heist=e.heist, committed=())


def _heist_cancelled(s: State, _: HeistCancelled) -> State:
    return _replace(s, stage="turn", heist=None, committed=())


def _gangster_committed(s: State, e: GangsterCommitted) -> State:
    return _replace(s, committed=(*s.committed, e.gangster))


def _rewards_of(heist: cards.Heist) -> tuple[Reward, ...]:
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


def _heist_completed(s: State, e: HeistCompleted) -> State:
    heist = cards.HEISTS[e.heist]
    players = _replace(s, players=_set_engaged(s, e.participants, True)).players
    players = _money(players, e.coop_money)
    p = players[e.seat]
    p = msgspec.structs.replace(p, money=p.money + e.money, heists=(*p.heists, e.heist))
    s = _replace(
        s,
        players=_set_player(players, e.seat, p),
        heist_row=_without(s.heist_row, e.heist),
        heist=e.heist,
        committed=e.participants,
        rewards=_rewards_of(heist),
        diversions_left=heist.diversion,
        stage="reward",
    )
    return s if s.rewards else _replace(s, heist=None, committed=(), stage="end")


def _reward_done(s: State) -> State:
    """The head reward is resolved: the next one, or the end of the turn."""
    rewards = s.rewards[1:]
    if rewards:
        return _replace(s, rewards=rewards)
    return _replace(s, rewards=(), heist=None, committed=(), diversions_left=0, stage="end")


def _skill_learned(s: State, e: SkillLearned) -> State:
    where = locate(s, e.gangster)
    if where is None:
        raise HistoryMismatch(f"gangster {e.gangster} is in no gang")
    m = s.players[where[0]].gang[where[1]]
    players = _with_members(s, {e.gangster: msgspec.structs.replace(m, learned=e.skill)})
    return _reward_done(_replace(s, players=players))


def _money_stolen(s: State, e: MoneyStolen) -> State:
    deltas = [0] * s.seats
    deltas[e.seat] += e.amount
    deltas[e.target] -= e.amount
    return _reward_done(_replace(s, players=_money(s.players, deltas)))


def _gangster_diverted(s: State, e: GangsterDiverted) -> State:
    s = _replace(
        s, players=_set_engaged(s, (e.gangster,), True), diversions_left=s.diversions_left - 1
    )
    return _reward_done(s) if s.diversions_left == 0 else s


def _assassination_ordered(s: State, e: AssassinationOrdered) -> State:
    owed = (*s.owed, Owed(seat=e.target, chooser=e.target, reason="assassination"))
    return _reward_done(_replace(s, owed=owed))


def _gang_rallied(s: State, e: GangRallied) -> State:
    gang = tuple(m.card for m in s.players[e.seat].gang)
    return _reward_done(_replace(s, players=_set_engaged(s, gang, False)))


def _play_again(s: State, e: PlayAgain) -> State:
    return _reward_done(_replace(s, play_again=e.granted))


def _reward_skipped(s: State, _: RewardSkipped) -> State:
    return _reward_done(s)


def _passed(s: State, e: Passed) -> State:
    stage = "pass_discard" if s.options.pass_discard else "end"
    return _replace(s, players=_add_money(s, e.seat, e.income), stage=stage)


def _row_card_discarded(s: State, e: RowCardDiscarded) -> State:
    if e.row == HEISTS_ROW:
        return _replace(
            s,
            heist_row=_without(s.heist_row, e.card),
            heist_discard=(*s.heist_discard, e.card),
            stage="end",
        )
    return _replace(
        s,
        market=_without(s.market, e.card),
        gangster_discard=(*s.gangster_discard, e.card),
        stage="end",
    )


def _pass_discard_skipped(s: State, _: PassDiscardSkipped) -> State:
    return _replace(s, stage="end")


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
    # discarded from the market by a pass are ever reshuffled.
    return _replace(
        s,
        players=_set_player(s.players, e.seat, msgspec.structs.replace(p, gang=gang)),
        removed=(*s.removed, e.gangster),
        owed=owed,
    )


def _chapter_changed(s: State, e: ChapterChanged) -> State:
    old = s.heist_row + s.heist_deck + s.heist_discard
    decks = list(s.heist_decks)
    decks[s.chapter - 1] = ()
    return _replace(
        s,
        players=_money(s.players, e.income),
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
    return _replace(s, owed=s.owed + owed, stage="gang_war")


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
        },
    )
    return _replace(s, stage="over", result=result)


_EVOLVE: dict[type, Callable[[Any, Any], State]] = {
    GameStarted: _game_started,
    CardsDealt: _cards_dealt,
    DeckReshuffled: _deck_reshuffled,
    SnitchShuffledBack: _snitch_shuffled_back,
    SnitchRevealed: _snitch_revealed,
    TurnStarted: _turn_started,
    GangsterReadied: _gangster_readied,
    GangsterHired: _gangster_hired,
    HeistChosen: _heist_chosen,
    HeistCancelled: _heist_cancelled,
    GangsterCommitted: _gangster_committed,
    HeistCompleted: _heist_completed,
    SkillLearned: _skill_learned,
    MoneyStolen: _money_stolen,
    GangsterDiverted: _gangster_diverted,
    AssassinationOrdered: _assassination_ordered,
    GangRallied: _gang_rallied,
    PlayAgain: _play_again,
    RewardSkipped: _reward_skipped,
    Passed: _passed,
    RowCardDiscarded: _row_card_discarded,
    PassDiscardSkipped: _pass_discard_skipped,
    GangsterDiscarded: _gangster_discarded,
    ChapterChanged: _chapter_changed,
    GangWar: _gang_war,
    GameEnded: _game_ended,
}


def evolve(state: State | None, event: Any) -> State:
    if (state is None) != isinstance(event, GameStarted):
        raise HistoryMismatch("game_started comes first, and only once")
    if state is not None and state.stage == "over":
        raise HistoryMismatch("the game is over")
    fold = _EVOLVE.get(type(event))
    if fold is None:
        raise HistoryMismatch(f"not a Gangsta! event: {type(event).__name__}")
    return fold(state, event)
