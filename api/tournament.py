"""How strong the bots are: ``omerta tournament --levels expert,greedy``.

Plays seeded games of one game between two bot levels, with the domain alone (no server): the
first level on one seat, the second on all the others, the first level's seat rotated from game
to game (each deal is played once with the first level on every seat). The bots see exactly
what the AI jobs give them (``domain.bots.choose``): a seat's view and legal commands, and for
a search level its redacted history (as ``bots.seen_history`` gives it) and a clock.

Prints progress while it runs; at the end the first level's win rate (a shared win counts as a
fraction) with a 95 % Wilson interval beside what a bot no better than its opponents gets
(1 / seats), its score margin (its score minus the best other score), the time per move of
each level and a search level's iterations per move. Writes a plot and the figures as JSON to
``--out``. ``--jobs N`` plays N games at once, one process each (one core per game).
"""

from __future__ import annotations

import json
import math
import multiprocessing
import os
import statistics
import time
from collections.abc import Iterator, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import msgspec
from matplotlib.figure import Figure

from domain import GAMES, bots
from domain.play import secret_for
from domain.table.messages import EVENTS

MAX_COMMANDS = 100_000
PROGRESS_SECONDS = 5.0  # at most one progress line per this many seconds (log-friendly)


class Spec(msgspec.Struct, frozen=True):
    game: str
    seats: int
    levels: tuple[str, str]
    games: int
    seed: str = "tournament"
    budget: float | None = None  # seconds per move of the search levels, else the level's
    iterations: int | None = None  # a search level's cap per move (reproducible runs)
    # The search levels' clock: "wall" as the jobs, or "cpu", the processor time of the game's
    # process: a core of its own for each game on a machine shared with other work.
    clock: str = "wall"


class Move(msgspec.Struct, frozen=True, array_like=True):
    first: bool  # played by the first level
    seconds: float  # wall time of bots.choose
    cpu: float  # its processor time (the wall time less the machine's other work)
    choices: int  # legal commands
    iterations: int | None  # a search level's iterations


class Record(msgspec.Struct, frozen=True):
    number: int
    first_seat: int
    scores: list[int]
    winners: list[int]
    moves: list[Move]

    @property
    def win(self) -> float:
        return 1 / len(self.winners) if self.first_seat in self.winners else 0.0

    @property
    def margin(self) -> int:
        others = [s for seat, s in enumerate(self.scores) if seat != self.first_seat]
        return self.scores[self.first_seat] - max(others)


class History:
    """Each seat's redacted history of one game, kept as it grows: what ``bots.seen_history``
    gives the jobs (the game's own events, redacted for the seat; a bot game has no undo)."""

    def __init__(self, table: Any, seats: int) -> None:
        self.table = table
        self.events: list[Any] = []  # stored events, table events included
        self.game_events: list[Any] = []
        self.redacted: list[list[Any]] = [[] for _ in range(seats)]

    def add(self, event: Any) -> None:
        self.events.append(event)
        if not isinstance(event, EVENTS):
            self.game_events.append(event)

    def seen(self, seat: int) -> list[Any]:
        mine = self.redacted[seat]
        mine.extend(self.table.inner.redact(e, seat) for e in self.game_events[len(mine) :])
        return list(mine)


