"""The bots' tournament (``omerta tournament``): its games, figures and files."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from api.tournament import History, Spec, play_game, run, wilson
from domain import GAMES, bots


def test_the_interval_holds_the_rate_also_at_a_clean_sweep() -> None:
    # A bot winning every game once gave an upper bound a rounding error below the rate, and
    # the plot refused the negative error bar ("yerr must not contain negative values").
    for n in range(1, 400):
        for wins in (0, n // 2, n):
            low, high = wilson(wins, n)
            assert low <= wins / n <= high


def test_greedy_against_random_gives_the_figures_and_files(tmp_path: Path) -> None:
    spec = Spec("gangsta", 3, ("greedy", "random"), games=6)
    result = run(spec, jobs=1, out=tmp_path, progress=False)
    name = "tournament-gangsta-3p-greedy-vs-random"
    assert json.loads((tmp_path / f"{name}.json").read_text()) == result
    assert (tmp_path / f"{name}.png").stat().st_size > 0
    assert result["games"] == 6 and len(result["margins"]) == 6
    assert 0 <= result["wins"] <= 6 and result["rate"] == result["wins"] / 6
    assert result["low"] <= result["rate"] <= result["high"]
    assert result["chance"] == pytest.approx(1 / 3)
    assert set(result["per_level"]) == {"greedy", "random"}
    greedy = result["per_level"]["greedy"]
    assert 0 < greedy["moves_with_a_choice"] <= greedy["moves"]
    assert greedy["seconds_p50"] <= greedy["seconds_p99"] <= greedy["seconds_max"]
    assert greedy["iterations_p50"] is None  # not a search level


def test_the_first_level_takes_every_seat_in_turn_on_each_deal() -> None:
    spec = Spec("gangsta", 3, ("greedy", "random"), games=6)
    records = [play_game(spec, n) for n in range(6)]
    assert [r.first_seat for r in records] == [0, 1, 2, 0, 1, 2]
    for record in records:
        assert record.margin == record.scores[record.first_seat] - max(
            s for seat, s in enumerate(record.scores) if seat != record.first_seat
        )


def test_a_search_level_is_reproducible_and_sees_what_the_jobs_give_it(tmp_path: Path) -> None:
    """At an iteration cap the search is reproducible, in one process or several; its history
    is the one ``bots.seen_history`` gives the jobs."""
    spec = Spec("famiglia", 2, ("medium", "greedy"), games=2, iterations=3)
    one = run(spec, jobs=1, out=tmp_path / "one", progress=False)
    two = run(spec, jobs=2, out=tmp_path / "two", progress=False)
    for result in (one, two):
        del result["seconds"], result["load"]
        for level in result["per_level"].values():
            for figure in ("seconds_p50", "seconds_p99", "seconds_max", "cpu_p50", "cpu_p99"):
                del level[figure]
    assert one == two
    medium = one["per_level"]["medium"]
    assert medium["iterations_p10"] == medium["iterations_p90"] == 3
    table = GAMES["famiglia"]
    history = History(table, 2)
    play_game(spec, 1, history)
    for seat in (0, 1):
        assert history.seen(seat) == bots.seen_history(table, history.events, seat)


def test_a_search_level_on_its_budget_by_the_processor_clock(tmp_path: Path) -> None:
    spec = Spec("famiglia", 2, ("greedy", "medium"), games=1, budget=0.002, clock="cpu")
    result = run(spec, jobs=1, out=tmp_path, progress=False)
    assert result["clock"] == "cpu" and result["budget"] == 0.002
    medium = result["per_level"]["medium"]
    assert medium["moves_with_a_choice"] > 0
    assert 1 <= medium["iterations_p10"] <= medium["iterations_p50"] <= medium["iterations_p90"]
    assert result["per_level"]["greedy"]["iterations_p50"] is None


def test_the_jobs_end_in_a_process_that_handles_sigterm() -> None:
    """A test process keeps the SIGTERM handler of RQ's worker that an earlier test ran, which
    only asks the worker to stop. Forked jobs inherited it. The pool ends idle jobs with SIGTERM
    while it holds their queue's lock, so such a job waited for the lock forever, and so did the
    tournament (a CI run timed out after 600 s)."""
    script = (
        "import signal\n"
        "from api.tournament import Spec, play_all\n"
        "signal.signal(signal.SIGTERM, lambda *_: None)\n"
        "for n in range(150):\n"
        "    list(play_all(Spec('famiglia', 2, ('random', 'random'), games=1), jobs=8))\n"
        "print('done', flush=True)\n"
    )
    with subprocess.Popen(
        [sys.executable, "-c", script],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    ) as proc:
        try:
            out, err = proc.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)  # the script and its hung jobs
            proc.communicate()
            pytest.fail("the tournament waited for its jobs for 120 s")
    assert proc.returncode == 0 and out == b"done\n", err.decode()


def test_omerta_tournament_plays_and_writes_its_files(tmp_path: Path) -> None:
    omerta = Path(sys.executable).with_name("omerta")
    args = ["--game", "gangsta", "--seats", "3", "--levels", "greedy,random", "--games", "3"]
    done = subprocess.run(
        [omerta, "tournament", *args, "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    figures = json.loads((tmp_path / "tournament-gangsta-3p-greedy-vs-random.json").read_text())
    assert figures["games"] == 3


def test_omerta_tournament_refuses_an_unknown_game() -> None:
    omerta = Path(sys.executable).with_name("omerta")
    done = subprocess.run(
        [omerta, "tournament", "--game", "chess"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2 and "--game must be one of famiglia, gangsta" in done.stderr
