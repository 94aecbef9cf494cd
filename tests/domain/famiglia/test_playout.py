"""playout.py, the search's fast path: equal to the rules over many random positions, and a
rollout policy whose playouts end with rewards in [0, 1].

The positions come from seeded games of uniform and eager players under both settings of the
options that change play, so they pass the reshuffle, refreshes under the deck and the deck's
second end. At each position every legal command is stepped and compared with decide + evolve.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from domain import bots
from domain.famiglia import game, playout
from domain.famiglia.messages import DeckRanOut, DeckReshuffled, Recruit, Refresh
from domain.famiglia.state import State
from domain.play import Policy, random_policy, secret_for
from domain.rng import Rng

from .helpers import eager_policy

OPTIONS = [
    {"double_pass_ends": True, "mercenary_for_green": False},
    {"double_pass_ends": False, "mercenary_for_green": True},
    {"double_pass_ends": True, "mercenary_for_green": True},
]
GAMES = 12  # per option setting and kind of player


def _fold(state: State, seat: int, command: Any) -> tuple[list[Any], State]:
    events = game.decide(state, seat, command)
    for event in events:
        state = game.evolve(state, event)
    return events, state


def _check_position(state: State) -> None:
    s = playout.enter(state)
    assert set(playout.to_act(s)) == game.to_act(state)
    assert playout.done(s) == game.result(state)
    for seat in range(2):
        assert playout.legal(s, seat) == game.legal(state, seat)


def _greedy(seed: bytes) -> Policy:
    def choose(seat: int, view: Any, legal: list[Any]) -> Any:
        return bots.choose("famiglia", "greedy", view, legal, seed + bytes(len(view.street)))

    return choose


PLAYERS: dict[str, Callable[[bytes], Policy]] = {
    "uniform": random_policy,
    "eager": eager_policy,
    "greedy": _greedy,
}


def _game(n: int, player: str, options: dict[str, Any]) -> list[tuple[type, type]]:
    """Play one game checking every position and every legal command; the (command type,
    event type) pairs seen."""
    policies = [PLAYERS[player](f"playout-{n}-{seat}".encode()) for seat in range(2)]
    state = None
    for event in game.start(2, secret_for(n), game.options(options)):
        state = game.evolve(state, event)
    seen: list[tuple[type, type]] = []
    while True:
        _check_position(state)
        if game.result(state) is not None:
            return seen
        (seat,) = game.to_act(state)
        legal = game.legal(state, seat)
        for command in legal:
            assert (
                playout.step(playout.enter(state), seat, command) == _fold(state, seat, command)[1]
            )
        command = policies[seat](seat, game.view(state, seat), legal)
        events, state = _fold(state, seat, command)
        seen += [(type(command), type(e)) for e in events]


@pytest.mark.parametrize("options", OPTIONS)
@pytest.mark.parametrize("player", PLAYERS)
def test_fast_path_equals_the_rules(options: dict[str, Any], player: str) -> None:
    seen: set[tuple[type, type]] = set()
    for n in range(GAMES):
        seen.update(_game(n, player, options))
    # The positions reach the reshuffle and the deck's second end in a refresh's reveal, and
    # (in the greedy bots' longer games) in the refill of an empty Street after a recruit.
    reached = {
        (command, event) for command in (Refresh, Recruit) for event in (DeckReshuffled, DeckRanOut)
    }
    if player == "greedy" and options["mercenary_for_green"]:
        assert reached <= seen
    elif player != "uniform":
        assert {(Refresh, DeckReshuffled), (Refresh, DeckRanOut)} <= seen


def _positions(count: int) -> list[State]:
    out: list[State] = []
    n = 0
    while len(out) < count:
        options = OPTIONS[n % len(OPTIONS)]
        policies = [eager_policy(f"playout-pos-{n}-{seat}".encode()) for seat in range(2)]
        state = None
        for event in game.start(2, secret_for(1000 + n), game.options(options)):
            state = game.evolve(state, event)
        i = 0
        while game.result(state) is None:
            if i % 9 == 0:
                out.append(state)
            (seat,) = game.to_act(state)
            command = policies[seat](seat, game.view(state, seat), game.legal(state, seat))
            state = _fold(state, seat, command)[1]
            i += 1
        out.append(state)  # an ended game too
        n += 1
    return out


def test_playouts_end_with_rewards_in_range() -> None:
    for i, state in enumerate(_positions(300)):
        reward = playout.playout(playout.enter(state), Rng(b"%d" % i, b"playout-test"))
        assert len(reward) == 2
        assert all(0.0 <= r <= 1.0 for r in reward), reward


def test_playout_of_an_ended_game_is_its_result() -> None:
    from domain.search import rewards

    ended = [s for s in _positions(60) if s.ended is not None]
    assert ended
    for state in ended:
        result = game.result(state)
        assert playout.playout(state, Rng(b"x", b"y")) == rewards(result, 2)
