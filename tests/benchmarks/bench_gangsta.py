"""Gangsta! domain speed: random legal play of whole games with 2 and with 4 players.

Each command counts legal() for the seat to act, view() for that seat, decide() and evolve() of
its events, as a bot driving the game through the protocol would. Goal: >= 10,000 commands/s on
one core, legal() included.
"""

from __future__ import annotations

import time

from domain.gangsta import game
from domain.play import secret_for
from domain.rng import Rng
from tests.benchmarks.common import median, progress

GOAL = 10_000
GAMES = 40


def _play(seats: int, n: int) -> int:
    state = None
    for event in game.start(seats, secret_for(n), game.options(None)):
        state = game.evolve(state, event)
    rng = Rng(n.to_bytes(8, "big"), b"bench")
    commands = 0
    while game.result(state) is None:
        seat = min(game.to_act(state))
        legal = game.legal(state, seat)
        game.view(state, seat)
        for event in game.decide(state, seat, legal[rng.below(len(legal))]):
            state = game.evolve(state, event)
        commands += 1
    return commands


def run() -> None:
    print(f"gangsta: goal >= {GOAL:,} commands/s on one core (legal + view + decide + evolve)")
    for seats in (2, 4):
        counts: list[float] = []
        start = time.perf_counter()
        for i in range(GAMES):
            counts.append(_play(seats, i))
            if (i + 1) % 10 == 0:
                progress(i + 1, GAMES, f"{seats} players")
        elapsed = time.perf_counter() - start
        rate = sum(counts) / elapsed
        print(
            f"  {seats} players: {GAMES / elapsed:,.1f} games/s, {rate:,.0f} commands/s, "
            f"median {median(counts):.0f} commands/game "
            f"({'meets' if rate >= GOAL else 'BELOW'} the goal of {GOAL:,}/s)"
        )
