"""Drive a game with a policy: used by the terminal runner, the property tests and the benchmarks.

A policy gets only what a player would: that seat's view and legal commands.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import msgspec

from domain.core import Game, Secret
from domain.rng import Rng

Policy = Callable[[int, msgspec.Struct, list[Any]], Any]


class Step(msgspec.Struct):
    seat: int
    command: Any
    events: list[Any]
    state: Any  # after the events


def random_policy(seed: bytes) -> Policy:
    """Uniform over the legal commands, from the domain's own generator."""
    rng = Rng(seed, b"random-policy")

    def choose(seat: int, view: msgspec.Struct, legal: list[Any]) -> Any:
        return legal[rng.below(len(legal))]

    return choose


def secret_for(n: int) -> Secret:
    """A reproducible secret for test and benchmark game number ``n`` (never for real games)."""
    return Secret(seed=n.to_bytes(8, "big") * 4, salt=b"omerta-test-salt")


def play(
    game: Game,
    seats: int,
    secret: Secret,
    options: msgspec.Struct,
    policies: list[Policy],
    max_commands: int = 100_000,
) -> Iterator[Step]:
    """Yield each step until the game ends. When several seats owe a decision, the lowest
    seat moves first (the rules let them answer in any order)."""
    state = None
    for event in game.start(seats, secret, options):
        state = game.evolve(state, event)
    for _ in range(max_commands):
        if game.result(state) is not None:
            return
        waiting = sorted(game.to_act(state))
        if not waiting:
            raise RuntimeError("game is not over but nobody is to act")
        seat = waiting[0]
        legal = game.legal(state, seat)
        command = policies[seat](seat, game.view(state, seat), legal)
        events = game.decide(state, seat, command)
        for event in events:
            state = game.evolve(state, event)
        yield Step(seat=seat, command=command, events=events, state=state)
    raise RuntimeError(f"game did not end within {max_commands} commands")
