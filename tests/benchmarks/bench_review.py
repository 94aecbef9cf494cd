"""The post-game review (``domain.review``): its cost on one core, and two checks of its
figures, printed (not asserted).

* Cost: the review of a seeded greedy Famiglia game and of a 4-player Gangsta! game at the
  default budgets, in this thread's processor time (the figure one core gives).
* Agreement: at unforced decisions of those games, how often the review's best move is the
  move a search of ten times the budget chooses (another seed), with a 95% Wilson interval.
* Mistake replay: from each decision graded mistake or blunder, both moves are played on the
  same determinizations drawn from the seat's information set, then the game is played to its
  end by greedy bots; the gap is the best move's mean win share less the played move's, with a
  95% interval (normal, on the paired differences).
* Plot: each seat's win chance at its decisions in the Famiglia game, ``docs/review.png``.
"""

from __future__ import annotations

import math
import statistics
import time
from pathlib import Path
from typing import Any

import msgspec
from matplotlib.figure import Figure

from domain import GAMES, bots
from domain.play import play, secret_for
from domain.review import iterations_for, review
from domain.review.analyse import Point, decide_figures, decision_points
from domain.review.grading import win_share
from domain.review.model import Review
from domain.rng import Rng
from domain.search import search, win_chance

CASES = (("famiglia", 2), ("gangsta", 4))
AGREEMENT = 20  # decisions per game checked against the 10x search
REPLAYS = {"famiglia": 24, "gangsta": 6}  # determinizations per flagged decision
FLAGGED = 8  # flagged decisions replayed per game, at most
PLOT = Path("docs/review.png")


def _greedy(game: str) -> Any:
    def policy(seat: int, view: Any, legal: list[Any]) -> Any:
        return bots.choose(game, "greedy", view, legal, b"bench-%d-%d" % (seat, len(legal)))

    return policy


def finished(game: str, seats: int, n: int = 11) -> list[Any]:
    inner = GAMES[game].inner
    options = inner.options(None)
    events = list(inner.start(seats, secret_for(n), options))
    for step in play(inner, seats, secret_for(n), options, [_greedy(game)] * seats):
        events.extend(step.events)
    return events


def wilson(hits: int, n: int) -> tuple[float, float]:
    if n == 0:
        return float("nan"), float("nan")
    p, z = hits / n, 1.96
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def _information(game: str, point: Point, kept: list[Any]) -> tuple[Any, list[Any], list[Any]]:
    inner = GAMES[game].inner
    history = [inner.redact(e, point.seat) for e in kept[: point.index]]
    return inner.view(point.state, point.seat), inner.legal(point.state, point.seat), history


