"""Famiglia's state and ``evolve``, the pure fold of events into state.

The state is server-side: it holds the secret and the deck order, recomputed from the seed with
``domain.rng``; every event that reveals cards is checked against it. Views (view.py) decide what
a seat may see. ``evolve`` returns a new State and never changes the one it is given.
"""

from __future__ import annotations

import msgspec

from domain import rng
from domain.core import HistoryMismatch, Secret, check_commitment, unknown_event
from domain.famiglia import cards
from domain.famiglia.messages import (
    AccountantPlayed,
    BrutePlayed,
    CardsSwapped,
    DeckRanOut,
    DeckReshuffled,
    Event,
    GameEnded,
    GameStarted,
    Options,
    Passed,
    Recruited,
    StreetRefreshed,
    StreetRevealed,
    SwapsEnded,
    TurnStarted,
)

# Stages of a turn: the lowest action still open. Actions are taken in this order.
REFRESH, ACCOUNTANT, BRUTE, RECRUIT, TURN_OVER = 1, 2, 3, 4, 5

# rng labels, so the deck order can be re-run from the revealed seed.
DECK_LABEL = "deck"
START_PLAYER_LABEL = "start-player"
RESHUFFLE_LABEL = "reshuffle-1"  # the deck is reshuffled at most once in Famiglia


class State(msgspec.Struct, frozen=True):
    options: Options
    secret: Secret
    commitment: str
    start_player: int
    deck: tuple[str, ...]  # index 0 is the top
    street: tuple[str, ...]
    discard: tuple[str, ...]
    hands: tuple[tuple[str, ...], ...]  # each in canonical order
    areas: tuple[tuple[str, ...], ...]
    current: int = 0
    turn: int = 0
    stage: int = REFRESH
    deck_pass: int = 1  # 2 after the first reshuffle
    deck_refreshed: bool = False  # a second-pass refresh (once per turn) was taken this turn
    accountant: str | None = None  # the Accountant being used; it cannot be exchanged back
    swaps_left: int = 0  # > 0 only while the Accountant's exchanges are open
    lowered: tuple[str, int] | None = None  # (card, rank this turn) after a Brute
    final_turns: int | None = None  # turns left after the current one, once the deck ran out
    passes_in_row: int = 0
    ended: GameEnded | None = None


def swapping(state: State) -> bool:
    return state.accountant is not None


def street_ranks(state: State) -> list[tuple[str, int]]:
    """Street cards with their rank this turn (one copy may be lowered by a Brute)."""
    lowered = state.lowered
    if lowered is None:
        return [(card, cards.RANK[card]) for card in state.street]
    out = []
    for card in state.street:
        if lowered is not None and card == lowered[0]:
            out.append((card, lowered[1]))
            lowered = None
        else:
            out.append((card, cards.RANK[card]))
    return out


def without(pile: tuple[str, ...], card: str) -> tuple[str, ...]:
    i = pile.index(card)
    return pile[:i] + pile[i + 1 :]


def with_card(pile: tuple[str, ...], card: str) -> tuple[str, ...]:
    return cards.sort((*pile, card))


def _replace_seat(
    piles: tuple[tuple[str, ...], ...], seat: int, pile: tuple[str, ...]
) -> tuple[tuple[str, ...], ...]:
    return (*piles[:seat], pile, *piles[seat + 1 :])


def initial_deck(secret: Secret) -> tuple[str, ...]:
    rest = list(cards.FULL_DECK)
    for card in cards.STARTING_HAND * 2:
        rest.remove(card)
    return tuple(rng.shuffled(secret.seed, DECK_LABEL, rest))


def start_player(secret: Secret) -> int:
    return rng.choice_index(secret.seed, START_PLAYER_LABEL, 2)


def reshuffled(secret: Secret, discard: tuple[str, ...]) -> tuple[str, ...]:
    # Canonical order first, so the new deck depends only on the seed and the pile's contents.
    return tuple(rng.shuffled(secret.seed, RESHUFFLE_LABEL, cards.sort(discard)))


# --- evolve --------------------------------------------------------------------------------


def _started(state: State | None, e: GameStarted) -> State:
    if state is not None:
        raise HistoryMismatch("the game has already started")
    if e.secret is None:
        raise HistoryMismatch("a redacted game_started cannot be replayed: the seed is missing")
    if not check_commitment(e.secret, e.commitment):
        raise HistoryMismatch("the secret does not match the commitment")
    if e.start_player != start_player(e.secret):
        raise HistoryMismatch("the start player does not match the seed")
    hands = tuple(cards.sort(h) for h in e.hands)
    if hands != (cards.sort(cards.STARTING_HAND),) * 2:
        raise HistoryMismatch("each hand starts with one rank-0 card of each family")
    return State(
        options=e.options,
        secret=e.secret,
        commitment=e.commitment,
        start_player=e.start_player,
        deck=initial_deck(e.secret),
        street=(),
        discard=(),
        hands=hands,
        areas=((), ()),
        current=e.start_player,
    )


def _revealed(state: State, e: StreetRevealed) -> State:
    n = len(e.cards)
    if n == 0 or state.deck[:n] != e.cards:
        raise HistoryMismatch("revealed cards do not match the top of the deck")
    return msgspec.structs.replace(state, deck=state.deck[n:], street=state.street + e.cards)


def _reshuffled(state: State, e: DeckReshuffled) -> State:
    if state.deck or state.deck_pass != 1 or e.size != len(state.discard):
        raise HistoryMismatch("the deck can only be reshuffled once, when it is empty")
    return msgspec.structs.replace(
        state, deck=reshuffled(state.secret, state.discard), discard=(), deck_pass=2
    )


