"""Famiglia's rules: ``start``, ``decide``, ``to_act`` and ``result`` (``legal`` is
``domain.famiglia.choices``').

``decide`` validates a command and returns its events, including what follows automatically
(the reveal after a refresh, a refill of an empty Street, the reshuffle, the next turn or the end).
It builds them by folding each event into a scratch state, so the follow-ups are computed by the
same code that replays them. Readings of points FAMIGLIA.md leaves open: docs/famiglia.md.
"""

from __future__ import annotations

from typing import Any, Literal, Never, NoReturn

import msgspec

from domain.core import Result, RuleViolation, Secret, commitment, preset_options
from domain.famiglia import cards
from domain.famiglia.cards import BLUE, FAMILY, POINTS, RANK, YELLOW
from domain.famiglia.choices import legal as legal  # the game's, with the rules' other parts
from domain.famiglia.choices import refresh_block, swappable_area
from domain.famiglia.messages import (
    AccountantPlayed,
    BrutePlayed,
    CardsSwapped,
    Command,
    DeckRanOut,
    DeckReshuffled,
    EndSwaps,
    Event,
    GameEnded,
    GameStarted,
    Options,
    Pass,
    Passed,
    PlayAccountant,
    PlayBrute,
    Recruit,
    Recruited,
    Refresh,
    StreetRefreshed,
    StreetRevealed,
    Swap,
    SwapsEnded,
    TurnStarted,
)
from domain.famiglia.recruit import pair_rank
from domain.famiglia.state import (
    ACCOUNTANT,
    BRUTE,
    RECRUIT,
    REFRESH,
    TURN_OVER,
    State,
    evolve,
    start_player,
    street_ranks,
    swapping,
)

SEATS = 2
STREET_SIZE = 6


# The published game's readings (FAMIGLIA.md, "Options"). double_pass_ends stays on: the
# published rules say nothing of two passing players, and without it they never finish.
PUBLISHED: dict[str, Any] = {"mercenary_for_green": True}
PRESETS: dict[str, dict[str, Any]] = {"description": {}, "published": PUBLISHED}


def options(raw: dict[str, Any] | None) -> Options:
    """Validated options. ``preset`` ("description", the default, or "published") sets every
    option first; options named beside it override the preset."""
    opts = preset_options(raw, PRESETS, Options)
    if opts.action1_strict_order:
        raise RuleViolation(
            "bad_options",
            "action1_strict_order is not implemented: no published source explains it",
            case="not_implemented",
            option="action1_strict_order",
        )
    return opts


def start(seats: int, secret: Secret, chosen: Options) -> list[Event]:
    chosen = options(msgspec.to_builtins(chosen))  # a Struct built by hand skips validation
    if seats != SEATS:
        raise RuleViolation("bad_seats", "Famiglia is a game for exactly 2 players", seats=seats)
    first = start_player(secret)
    out: list[Event] = []
    state = _emit(
        None,
        out,
        GameStarted(
            seats=SEATS,
            options=chosen,
            commitment=commitment(secret),
            secret=secret,
            start_player=first,
            hands=(cards.STARTING_HAND, cards.STARTING_HAND),
        ),
    )
    state = _reveal(state, out, STREET_SIZE)
    _emit(state, out, TurnStarted(seat=first, turn=1))
    return out


# --- follow-ups shared by start and decide -------------------------------------------------


def _emit(state: State | None, out: list[Event], event: Event) -> State:
    out.append(event)
    return evolve(state, event)


def _reveal(state: State, out: list[Event], count: int) -> State:
    """Reveal ``count`` cards; the first time the deck runs out (even mid-reveal) the discard
    pile becomes the new deck and the reveal goes on; the second time, the reveal stops."""
    while count > 0 and state.deck:
        shown = state.deck[:count]
        state = _emit(state, out, StreetRevealed(cards=shown))
        count -= len(shown)
        if not state.deck:
            if state.deck_pass == 1:
                state = _emit(state, out, DeckReshuffled(size=len(state.discard)))
            if not state.deck:  # the second time (or a reshuffle of an empty pile)
                extra = 1 if state.current == state.start_player else 2
                state = _emit(state, out, DeckRanOut(extra_turns=extra))
    return state


def _end_turn(state: State, out: list[Event]) -> State:
    if not state.street:
        state = _reveal(state, out, STREET_SIZE)
    if state.final_turns == 0:
        return _emit(state, out, _game_ended(state, "deck_exhausted"))
    if state.options.double_pass_ends and state.passes_in_row >= 2:
        return _emit(state, out, _game_ended(state, "double_pass"))
    return _emit(state, out, TurnStarted(seat=1 - state.current, turn=state.turn + 1))