def play_game(spec: Spec, number: int, history: History | None = None) -> Record:
    """Game ``number`` of the tournament (reproducible from ``spec`` and ``number``)."""
    table = GAMES[spec.game]
    first_seat = number % spec.seats
    secret = secret_for(number // spec.seats)
    history = history or History(table, spec.seats)
    state = None
    for event in table.start(spec.seats, secret, table.options({})):
        state = table.evolve(state, event)
        history.add(event)
    moves: list[Move] = []
    while (result := table.result(state)) is None:
        if len(moves) >= MAX_COMMANDS:
            raise RuntimeError(f"game {number} did not end within {MAX_COMMANDS} commands")
        seat = min(table.to_act(state))
        first = seat == first_seat
        level = spec.levels[0 if first else 1]
        legal = table.legal(state, seat)
        view = table.view(state, seat)
        iterations: list[int] = []
        seen = None
        if level in bots.SEARCH_LEVELS:
            seen = bots.Seen(
                seat,
                history.seen(seat),
                time.thread_time if spec.clock == "cpu" else time.monotonic,
                budget=spec.budget,
                iterations=spec.iterations,
                report=iterations.append,
            )
        seed = f"{spec.seed}:{number}:{len(moves)}:{seat}".encode()
        start, cpu = time.monotonic(), time.thread_time()
        command = bots.choose(spec.game, level, view, legal, seed, seen)
        seconds, cpu = time.monotonic() - start, time.thread_time() - cpu
        count = iterations[0] if iterations else None
        moves.append(Move(first, seconds, cpu, len(legal), count))
        for event in table.decide(state, seat, command):
            state = table.evolve(state, event)
            history.add(event)
    return Record(number, first_seat, list(result.scores), list(result.winners), moves)


def play_all(spec: Spec, jobs: int = 1) -> Iterator[Record]:
    """Every game of the tournament, in the order they end (``jobs`` processes)."""
    play = partial(play_game, spec)
    if jobs <= 1:
        yield from map(play, range(spec.games))
        return
    # Not forked from this process: a job forked from a process with threads and signal handlers
    # (a test's, or an embedding program's) inherits them, and may never end.
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["api.tournament"])
    with context.Pool(jobs) as pool:
        yield from pool.imap_unordered(play, range(spec.games), chunksize=1)


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    # Clamped to hold p: at p = 0 or 1 the bound is p itself, give or take a rounding error.
    return min(centre - half, p), max(centre + half, p)


def percentile(values: Sequence[float], q: float) -> float:
    """The nearest-rank ``q``-th percentile (0 for no values)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def figures(spec: Spec, records: list[Record], seconds: float) -> dict[str, Any]:
    """The tournament's figures (what is printed, plotted and written as JSON)."""
    records = sorted(records, key=lambda r: r.number)
    wins = sum(r.win for r in records)
    low, high = wilson(wins, len(records))
    margins = [r.margin for r in records]
    per_level: dict[str, Any] = {}
    for index, level in enumerate(spec.levels):
        name = f"{level} (first)" if index == 0 and spec.levels[0] == spec.levels[1] else level
        moves = [m for r in records for m in r.moves if m.first == (index == 0)]
        chosen = [m for m in moves if m.choices > 1]  # a single legal command takes no time
        times = [m.seconds for m in chosen]
        cpu = [m.cpu for m in chosen]
        counts = [m.iterations for m in chosen if m.iterations is not None]
        per_level[name] = {
            "moves": len(moves),
            "moves_with_a_choice": len(chosen),
            "seconds_p50": percentile(times, 50),
            "seconds_p99": percentile(times, 99),
            "seconds_max": max(times, default=0.0),
            "cpu_p50": percentile(cpu, 50),
            "cpu_p99": percentile(cpu, 99),
            "iterations_p10": percentile(counts, 10) if counts else None,
            "iterations_p50": percentile(counts, 50) if counts else None,
            "iterations_p90": percentile(counts, 90) if counts else None,
        }
    return {
        "game": spec.game,
        "seats": spec.seats,
        "levels": list(spec.levels),
        "budget": spec.budget,
        "iterations": spec.iterations,
        "clock": spec.clock,
        "seed": spec.seed,
        "games": len(records),
        "wins": wins,
        "rate": wins / len(records),
        "low": low,
        "high": high,
        "chance": 1 / spec.seats,
        "margin_mean": statistics.fmean(margins),
        "margin_median": statistics.median(margins),
        "margins": margins,
        "per_level": per_level,
        "seconds": seconds,
        "load": os.getloadavg()[0],  # the machine's: wall times are only as good as their core
    }


def title(result: dict[str, Any]) -> str:
    first, other = result["levels"]
    budget = f", budget {result['budget']} s" if result["budget"] is not None else ""
    cap = f", {result['iterations']} iterations" if result["iterations"] is not None else ""
    clock = ", cpu clock" if result["clock"] == "cpu" else ""
    return (
        f"{result['game']} {result['seats']}p: 1 {first} vs {result['seats'] - 1} {other}, "
        f"{result['games']} games{budget}{cap}{clock}"
    )


