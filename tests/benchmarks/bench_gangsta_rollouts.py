"""Gangsta! rollout speed for search: random play to the end from positions of
random games, as an ISMCTS iteration does after sampling a state from the seat's information.

Two paths over the same positions with the same generator (so the same commands), side by
side: the rules ("today's": ``legal`` for the seat to act, ``decide``, ``evolve`` of its events)
and search's fast path (domain/gangsta/playout.py: ``legal``, ``step``). Timed in CPU time of
this process (the machines are shared), interleaved, median of REPEATS runs each; the ratio is
printed against the goal of 3x. Also timed: sample() (the first call replays the
history, a second one with the same view and history only reshuffles the decks), and the
rollout policy's playouts (what one search iteration costs after the sample).
"""

from __future__ import annotations

import functools
import time
from typing import Any

from domain.core import replay
from domain.gangsta import game, playout
from domain.gangsta.sample import sample
from domain.gangsta.state import State
from domain.play import secret_for
from domain.rng import Rng
from tests.benchmarks.common import fast_rollout, median, rules_rollout

GAMES = 12  # source games per setting
EVERY = 25  # a position every 25 commands of a source game
REPEATS = 3
GOAL = 3.0
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


def _rate(rollout: Any, positions: list[tuple[State, list[Any]]]) -> tuple[float, int]:
    rng = Rng(b"bench", b"rollouts")
    commands = 0
    start = time.process_time()
    for state, _ in positions:
        commands += rollout(state, rng)
    return commands / (time.process_time() - start), commands


def _sample_times(positions: list[tuple[State, list[Any]]]) -> tuple[float, float]:
    rng = Rng(b"bench", b"sample")
    first, again = [], []
    for state, events in positions:
        seat = min(game.to_act(state))
        history = [game.redact(e, seat) for e in events]
        seen = game.view(state, seat)
        t0 = time.process_time()
        sample(seat, seen, history, rng)
        t1 = time.process_time()
        sample(seat, seen, history, rng)
        first.append(t1 - t0)
        again.append(time.process_time() - t1)
    return median(first), median(again)


def _playout_time(positions: list[tuple[State, list[Any]]]) -> float:
    rng = Rng(b"bench", b"playouts")
    start = time.process_time()
    for state, _ in positions:
        playout.playout(playout.enter(state), rng)
    return (time.process_time() - start) / len(positions)


def run() -> None:
    print(
        "gangsta rollouts: random play to the end from positions of random games, one core "
        f"(CPU time, median of {REPEATS} interleaved runs)"
    )
    for seats, raw in CASES:
        positions = _positions(seats, raw)
        rules, fast = [], []
        for _ in range(REPEATS):
            rate, rules_commands = _rate(functools.partial(rules_rollout, game), positions)
            rules.append(rate)
            rate, fast_commands = _rate(functools.partial(fast_rollout, playout), positions)
            fast.append(rate)
            assert fast_commands == rules_commands, "the fast path played other games"
        ratio = median(fast) / median(rules)
        first, again = _sample_times(positions)
        label = f"{seats} players{' + resources' if raw else ''}"
        print(
            f"  {label} ({len(positions)} positions): rules {median(rules):,.0f} commands/s, "
            f"fast path {median(fast):,.0f} commands/s = {ratio:.2f}x "
            f"(goal {GOAL:.0f}x: {'met' if ratio >= GOAL else 'not met'}); "
            f"sample() {first * 1000:.2f} ms, again {again * 1000:.2f} ms; "
            f"policy playout {_playout_time(positions) * 1000:.2f} ms"
        )