def _game_ended(state: State, reason: Literal["deck_exhausted", "double_pass"]) -> GameEnded:
    scores = tuple(score(state, s) for s in range(SEATS))
    return GameEnded(
        reason=reason,
        scores=scores,
        winners=tuple(_winners(state, scores)),
        hands=state.hands,
        secret=state.secret,
    )


# --- scoring -------------------------------------------------------------------------------


def score(state: State, seat: int) -> int:
    return sum(POINTS[c] for c in state.hands[seat]) + sum(POINTS[c] for c in state.areas[seat])


def best_card(state: State, seat: int) -> int:
    """Points of the single highest-valued card a player holds (hand or area): the tie-break."""
    return max((POINTS[c] for c in state.hands[seat] + state.areas[seat]), default=0)


def _winners(state: State, scores: tuple[int, ...]) -> list[int]:
    if scores[0] != scores[1]:
        return [0 if scores[0] > scores[1] else 1]
    best = [best_card(state, s) for s in range(SEATS)]
    if best[0] != best[1]:
        return [0 if best[0] > best[1] else 1]
    return [0, 1]


def result(state: State) -> Result | None:
    ended = state.ended
    if ended is None:
        return None
    return Result(
        scores=list(ended.scores),
        winners=list(ended.winners),
        reason=ended.reason,
        details={
            "best_card": [best_card(state, s) for s in range(SEATS)],
            "tie_break": ended.scores[0] == ended.scores[1],
        },
    )


def to_act(state: State) -> set[int]:
    """Nobody once the game is over, nor between the events that end one turn and start the
    next (a replay shows those states)."""
    return set() if state.ended is not None or state.stage == TURN_OVER else {state.current}


# --- decide --------------------------------------------------------------------------------


def decide(state: State, seat: int, command: Command) -> list[Event]:
    if state.ended is not None:
        raise RuleViolation("game_over", "The game is over")
    if seat not in (0, 1):
        raise RuleViolation("bad_seat", f"Famiglia has seats 0 and 1, not {seat!r}", seat=str(seat))
    if seat != state.current:
        raise RuleViolation("not_your_turn", "It is the other player's turn")
    out: list[Event] = []
    # By how often games meet them (gangsta/evolve.py says why).
    match command:
        case Refresh():
            _decide_refresh(state, seat, command, out)
        case Pass():
            _decide_pass(state, seat, out)
        case Recruit():
            _decide_recruit(state, seat, command, out)
        case PlayBrute():
            _decide_brute(state, seat, command, out)
        case PlayAccountant():
            _decide_accountant(state, seat, command, out)
        case EndSwaps():
            _decide_end_swaps(state, seat, out)
        case Swap():
            _decide_swap(state, seat, command, out)
        case _:
            unknown_command(command)
    return out


def unknown_command(command: Never) -> NoReturn:
    """``decide``'s last ``case _:``, as ``typing.assert_never``: mypy reports a command type of
    the union that no ``case`` handles (``command`` is then not ``Never``). At run time it refuses
    a value of no command type (from a caller that skipped the decoder), as the rules always did;
    raised here, it is Famiglia's refusal (``rule.famiglia.unknown_command`` in the catalogue)."""
    raise RuleViolation(
        "unknown_command", f"Not a Famiglia command: {command!r}", command=type(command).__name__
    )


def _require_stage(state: State, stage: int, what: str) -> None:
    if swapping(state):
        raise RuleViolation(
            "wrong_phase",
            "Finish the Accountant's exchanges first (swap or end_swaps)",
            case="swapping",
        )
    if state.stage > stage:
        raise RuleViolation(
            "action_out_of_order",
            f"{what} is no longer possible this turn: the actions go refresh, Accountant, "
            "Brute, recruit, and each at most once",
            action=what,
        )


def _require_in_hand(state: State, seat: int, card: str, count: int = 1) -> None:
    if state.hands[seat].count(cards.check(card)) < count:
        raise RuleViolation(
            "card_not_in_hand",
            f"You do not hold {'two ' if count > 1 else ''}{card}",
            card=card,
            count=count,
        )


def _require_power(card: str, family: str) -> None:
    if FAMILY[cards.check(card)] != family:
        raise RuleViolation(
            "wrong_family",
            f"{card} is not a {cards.FAMILY_NAMES[family]} ({family} card)",
            card=card,
            family=family,
        )
    if RANK[card] == 0:
        raise RuleViolation("no_power", f"{card} has rank 0: it has no power", card=card)


def _require_on_street(state: State, card: str) -> None:
    if cards.check(card) not in state.street:
        raise RuleViolation("not_on_street", f"There is no {card} on the Street", card=card)