def report(result: dict[str, Any]) -> str:
    lines = [
        title(result),
        f"  {result['levels'][0]} wins {result['rate']:.1%} (95% {result['low']:.1%}-"
        f"{result['high']:.1%}; chance {result['chance']:.0%}), {result['wins']:g} of "
        f"{result['games']}",
        f"  margin of {result['levels'][0]}: mean {result['margin_mean']:+.1f}, "
        f"median {result['margin_median']:+g}",
    ]
    for level, f in result["per_level"].items():
        line = (
            f"  {level}: {f['moves_with_a_choice']} moves with a choice (of {f['moves']}), "
            f"s/move p50 {f['seconds_p50']:.3f} p99 {f['seconds_p99']:.3f} "
            f"max {f['seconds_max']:.3f} (cpu p50 {f['cpu_p50']:.3f} p99 {f['cpu_p99']:.3f})"
        )
        if f["iterations_p50"] is not None:
            line += (
                f", iterations/move p10 {f['iterations_p10']} p50 {f['iterations_p50']} "
                f"p90 {f['iterations_p90']}"
            )
        lines.append(line)
    lines.append(f"  {result['seconds']:.0f} s, load average {result['load']:.1f}")
    return "\n".join(lines)


def plot(result: dict[str, Any], path: Path) -> None:
    """A table of the levels and the win rate with its interval, and the margins' spread."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fig = Figure(figsize=(11, 4))
    left, right = fig.subplots(1, 2, width_ratios=[1.3, 1])
    left.axis("off")
    rows = []
    for index, (level, f) in enumerate(result["per_level"].items()):
        seats = 1 if index == 0 else result["seats"] - 1
        rate = (
            f"{result['rate']:.1%} ({result['low']:.1%}-{result['high']:.1%})"
            if index == 0
            else f"{1 - result['rate']:.1%} (all of them)"
        )
        iterations = "-" if f["iterations_p50"] is None else f"{f['iterations_p50']}"
        rows.append(
            [
                f"{level} x{seats}",
                rate,
                f"{f['seconds_p50']:.3f} / {f['seconds_p99']:.3f} / {f['cpu_p99']:.3f}",
                iterations,
            ]
        )
    table = left.table(
        cellText=rows,
        colLabels=["level", "win rate (95% interval)", "s/move p50/p99/cpu p99", "iter/move p50"],
        colWidths=[0.2, 0.34, 0.3, 0.16],
        loc="center",
    )
    table.auto_set_font_size(False)
    table.set_fontsize(9)
    table.scale(1, 1.8)
    left.set_title(f"chance {result['chance']:.0%}; margin mean {result['margin_mean']:+.1f}")
    margins = result["margins"]
    bins = min(40, max(5, len(set(margins))))
    right.hist(margins, bins=bins, color="#8c2d04")
    right.axvline(0, color="black", linestyle="dashed")
    right.set_xlabel(f"score margin of {result['levels'][0]} (own - best other)")
    right.set_ylabel("games")
    fig.suptitle(title(result))
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def run(spec: Spec, jobs: int, out: Path, progress: bool = True) -> dict[str, Any]:
    if spec.game not in GAMES:
        raise SystemExit(f"no game {spec.game!r} (use {', '.join(GAMES)})")
    table = GAMES[spec.game]
    if not table.min_seats <= spec.seats <= table.max_seats:
        raise SystemExit(f"{spec.game} takes {table.min_seats}-{table.max_seats} seats")
    for level in spec.levels:
        if level not in bots.levels(spec.game):
            raise SystemExit(f"no level {level!r} for {spec.game} (use {bots.levels(spec.game)})")
    start = last = time.monotonic()
    records: list[Record] = []
    for record in play_all(spec, jobs):
        records.append(record)
        now = time.monotonic()
        if progress and (now - last >= PROGRESS_SECONDS or len(records) == spec.games):
            last = now
            rate = sum(r.win for r in records) / len(records)
            eta = (now - start) / len(records) * (spec.games - len(records))
            print(
                f"  {len(records)}/{spec.games} games, {spec.levels[0]} wins {rate:.1%}, "
                f"{now - start:.0f} s, ETA {eta:.0f} s",
                flush=True,
            )
    result = figures(spec, records, time.monotonic() - start)
    name = f"tournament-{spec.game}-{spec.seats}p-{spec.levels[0]}-vs-{spec.levels[1]}"
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{name}.json").write_text(json.dumps(result, indent=1))
    plot(result, out / f"{name}.png")
    if progress:
        print(report(result))
        print(f"plot and figures: {out / name}.png, .json")
    return result
