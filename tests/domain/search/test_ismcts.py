"""SO-ISMCTS (domain.search) on tiny perfect-information games and on real Famiglia positions.

The samplers here are honest: they return only what the searching seat knows, either because
nothing is hidden from it (the toy games, a Famiglia position with an empty deck) or because
they reshuffle exactly what the seat cannot see (the order of a Famiglia deck; the opponent's
hand is known from the public moves, FAMIGLIA.md).
"""

from __future__ import annotations

import types
from typing import Any

import msgspec
import pytest

from domain import GAMES
from domain.core import Result, Secret, commitment
from domain.famiglia import game as famiglia
from domain.famiglia.messages import Options, Pass, Recruit
from domain.famiglia.state import State
from domain.play import play, random_policy, secret_for
from domain.rng import Rng
from domain.search import generic, rewards, search
from domain.search.ismcts import SAMPLE_SHARE
from tests.domain.famiglia.helpers import eager_policy, make_state

# --- toy games ----------------------------------------------------------------------------


class Take(msgspec.Struct, frozen=True):
    count: int


class Pile(msgspec.Struct, frozen=True):
    left: int
    current: int = 0
    winner: int | None = None


class Nim:
    """Two players take 1-3 from a pile; whoever takes the last one wins."""

    def legal(self, state: Pile, seat: int) -> list[Take]:
        if seat != state.current or state.winner is not None:
            return []
        return [Take(count=n) for n in (1, 2, 3) if n <= state.left]

    def to_act(self, state: Pile) -> set[int]:
        return set() if state.winner is not None else {state.current}

    def decide(self, state: Pile, seat: int, command: Take) -> list[Take]:
        assert command in self.legal(state, seat)
        return [command]

    def evolve(self, state: Pile, event: Take) -> Pile:
        left = state.left - event.count
        winner = state.current if left == 0 else None
        return Pile(left=left, current=1 - state.current, winner=winner)

    def result(self, state: Pile) -> Result | None:
        if state.winner is None:
            return None
        scores = [1 if s == state.winner else 0 for s in (0, 1)]
        return Result(scores=scores, winners=[state.winner], reason="last_taken")


class Bid(msgspec.Struct, frozen=True):
    seat: int
    amount: int


class Bids(msgspec.Struct, frozen=True):
    bids: tuple[int | None, ...]


class Auction:
    """Every seat bids 1-3 at once (all are to act together); the highest bids win."""

    def legal(self, state: Bids, seat: int) -> list[Bid]:
        if state.bids[seat] is not None:
            return []
        return [Bid(seat=seat, amount=n) for n in (1, 2, 3)]

    def to_act(self, state: Bids) -> set[int]:
        return {s for s, b in enumerate(state.bids) if b is None}

    def decide(self, state: Bids, seat: int, command: Bid) -> list[Bid]:
        assert command in self.legal(state, seat)
        return [command]

    def evolve(self, state: Bids, event: Bid) -> Bids:
        bids = list(state.bids)
        bids[event.seat] = event.amount
        return Bids(bids=tuple(bids))

    def result(self, state: Bids) -> Result | None:
        if None in state.bids:
            return None
        scores = [b or 0 for b in state.bids]
        winners = [s for s, b in enumerate(scores) if b == max(scores)]
        return Result(scores=scores, winners=winners, reason="bids_open")


def nothing_hidden(state: Any) -> Any:
    def sample(seat: int, view: Any, history: list[Any], rng: Rng) -> Any:
        return state

    return sample


def run(
    game: Any, state: Any, seat: int, sample: Any = None, playout: Any = None, **how: Any
) -> Any:
    legal = game.legal(state, seat)
    walked = playout or generic(game)
    sample = sample or nothing_hidden(state)
    command = search(walked, seat, None, legal, [], sample, Rng(b"seed", b"t"), **how)
    assert command in legal
    return command


@pytest.mark.parametrize(("left", "winning"), [(5, 1), (6, 2), (7, 3)])
def test_nim_takes_the_winning_count(left: int, winning: int) -> None:
    assert run(Nim(), Pile(left=left), 0, iterations=2000) == Take(count=winning)


@pytest.mark.parametrize(("seats", "seat"), [(2, 1), (3, 2), (4, 1)])
def test_a_seat_that_is_not_lowest_chooses_its_own_simultaneous_decision(
    seats: int, seat: int
) -> None:
    """All seats owe a bid at once: the root is the searching seat's own bid, and each seat's
    reward is its own (with 3-4 seats the others' bids are made for their own good)."""
    state = Bids(bids=(None,) * seats)
    assert run(Auction(), state, seat, iterations=500) == Bid(seat=seat, amount=3)


def test_rewards_are_each_seats_own_result() -> None:
    alone = rewards(Result(scores=[10, 4, 6], winners=[0], reason="r"), 3)
    assert alone[0] > 0.9 and alone[1] < alone[2] < 0.1
    shared = rewards(Result(scores=[5, 5], winners=[0, 1], reason="r"), 2)
    assert shared[0] == shared[1] == pytest.approx(0.5)


# --- Famiglia -----------------------------------------------------------------------------


def reshuffled_deck(real: State) -> Any:
    """What the seat cannot know in Famiglia: the order of the deck, and (for the reshuffle)
    the seed. Everything else in the state follows from the view and the public moves."""

    def sample(seat: int, view: Any, history: list[Any], rng: Rng) -> State:
        secret = Secret(seed=bytes(rng.below(256) for _ in range(32)), salt=b"sampled")
        return msgspec.structs.replace(
            real, deck=tuple(rng.shuffle(real.deck)), secret=secret, commitment=commitment(secret)
        )

    return sample


