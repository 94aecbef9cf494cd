"""Gangsta! rollout speed for search (issue 16): random play to the end from positions of
random games, as an ISMCTS iteration does after sampling a state from the seat's information.

Each rollout command counts legal() for the seat to act, decide() and evolve() of its events
(no view: a rollout needs none), timed in CPU time of this process (the machines are shared).
Also timed: sample(), one determinization per iteration.
Issue 16's goal: at least 3x the rollout commands per second measured before the speed-ups
(recorded in /work/notes/s16-gsample.md and the README).
"""

from __future__ import annotations

import time
from typing import Any

from domain.core import replay
from domain.gangsta import game
from domain.gangsta.sample import sample
from domain.gangsta.state import State
from domain.play import secret_for
from domain.rng import Rng
from tests.benchmarks.common import median

GAMES = 12  # source games per setting
EVERY = 25  # a position every 25 commands of a source game
CASES: list[tuple[int, dict[str, Any]]] = [(2, {}), (4, {}), (2, {"resources": True})]


def _positions(seats: int, raw: dict[str, Any]) -> list[tuple[State, list[Any]]]:
    """(state, events so far) at every EVERY-th command of random games."""
    out = []
    for n in range(GAMES):
        events = game.start(seats, secret_for(900 + n), game.options(raw))
        state = replay(game, events)
        rng = Rng(n.to_bytes(8, "big"), b"bench-source")
        step = 0
        while game.result(state) is None:
            if step % EVERY == 0:
                out.append((state, list(events)))
            seat = min(game.to_act(state))
            legal = game.legal(state, seat)
            new = game.decide(state, seat, legal[rng.below(len(legal))])
            for event in new:
                state = game.evolve(state, event)
            events += new
            step += 1
    return out


def _rollout(state: State, rng: Rng) -> int:
    commands = 0
    while game.result(state) is None:
        seat = min(game.to_act(state))
        legal = game.legal(state, seat)
        for event in game.decide(state, seat, legal[rng.below(len(legal))]):
            state = game.evolve(state, event)
        commands += 1
    return commands


def run() -> None:
    print("gangsta rollouts: random play to the end from positions of random games, one core")
    for seats, raw in CASES:
        positions = _positions(seats, raw)
        rng = Rng(b"bench", b"rollouts")
        commands = 0
        start = time.process_time()
        for state, _ in positions:
            commands += _rollout(state, rng)
        elapsed = time.process_time() - start
        sample_times = []
        for state, events in positions:
            seat = min(game.to_act(state))
            history = [game.redact(e, seat) for e in events]
            seen = game.view(state, seat)
            t0 = time.process_time()
            sample(seat, seen, history, rng)
            sample_times.append(time.process_time() - t0)
        label = f"{seats} players{' + resources' if raw else ''}"
        print(
            f"  {label}: {commands / elapsed:,.0f} rollout commands/s, "
            f"{len(positions) / elapsed:,.1f} rollouts/s ({len(positions)} positions), "
            f"sample() median {median(sample_times) * 1000:.2f} ms"
        )