def agreement(game: str, points: list[Point], kept: list[Any]) -> tuple[int, int, list[float]]:
    """Of ``AGREEMENT`` unforced decisions, how many have the 10x search's move as the review's
    best, and where not, how much more the 10x move is worth (both weighed by ``win_chance``
    at ten times the budget, one seed for both)."""
    iterations = iterations_for(game, None)
    module = bots.playout(game)
    sample = bots.sampler(game)
    assert sample is not None
    chosen = [p for p in points if len(module.considered(_information(game, p, kept)[1])) > 1]
    chosen = chosen[:: max(1, len(chosen) // AGREEMENT)][:AGREEMENT]
    hits, worth = 0, []
    for point in chosen:
        view, legal, history = _information(game, point, kept)
        rng = Rng(b"bench-review", b"%d" % point.version)
        figures = decide_figures(
            game, point.seat, view, legal, history, point.command, iterations, rng
        )
        weighed = module.considered(legal)
        greedy = bots.BOTS[(game, "greedy")]
        prior = greedy(view, weighed, Rng(b"ten", b"prior"))
        deep = search(
            module,
            point.seat,
            view,
            weighed,
            history,
            sample,
            Rng(b"ten", b"x"),
            iterations=10 * iterations,
            prior=prior,
        )
        if deep == figures.best:
            hits += 1
            continue
        deep_win, best_win = (
            win_chance(
                module,
                point.seat,
                view,
                c,
                history,
                sample,
                Rng(b"ten", b"value"),
                iterations=10 * iterations,
            )
            for c in (deep, figures.best)
        )
        worth.append(deep_win - best_win)
    return hits, len(chosen), worth


def _to_end(game: str, state: Any, rng: Rng) -> Any:
    inner = GAMES[game].inner
    while (result := inner.result(state)) is None:
        seat = min(inner.to_act(state))
        legal = inner.legal(state, seat)
        seed = rng.below(1 << 64).to_bytes(8, "big")
        command = bots.choose(game, "greedy", inner.view(state, seat), legal, seed)
        for event in inner.decide(state, seat, command):
            state = inner.evolve(state, event)
    return result


def _after(game: str, state: Any, seat: int, command: Any) -> Any:
    inner = GAMES[game].inner
    for event in inner.decide(state, seat, command):
        state = inner.evolve(state, event)
    return state


def replay_gap(game: str, result: Review, points: list[Point], kept: list[Any]) -> list[float]:
    """The paired differences (best less played win share) over the flagged decisions."""
    sample = bots.sampler(game)
    assert sample is not None
    by_version = {(p.version, p.seat): p for p in points}
    flagged = [d for d in result.decisions if d.grade in ("mistake", "blunder")][:FLAGGED]
    diffs: list[float] = []
    for decision in flagged:
        point = by_version[(decision.version, decision.seat)]
        view, legal, history = _information(game, point, kept)
        best = next(c for c in legal if msgspec.to_builtins(c) == decision.best)
        rng = Rng(b"bench-replay", b"%d" % point.version)
        for k in range(REPLAYS[game]):
            drawn = sample(point.seat, view, history, rng)
            wins = []
            for command in (best, point.command):
                end = _to_end(
                    game, _after(game, drawn, point.seat, command), Rng(b"end", b"%d" % k)
                )
                wins.append(win_share(end, point.seat))
            diffs.append(wins[0] - wins[1])
    return diffs


def plot(result: Review) -> None:
    figure = Figure(figsize=(7, 3.2))
    axes = figure.subplots()
    for seat in range(result.seats):
        mine = [d for d in result.decisions if d.seat == seat]
        (line,) = axes.plot(
            [d.version for d in mine], [d.before for d in mine], label=f"seat {seat}"
        )
        marked = [d for d in mine if d.grade in ("mistake", "blunder")]
        axes.scatter(
            [d.version for d in marked],
            [d.before for d in marked],
            marker="x",
            color=line.get_color(),
        )
    axes.set_ylim(0, 1)
    axes.set_xlabel("version (events so far)")
    axes.set_ylabel("win chance before the decision")
    axes.set_title(f"{result.game}: win chances at each decision (x: mistakes, blunders)")
    axes.legend(loc="upper left")
    figure.tight_layout()
    PLOT.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(PLOT, dpi=100)


def run() -> None:
    for game, seats in CASES:
        events = finished(game, seats)
        iterations = iterations_for(game, None)
        start = time.thread_time()
        result = review(game, events, seed=b"bench-review", iterations=iterations)
        spent = time.thread_time() - start
        points, kept = decision_points(GAMES[game], events)
        unforced = sum(d.grade != "forced" for d in result.decisions)
        print(
            f"  {game} {seats}p: {len(result.decisions)} decisions ({unforced} unforced), "
            f"{iterations} iterations: {spent:.1f} s on one core "
            f"({1000 * spent / max(1, len(result.decisions)):.0f} ms a decision)"
        )
        for p in result.players:
            print(
                f"    seat {p.seat}: accuracy {p.accuracy}, {p.inaccuracies}/{p.mistakes}/"
                f"{p.blunders} inaccuracies/mistakes/blunders, won {p.won}, skill {p.skill}, "
                f"opponents {p.opponents}, luck {p.luck}"
            )
        hits, n, worth = agreement(game, points, kept)
        low, high = wilson(hits, n)
        print(f"    best move = 10x search's: {hits}/{n} ({low:.2f}-{high:.2f}, 95%)")
        if worth:
            close = sum(w < 0.05 for w in worth)
            print(
                f"    where not, the 10x move is worth {statistics.fmean(worth):+.3f} more on "
                f"average (at most {max(worth):+.3f}; under 0.05 in {close} of {len(worth)})"
            )
        diffs = replay_gap(game, result, points, kept)
        if len(diffs) > 1:
            mean = statistics.fmean(diffs)
            half = 1.96 * statistics.stdev(diffs) / math.sqrt(len(diffs))
            print(
                f"    flagged moves replayed to the end by greedy bots: the best move wins "
                f"{mean:+.3f} more ({mean - half:+.3f} to {mean + half:+.3f}, 95%; "
                f"{len(diffs)} paired games)"
            )
        else:
            print("    no mistake or blunder to replay")
        if game == "famiglia":
            plot(result)
            print(f"    plot: {PLOT}")