def _decide_refresh(state: State, seat: int, c: Refresh, out: list[Event]) -> None:
    _require_stage(state, REFRESH, "Refreshing the Street")
    block = refresh_block(state)
    if block is not None:
        raise block
    _require_on_street(state, c.card)
    destination: Literal["discard", "deck_bottom"] = (
        "discard" if state.deck_pass == 1 else "deck_bottom"
    )
    state = _emit(state, out, StreetRefreshed(seat=seat, card=c.card, destination=destination))
    _reveal(state, out, RANK[c.card])


def _decide_accountant(state: State, seat: int, c: PlayAccountant, out: list[Event]) -> None:
    _require_stage(state, ACCOUNTANT, "Playing an Accountant")
    _require_power(c.card, BLUE)
    _require_in_hand(state, seat, c.card)
    _emit(state, out, AccountantPlayed(seat=seat, card=c.card))


def _decide_swap(state: State, seat: int, c: Swap, out: list[Event]) -> None:
    if not swapping(state):
        raise RuleViolation(
            "wrong_phase", "Exchanges need an Accountant played this action", case="no_accountant"
        )
    _require_in_hand(state, seat, c.hand_card)
    if cards.check(c.area_card) not in swappable_area(state, seat):
        if c.area_card == state.accountant and c.area_card in state.areas[seat]:
            raise RuleViolation(
                "accountant_locked",
                "The Accountant just played cannot be taken back",
                card=c.area_card,
            )
        raise RuleViolation(
            "not_in_area", f"There is no {c.area_card} in your area", card=c.area_card
        )
    if c.hand_card == c.area_card:
        raise RuleViolation(
            "same_card",
            "Exchanging a card for an identical one changes nothing",
            card=c.hand_card,
        )
    _emit(state, out, CardsSwapped(seat=seat, hand_card=c.hand_card, area_card=c.area_card))


def _decide_end_swaps(state: State, seat: int, out: list[Event]) -> None:
    if not swapping(state):
        raise RuleViolation("wrong_phase", "No Accountant's exchanges are open", case="no_swaps")
    _emit(state, out, SwapsEnded(seat=seat))


def _decide_brute(state: State, seat: int, c: PlayBrute, out: list[Event]) -> None:
    _require_stage(state, BRUTE, "Playing a Brute")
    _require_power(c.card, YELLOW)
    _require_in_hand(state, seat, c.card)
    _require_on_street(state, c.target)
    rank = RANK[c.card]
    if not 1 <= c.amount <= rank:
        raise RuleViolation(
            "bad_amount",
            f"{c.card} lowers a rank by 1 to {rank}",
            case="brute_rank",
            card=c.card,
            rank=rank,
        )
    if c.amount > RANK[c.target]:
        raise RuleViolation(
            "bad_amount",
            f"{c.target} cannot be lowered by {c.amount}: never below rank 0",
            case="below_zero",
            card=c.target,
            amount=c.amount,
        )
    _emit(state, out, BrutePlayed(seat=seat, card=c.card, target=c.target, amount=c.amount))


def _decide_recruit(state: State, seat: int, c: Recruit, out: list[Event]) -> None:
    _require_stage(state, RECRUIT, "Recruiting")
    _require_on_street(state, c.card)
    ranks = {k for card, k in street_ranks(state) if card == c.card}
    shown = [x for x in (c.to_area, c.back_to_hand) if x is not None]
    for x in shown:
        cards.check(x)
    if not shown:
        if 0 not in ranks:
            raise RuleViolation(
                "pair_required",
                f"{c.card} is not free: show two cards (to_area, back_to_hand)",
                card=c.card,
            )
        rank = 0
    else:
        if len(shown) != 2:
            raise RuleViolation(
                "bad_pair", "Show two cards: to_area and back_to_hand", case="two_cards"
            )
        rank = pair_rank(state.options, c.card, shown[0], shown[1], ranks)
        if shown[0] == shown[1]:
            _require_in_hand(state, seat, shown[0], 2)
        else:
            _require_in_hand(state, seat, shown[0])
            _require_in_hand(state, seat, shown[1])
    state = _emit(
        state,
        out,
        Recruited(
            seat=seat,
            card=c.card,
            rank=rank,
            to_area=c.to_area,
            back_to_hand=c.back_to_hand,
        ),
    )
    _end_turn(state, out)


def _decide_pass(state: State, seat: int, out: list[Event]) -> None:
    _require_stage(state, RECRUIT, "Passing")
    _end_turn(_emit(state, out, Passed(seat=seat)), out)
