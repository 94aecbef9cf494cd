"""Famiglia: whole games of random legal play on one core.

Each command costs what a real turn costs: legal() and view() for the policy, decide, and evolve
for every event. Two kinds of players: uniformly random (they pass often, so many games end
early on two passes) and eager (rarely pass, so games run through the reshuffle to the deck's
end). Goal: >= 10,000 commands per second.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from domain.famiglia import game
from domain.play import Policy, play, random_policy, secret_for
from tests.benchmarks.common import median, progress
from tests.domain.famiglia.helpers import eager_policy

GAMES = 200
GOAL = 10_000


def _bench(label: str, make: Callable[[bytes], Policy]) -> None:
    options = game.options(None)
    lengths: list[int] = []
    start = time.perf_counter()
    for n in range(GAMES):
        policies = [make(f"bench-{n}-{seat}".encode()) for seat in range(2)]
        lengths.append(sum(1 for _ in play(game, 2, secret_for(n), options, policies)))
        if (n + 1) % 20 == 0:
            progress(n + 1, GAMES, label)
    elapsed = time.perf_counter() - start
    commands = sum(lengths)
    rate = commands / elapsed
    print(
        f"  {label}: {GAMES / elapsed:,.0f} games/s, {rate:,.0f} commands/s, "
        f"median {median(lengths):.0f} commands/game "
        f"({'meets' if rate >= GOAL else 'BELOW'} the goal of {GOAL:,} commands/s)"
    )


def run() -> None:
    _bench("uniform random players", random_policy)
    _bench("eager random players", eager_policy)
