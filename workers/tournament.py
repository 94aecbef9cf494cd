"""How strong the bots are: ``python -m workers.tournament [--games 200]``.

Plays greedy against random bots with the domain alone (no server: the bots see exactly what
the jobs give them, a seat's view and legal commands), rotating the greedy seat, and prints the
greedy bot's win rate per match-up with a 95% Wilson interval beside the rate a bot no better
than its opponents would get (1 / seats). A shared win counts as a fraction. Writes a bar chart
(``bench-results/bots.png`` by default).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path
from typing import Any, NamedTuple

from matplotlib.figure import Figure

from domain import GAMES, bots
from domain.play import Policy, play, secret_for


class Matchup(NamedTuple):
    game: str
    seats: int


MATCHUPS = (Matchup("famiglia", 2), Matchup("gangsta", 2), Matchup("gangsta", 4))


class Outcome(NamedTuple):
    matchup: Matchup
    games: int
    wins: float  # of the greedy seat
    low: float
    high: float
    seconds: float

    @property
    def rate(self) -> float:
        return self.wins / self.games


def policy(game: str, level: str, label: str) -> Policy:
    """The bot as the worker runs it, with a seed from public facts (game number, move)."""
    moves = 0

    def choose(seat: int, view: Any, legal: list[Any]) -> Any:
        nonlocal moves
        moves += 1
        return bots.choose(game, level, view, legal, f"{label}:{moves}:{seat}".encode())

    return choose


def play_matchup(matchup: Matchup, games: int, progress: bool = True) -> Outcome:
    rules = GAMES[matchup.game]
    options = rules.options({})
    wins = 0.0
    start = time.perf_counter()
    for n in range(games):
        greedy_seat = n % matchup.seats
        policies = [
            policy(matchup.game, "greedy" if s == greedy_seat else "random", f"{n}")
            for s in range(matchup.seats)
        ]
        state = None
        for step in play(rules, matchup.seats, secret_for(n), options, policies):
            state = step.state
        result = rules.result(state)
        assert result is not None
        if greedy_seat in result.winners:
            wins += 1 / len(result.winners)
        if progress and ((n + 1) % 10 == 0 or n + 1 == games):
            print(f"\r  {matchup.game} x{matchup.seats}: {n + 1}/{games}", end="", flush=True)
    if progress:
        print()
    low, high = wilson(wins, games)
    return Outcome(matchup, games, wins, low, high, time.perf_counter() - start)


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    # Clamped to hold p: at p = 0 or 1 the bound is p itself, give or take a rounding error.
    return min(centre - half, p), max(centre + half, p)


def plot(outcomes: list[Outcome], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    labels = [f"{o.matchup.game}\n1 greedy vs {o.matchup.seats - 1} random" for o in outcomes]
    rates = [o.rate for o in outcomes]
    errors = [[o.rate - o.low for o in outcomes], [o.high - o.rate for o in outcomes]]
    fig = Figure(figsize=(7, 4))
    ax = fig.subplots()
    ax.bar(labels, rates, yerr=errors, capsize=6, color="#8c2d04", label="greedy win rate")
    for i, o in enumerate(outcomes):
        chance = 1 / o.matchup.seats
        ax.hlines(chance, i - 0.4, i + 0.4, colors="black", linestyles="dashed",
                  label="no better than random" if i == 0 else None)  # fmt: skip
        ax.text(i, o.high + 0.02, f"{o.rate:.0%}", ha="center")
    ax.set_ylim(0, 1.1)
    ax.set_ylabel(f"win rate over {outcomes[0].games} games (95% interval)")
    ax.set_title("Omerta bots: greedy against random")
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m workers.tournament", description=__doc__)
    parser.add_argument("--games", type=int, default=200, help="games per match-up")
    parser.add_argument("--out", type=Path, default=Path("bench-results/bots.png"))
    args = parser.parse_args(argv)
    outcomes = [play_matchup(m, args.games) for m in MATCHUPS]
    for o in outcomes:
        print(
            f"{o.matchup.game:<9} {o.matchup.seats} seats: greedy wins {o.rate:6.1%} "
            f"(95% {o.low:.1%}-{o.high:.1%}; chance {1 / o.matchup.seats:.0%}) "
            f"in {o.games} games, {o.seconds:.1f} s"
        )
    plot(outcomes, args.out)
    print(f"plot: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