def _ran_out(state: State, e: DeckRanOut) -> State:
    extra = 1 if state.current == state.start_player else 2
    if state.deck or state.deck_pass != 2 or state.final_turns is not None:
        raise HistoryMismatch("the deck runs out a second time only once, after the reshuffle")
    if e.extra_turns != extra:
        raise HistoryMismatch(f"{extra} extra turn(s) follow, not {e.extra_turns}")
    return msgspec.structs.replace(state, final_turns=extra)


def _turn_started(state: State, e: TurnStarted) -> State:
    seat = state.start_player if state.turn == 0 else 1 - state.current
    if (e.seat, e.turn) != (seat, state.turn + 1):
        raise HistoryMismatch(f"turn {state.turn + 1} belongs to seat {seat}")
    final = state.final_turns
    if final is not None:
        if final == 0:
            raise HistoryMismatch("no turn is left after the deck ran out")
        final -= 1
    return msgspec.structs.replace(
        state,
        current=e.seat,
        turn=e.turn,
        stage=REFRESH,
        deck_refreshed=False,
        lowered=None,
        final_turns=final,
    )


def _refreshed(state: State, e: StreetRefreshed) -> State:
    street = without(state.street, e.card)
    if state.deck_pass == 1:
        if e.destination != "discard":
            raise HistoryMismatch("in the first deck pass a refreshed card is discarded")
        return msgspec.structs.replace(state, street=street, discard=(*state.discard, e.card))
    if e.destination != "deck_bottom":
        raise HistoryMismatch("after the reshuffle a refreshed card goes under the deck")
    return msgspec.structs.replace(
        state, street=street, deck=(*state.deck, e.card), deck_refreshed=True
    )


def _play_to_area(state: State, seat: int, card: str, **changes: object) -> State:
    return msgspec.structs.replace(
        state,
        hands=_replace_seat(state.hands, seat, without(state.hands[seat], card)),
        areas=_replace_seat(state.areas, seat, with_card(state.areas[seat], card)),
        **changes,
    )


def _accountant(state: State, e: AccountantPlayed) -> State:
    return _play_to_area(
        state, e.seat, e.card, accountant=e.card, swaps_left=cards.RANK[e.card], stage=BRUTE
    )


def _swapped(state: State, e: CardsSwapped) -> State:
    hand = with_card(without(state.hands[e.seat], e.hand_card), e.area_card)
    area = with_card(without(state.areas[e.seat], e.area_card), e.hand_card)
    left = state.swaps_left - 1
    return msgspec.structs.replace(
        state,
        hands=_replace_seat(state.hands, e.seat, hand),
        areas=_replace_seat(state.areas, e.seat, area),
        swaps_left=left,
        accountant=state.accountant if left else None,
    )


def _swaps_ended(state: State, e: SwapsEnded) -> State:
    return msgspec.structs.replace(state, accountant=None, swaps_left=0)


def _brute(state: State, e: BrutePlayed) -> State:
    rank = cards.RANK[e.target] - e.amount
    return _play_to_area(state, e.seat, e.card, lowered=(e.target, rank), stage=RECRUIT)


def _recruited(state: State, e: Recruited) -> State:
    hand = state.hands[e.seat]
    area = state.areas[e.seat]
    if e.to_area is not None:
        hand = without(hand, e.to_area)
        area = with_card(area, e.to_area)
    return msgspec.structs.replace(
        state,
        street=without(state.street, e.card),
        hands=_replace_seat(state.hands, e.seat, with_card(hand, e.card)),
        areas=_replace_seat(state.areas, e.seat, area),
        **_TURN_OVER,
        passes_in_row=0,
    )


def _passed(state: State, e: Passed) -> State:
    return msgspec.structs.replace(state, **_TURN_OVER, passes_in_row=state.passes_in_row + 1)


# Action 4 ends the turn, and a Brute's lowering with it: also when no turn follows because the
# game ends (FAMIGLIA.md, "End and scoring": the final position shows printed ranks).
_TURN_OVER: dict[str, object] = {"stage": TURN_OVER, "lowered": None}


def _ended(state: State, e: GameEnded) -> State:
    if e.secret != state.secret:
        raise HistoryMismatch("the revealed secret is not the game's secret")
    return msgspec.structs.replace(state, ended=e)


def evolve(state: State | None, event: Event) -> State:
    if isinstance(event, GameStarted):
        return _started(state, event)
    if state is None:
        raise HistoryMismatch("the first event must be game_started")
    if state.ended is not None:
        raise HistoryMismatch("the game is over")
    # By how often games meet them (gangsta/evolve.py says why).
    match event:
        case TurnStarted():
            return _turn_started(state, event)
        case StreetRefreshed():
            return _refreshed(state, event)
        case StreetRevealed():
            return _revealed(state, event)
        case Passed():
            return _passed(state, event)
        case Recruited():
            return _recruited(state, event)
        case GameEnded():
            return _ended(state, event)
        case DeckReshuffled():
            return _reshuffled(state, event)
        case DeckRanOut():
            return _ran_out(state, event)
        case BrutePlayed():
            return _brute(state, event)
        case AccountantPlayed():
            return _accountant(state, event)
        case CardsSwapped():
            return _swapped(state, event)
        case SwapsEnded():
            return _swaps_ended(state, event)
        case _:
            unknown_event(event, "Famiglia")
