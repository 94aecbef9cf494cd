"""Gangsta!'s state: what the server knows of a game, and the queries and small immutable updates
that the rules (rules.py), the fold (evolve.py) and the views (view.py) share.

The state holds the secret and every deck's order, recomputed from the seed with
``domain.rng``; views decide what a seat may see. A State is never changed in place.

Stages: ``setup`` (dealing the first rows), ``resources`` (option resources: every player keeps
one of two resource cards), ``turn`` (mobilisation and the action choice), ``heist`` (committing
gangsters), ``reward`` (special rewards, head of ``rewards`` first), ``hospital`` (911, after a
pass), ``pass_discard``, ``end`` (end-of-turn check), ``gang_war`` (its discards), ``opening``
(dealing a new chapter's row), ``refill`` and ``over``. Discards owed (``owed``) and Private jet
decisions (``jets``) interrupt any stage.
"""

from __future__ import annotations

import functools

import msgspec

from domain.core import HistoryMismatch, Result, Secret
from domain.gangsta import cards
from domain.gangsta.messages import Options, Owed, Reward
from domain.gangsta.wire import Row

ROW_SIZE = 5
HEISTS_ROW: Row = "heists"
GANGSTERS_ROW: Row = "gangsters"
# Stages in which rows are dealt in full whatever the refill option (a new row, not a refill).
DEALING = ("setup", "opening")

# rng labels, so every shuffle can be re-run from the revealed seed.
BOSSES_LABEL = "bosses"
START_PLAYER_LABEL = "start-player"
GANGSTERS_LABEL = "gangsters"
RESOURCES_LABEL = "resources"


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
    # Resources module: the two cards dealt, the one kept (face down until all have chosen),
    # whether it is active (for good) or discarded (904 at the gang war), 911's hospital, and
    # the deck tops seen with 910 and 912 (valid while still on top).
    dealt: tuple[int, ...] = ()
    resource: int | None = None
    resource_active: bool = False
    resource_discarded: bool = False
    hospital: tuple[int, ...] = ()
    peek_heist: int | None = None
    peek_gangster: int | None = None


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
    # Resources module
    revealed: bool = False  # the kept resource cards are face up
    jets: tuple[int, ...] = ()  # seats owing a 905 Private jet decision
    ignored: str | None = None  # 907: the skill ignored in the current heist
    from_deck: bool = False  # 910: the current heist is the top of the heist deck
    hq_used: bool = False  # 903, once per turn
    society_done: bool = False  # 908, once per turn

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
        counts = list(cards.GANGSTERS[member.card].skills)
        if member.learned is not None:
            counts[cards.SKILL_INDEX[member.learned]] += 1
        found = _SKILLS[key] = tuple(counts)
    return found


_NO_SKILLS = (0,) * len(cards.SKILLS)


# Cached: legal() asks it for every heist in the row, and search asks legal() very often.
@functools.lru_cache(maxsize=1 << 14)
def gang_skills(gang: tuple[Member, ...]) -> tuple[int, ...]:
    if not gang:
        return _NO_SKILLS
    return tuple(map(sum, zip(*map(skills_of, gang), strict=True)))


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


def set_player(players: tuple[Player, ...], seat: int, player: Player) -> tuple[Player, ...]:
    return (*players[:seat], player, *players[seat + 1 :])


def money(players: tuple[Player, ...], deltas: tuple[int, ...] | list[int]) -> tuple[Player, ...]:
    return tuple(
        p if d == 0 else msgspec.structs.replace(p, money=p.money + d)
        for p, d in zip(players, deltas, strict=True)
    )


def add_money(state: State, seat: int, amount: int) -> tuple[Player, ...]:
    p = state.players[seat]
    return set_player(state.players, seat, msgspec.structs.replace(p, money=p.money + amount))


def with_members(state: State, changes: dict[int, Member]) -> tuple[Player, ...]:
    """Players with the members whose card is a key of ``changes`` replaced."""
    players = list(state.players)
    for seat, p in enumerate(players):
        if any(m.card in changes for m in p.gang):
            gang = tuple(changes.get(m.card, m) for m in p.gang)
            players[seat] = msgspec.structs.replace(p, gang=gang)
    return tuple(players)


def set_engaged(
    state: State, gangsters: tuple[int, ...] | list[int], engaged: bool
) -> tuple[Player, ...]:
    changes = {}
    for card in gangsters:
        where = locate(state, card)
        if where is None:
            raise HistoryMismatch(f"gangster {card} is in no gang")
        m = state.players[where[0]].gang[where[1]]
        changes[card] = msgspec.structs.replace(m, engaged=engaged)
    return with_members(state, changes)


def take(deck: tuple[int, ...], shown: tuple[int, ...]) -> tuple[int, ...]:
    if deck[: len(shown)] != shown:
        raise HistoryMismatch(
            f"cards {list(shown)} are not the top of the deck: history and seed differ"
        )
    return deck[len(shown) :]


def after_refill_stage(state: State) -> str:
    return "refill" if state.stage == "end" else state.stage


def after_pass(state: State) -> str:
    """The stage after a pass (and after 911's decision that follows it)."""
    return "pass_discard" if state.options.pass_discard else "end"


def replace(state: State, **changes: object) -> State:
    return msgspec.structs.replace(state, **changes)


def without(cards_: tuple[int, ...], card: int) -> tuple[int, ...]:
    i = cards_.index(card)
    return cards_[:i] + cards_[i + 1 :]
