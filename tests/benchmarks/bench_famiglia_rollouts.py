"""Famiglia: random rollouts as a search runs them, on one core.

A rollout is legal -> pick uniformly -> decide -> evolve every event, until the game ends: no
view, which a search does not need inside a rollout. Rates are per CPU second of this process,
since the machine is shared. The states are those a search starts from:
the start of seeded games (also without the double-pass end, so rollouts run through the
reshuffle to the deck's end), and states sampled (domain.famiglia.sample) for the seat to move at
positions of seeded eager games. Issue 16's goal: at least 3x the commands per second measured
when the bench was written (see /work/notes/s16-fsample.md for the figures).
"""

from __future__ import annotations

import time
from typing import Any

from domain.famiglia import game
from domain.famiglia.sample import sample
from domain.famiglia.state import State
from domain.famiglia.view import redact
from domain.play import play, secret_for
from domain.rng import Rng
from tests.benchmarks.common import progress
from tests.domain.famiglia.helpers import eager_policy

ROLLOUTS = 2000
EVERY = 10  # commands of an eager game between two sampled positions


def rollout(state: State, rng: Rng) -> int:
    """Commands played until the game ends."""
    commands = 0
    while state.ended is None:
        (seat,) = game.to_act(state)
        options = game.legal(state, seat)
        for event in game.decide(state, seat, options[rng.below(len(options))]):
            state = game.evolve(state, event)
        commands += 1
    return commands


def _starts(options: dict[str, Any] | None = None, count: int = ROLLOUTS) -> list[State]:
    out = []
    for n in range(count):
        state = None
        for event in game.start(2, secret_for(n), game.options(options)):
            state = game.evolve(state, event)
        out.append(state)
    return out


def _sampled() -> list[State]:
    out: list[State] = []
    n = 0
    while len(out) < ROLLOUTS:
        policies = [eager_policy(f"rollout-bench-{n}-{s}".encode()) for s in range(2)]
        events: list[Any] = list(game.start(2, secret_for(n), game.options(None)))
        for i, step in enumerate(play(game, 2, secret_for(n), game.options(None), policies)):
            events += step.events
            moving = game.to_act(step.state)
            if i % EVERY == 0 and moving and len(out) < ROLLOUTS:
                (seat,) = moving
                history = [redact(e, seat) for e in events]
                rng = Rng(f"{n}-{i}".encode(), b"bench-sample")
                out.append(sample(seat, game.view(step.state, seat), history, rng))
        n += 1
    return out


def _bench(label: str, states: list[State]) -> None:
    commands = 0
    start = time.process_time()
    for i, state in enumerate(states):
        commands += rollout(state, Rng(i.to_bytes(8, "big"), b"rollout"))
        if (i + 1) % (len(states) // 4) == 0:
            progress(i + 1, len(states), label)
    elapsed = time.process_time() - start
    print(
        f"  {label}: {len(states) / elapsed:,.0f} rollouts/s, {commands / elapsed:,.0f} "
        f"commands/s, {commands / len(states):.0f} commands/rollout"
    )


def run() -> None:
    _bench("rollouts from the start", _starts())
    _bench("rollouts from sampled mid-game states", _sampled())
    # Uniform play passes often; without the double-pass end, rollouts run to the deck's end.
    _bench("rollouts from the start, no double-pass end", _starts({"double_pass_ends": False}, 200))


if __name__ == "__main__":
    run()