def mid_game(commands: int = 12) -> State:
    policies = [eager_policy(b"a"), eager_policy(b"b")]
    steps = play(famiglia, 2, secret_for(3), Options(), policies)
    for _, step in zip(range(commands), steps, strict=False):
        state = step.state
    assert famiglia.result(state) is None
    return state


def test_famiglia_recruits_the_card_that_wins_the_last_turn() -> None:
    """The last turn (the deck has run out): the free red-0 wins on the tie-break (best card
    red-1 against red-0); the free blue-0 or a pass lose by a point."""
    state = make_state(
        areas=("red-1", "red-0 red-0 red-0 red-0"), street="red-0 blue-0", final_turns=0
    )
    assert set(famiglia.legal(state, 0)) == {Recruit(card="red-0"), Recruit(card="blue-0"), Pass()}
    assert run(famiglia, state, 0, iterations=50) == Recruit(card="red-0")


def test_a_single_legal_command_is_returned_without_searching() -> None:
    def refuse(*args: Any) -> Any:
        raise AssertionError("a single legal command needs no sample")

    only = Pass()
    got = search(generic(famiglia), 0, None, [only], [], refuse, Rng(b"s", b"t"), iterations=1000)
    assert got is only


def test_the_iteration_cap_is_respected() -> None:
    state = mid_game()
    seat = min(famiglia.to_act(state))
    honest = reshuffled_deck(state)
    calls = []

    def counting(*args: Any) -> State:
        calls.append(1)
        return honest(*args)

    run(famiglia, state, seat, counting, iterations=37)
    assert len(calls) == 37  # without a clock, a determinization per iteration


class Timed:
    """A clock that only the search's work advances: ``walk`` seconds an iteration (at its
    ``enter``), ``draw`` seconds a determinization."""

    def __init__(self, state: State, walk: float, draw: float) -> None:
        self.now, self.walk, self.draw = 0.0, walk, draw
        self.rules = generic(famiglia)
        self.honest = reshuffled_deck(state)
        self.samples = 0
        self.iterations: list[int] = []

    def clock(self) -> float:
        return self.now

    def sample(self, *args: Any) -> State:
        self.now += self.draw
        self.samples += 1
        return self.honest(*args)

    def enter(self, state: State) -> State:
        self.now += self.walk
        return state

    def search(self, state: State, budget: float) -> Any:
        seat = min(famiglia.to_act(state))
        playout = types.SimpleNamespace(
            **{n: getattr(self.rules, n) for n in ("to_act", "legal", "step", "done", "playout")},
            enter=self.enter,
        )
        legal = famiglia.legal(state, seat)
        return search(
            playout, seat, None, legal, [], self.sample, Rng(b"s", b"t"),
            clock=self.clock, budget=budget, report=self.iterations.append,
        )  # fmt: skip


def test_the_clock_stops_the_search_and_a_cheap_sampler_draws_every_iteration() -> None:
    state = mid_game()
    timed = Timed(state, walk=1.0, draw=0.0)
    timed.search(state, budget=10.0)
    assert timed.iterations == [10] and timed.samples == 10


def test_an_expensive_sampler_takes_at_most_its_share_of_the_time() -> None:
    """Drawing a determinization costs ten iterations' walks: a determinization then serves
    several iterations, so that drawing them takes about ``SAMPLE_SHARE`` of the budget."""
    state = mid_game()
    timed = Timed(state, walk=1.0, draw=10.0)
    timed.search(state, budget=1000.0)
    share = timed.samples * timed.draw / timed.now
    assert SAMPLE_SHARE - 0.05 <= share <= SAMPLE_SHARE + 0.02
    assert timed.iterations[0] == round(timed.now - timed.samples * timed.draw)
    assert timed.samples > 10


def test_the_search_is_deterministic_for_a_seed_and_iteration_count() -> None:
    state = mid_game()
    seat = min(famiglia.to_act(state))
    assert len(famiglia.legal(state, seat)) > 1
    chosen = {run(famiglia, state, seat, reshuffled_deck(state), iterations=60) for _ in range(3)}
    assert len(chosen) == 1


def test_search_needs_a_cap_or_a_budget() -> None:
    state = mid_game()
    seat = min(famiglia.to_act(state))
    with pytest.raises(ValueError):
        run(famiglia, state, seat, reshuffled_deck(state))


def test_a_rollout_policy_plays_the_rollouts() -> None:
    """Three iterations expand each first move once and roll it out by "take one": only taking
    2 of 6 leaves an even pile, whose last one seat 0 then takes; with as many visits each, the
    best mean reward decides."""
    played = []

    def take_one(game: Any, state: Pile, seat: int, legal: list[Any], rng: Rng) -> Any:
        played.append(seat)
        return Take(count=1)

    playout = generic(Nim(), take_one)
    assert run(Nim(), Pile(left=6), 0, playout=playout, iterations=3) == Take(count=2)
    assert played


@pytest.mark.parametrize(("name", "seats"), [("famiglia", 2), ("gangsta", 2), ("gangsta", 4)])
def test_every_legal_command_can_key_a_node(name: str, seats: int) -> None:
    """Nodes are keyed by commands: every command ``legal`` lists in a random game hashes, and
    no two of them are equal (each is one child)."""
    game = GAMES[name].inner
    policies = [random_policy(b"%d" % s) for s in range(seats)]
    for step in play(game, seats, secret_for(1), game.options(None), policies):
        for seat in game.to_act(step.state):
            legal = game.legal(step.state, seat)
            assert len({(seat, command) for command in legal}) == len(legal)
