"""The bots' tournament: its interval and its plot."""

from __future__ import annotations

from pathlib import Path

from workers.tournament import Matchup, Outcome, plot, wilson


def test_the_interval_holds_the_rate_also_at_a_clean_sweep() -> None:
    # A bot winning every game once gave an upper bound a rounding error below the rate, and
    # the plot refused the negative error bar ("yerr must not contain negative values").
    for n in range(1, 400):
        for wins in (0, n // 2, n):
            low, high = wilson(wins, n)
            assert low <= wins / n <= high


def test_a_clean_sweep_is_plotted(tmp_path: Path) -> None:
    path = tmp_path / "bots.png"
    low, high = wilson(100, 100)
    plot([Outcome(Matchup("gangsta", 2), 100, 100.0, low, high, 1.0)], path)
    assert path.stat().st_size > 0
