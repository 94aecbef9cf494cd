"""Property tests of Gangsta!'s fast path for search (domain/gangsta/playout.py): at many
positions of random games (2, 3 and 4 seats, option sets as in test_sample.py) its to_act,
legal, step and done equal the rules' (decide folded through evolve), for every seat that owes
a decision and every one of its legal commands; and its playouts give every seat a reward in
[0, 1], the rules' own rewards once the game is over."""

from __future__ import annotations

from typing import Any

import pytest

from domain.core import replay
from domain.gangsta import game, playout
from domain.gangsta.state import State
from domain.play import secret_for
from domain.rng import Rng
from domain.search import rewards
from tests.domain.gangsta.test_sample import OPTION_SETS, PEEK_GAMES

GAMES = {2: 8, 3: 6, 4: 6}
EVERY = 5  # check every 5th position
PLAYOUTS_EVERY = 20  # and play out every 20th


def folded(state: State, seat: int, command: Any) -> State:
    for event in game.decide(state, seat, command):
        state = game.evolve(state, event)
    return state


def check_position(state: State, rng: Rng, counts: dict[str, int]) -> None:
    s = playout.enter(state)
    assert set(playout.to_act(s)) == set(game.to_act(state))
    assert playout.done(s) == game.result(state)
    for seat in range(state.seats):
        legal = playout.legal(s, seat)
        assert legal == game.legal(state, seat)
        for command in legal:
            assert playout.step(s, seat, command) == folded(state, seat, command)
            counts["steps"] += 1
    if len(game.to_act(state)) > 1:
        counts["simultaneous"] += 1


def check_playout(state: State, rng: Rng) -> None:
    reward = playout.playout(playout.enter(state), rng)
    assert len(reward) == state.seats
    assert all(0.0 <= r <= 1.0 for r in reward)


def play_checked(seats: int, n: int, raw: dict[str, Any], counts: dict[str, int]) -> None:
    """A game where each move is random or the rollout policy's, checked along the way."""
    state = replay(game, game.start(seats, secret_for(n), game.options(raw)))
    rng = Rng(n.to_bytes(8, "big"), b"playout-game")
    step = 0
    while game.result(state) is None:
        if step % EVERY == 0:
            check_position(state, rng, counts)
            counts["positions"] += 1
        if step % PLAYOUTS_EVERY == 0:
            check_playout(state, rng)
        seat = min(game.to_act(state))
        legal = game.legal(state, seat)
        if rng.below(2):
            command = legal[rng.below(len(legal))]
        else:
            command = playout.choose(state, seat, legal, rng)
        state = folded(state, seat, command)
        step += 1
        assert step < 5000, "the game did not end"
    result = game.result(state)
    assert result is not None
    assert playout.done(state) == result
    assert playout.playout(state, rng) == rewards(result, seats)


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_fast_path_equals_the_rules_and_playouts_reward_in_range(seats: int) -> None:
    counts = {"positions": 0, "steps": 0, "simultaneous": 0}
    for g in range(GAMES[seats]):
        play_checked(seats, 8000 + 100 * seats + g, OPTION_SETS[g % len(OPTION_SETS)], counts)
    for n in PEEK_GAMES[seats]:
        play_checked(seats, n, {"resources": True}, counts)
    assert counts["positions"] > 100
    assert counts["steps"] > 1000
    # Decisions owed by several seats at once (discards, resource choices) were checked.
    assert counts["simultaneous"] > 0, counts


def test_rollout_policy_prefers_play_to_passing() -> None:
    """The policy plays like a player: from the first turn of a game it takes a heist or a
    hire far more often than it passes, where uniform play passes in one command of a few."""
    counts = {"pass": 0, "other": 0}
    for n in range(20):
        state = replay(game, game.start(2, secret_for(9000 + n), game.options({})))
        seat = min(game.to_act(state))
        legal = game.legal(state, seat)
        command = playout.choose(state, seat, legal, Rng(n.to_bytes(8, "big"), b"first"))
        counts["pass" if type(command).__name__ == "Pass" else "other"] += 1
    assert counts["other"] >= 15, counts
