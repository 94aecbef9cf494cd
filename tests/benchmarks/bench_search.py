"""Iterations per move of the search levels at their default budgets, at positions
of seeded greedy games: Famiglia, Gangsta! with 2 and with 4 players.

Each move is searched by ``domain.bots.choose`` as the AI jobs call it (view, legal commands,
redacted history), with the budget measured on this thread's processor time: the figure one
core gives (the machines are shared; a wall clock would count the others' work too). A move
with a single legal command takes no search and is skipped. Plot: ``bench-results/search.png``.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from matplotlib.figure import Figure

from api.tournament import History, percentile
from domain import GAMES, bots
from domain.play import secret_for

CASES = (("famiglia", 2), ("gangsta", 2), ("gangsta", 4))
POSITIONS = {"medium": 16, "expert": 3}  # per case; expert is 1 s a position
PLOT = Path("bench-results/search.png")


def positions(game: str, seats: int, count: int) -> list[tuple[int, Any, list[Any], list[Any]]]:
    """``count`` positions (seat, view, legal, history) with a choice, evenly spread over two
    seeded games of greedy bots."""
    table = GAMES[game]
    found: list[tuple[int, Any, list[Any], list[Any]]] = []
    for number in range(2):
        history = History(table, seats)
        state = None
        for event in table.start(seats, secret_for(700 + number), table.options({})):
            state = table.evolve(state, event)
            history.add(event)
        move = 0
        while table.result(state) is None:
            seat = min(table.to_act(state))
            legal = table.legal(state, seat)
            view = table.view(state, seat)
            if len(legal) > 1:
                found.append((seat, view, legal, history.seen(seat)))
            command = bots.choose(game, "greedy", view, legal, b"bench:%d:%d" % (number, move))
            for event in table.decide(state, seat, command):
                state = table.evolve(state, event)
                history.add(event)
            move += 1
    return [found[(2 * i + 1) * len(found) // (2 * count)] for i in range(count)]


def iterations(
    game: str, level: str, cases: list[tuple[int, Any, list[Any], list[Any]]]
) -> list[int]:
    counts: list[int] = []
    for n, (seat, view, legal, history) in enumerate(cases):
        seen = bots.Seen(seat, history, time.thread_time, report=counts.append)
        bots.choose(game, level, view, legal, b"bench-search:%d" % n, seen)
    return counts


def run() -> None:
    print(
        "search: iterations per move at the default budgets (one core: processor time), "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    labels, data = [], []
    for game, seats in CASES:
        for level, count in POSITIONS.items():
            counts = iterations(game, level, positions(game, seats, count))
            budget = bots.SEARCH_LEVELS[level]
            print(
                f"  {game} {seats}p {level} ({budget} s): median "
                f"{percentile(counts, 50)}, p10 {percentile(counts, 10)}, "
                f"p90 {percentile(counts, 90)} iterations/move over {len(counts)} positions",
                flush=True,
            )
            labels.append(f"{game} {seats}p\n{level}")
            data.append(counts)
    PLOT.parent.mkdir(parents=True, exist_ok=True)
    fig = Figure(figsize=(9, 4))
    ax = fig.subplots()
    ax.boxplot(data, whis=(10, 90))
    ax.set_xticks(range(1, len(labels) + 1), labels, fontsize=8)
    ax.set_yscale("log")
    ax.set_ylabel("iterations per move (whiskers p10-p90)")
    ax.set_title("Search: iterations per move at the default budgets, one core")
    fig.tight_layout()
    fig.savefig(PLOT, dpi=110)
    print(f"  plot: {PLOT}")
