"""``python -m domain.famiglia``: random players, moves and the final score."""

from __future__ import annotations

import subprocess
import sys


def test_module_plays_a_random_game_and_prints_the_score():
    out = subprocess.run(
        [sys.executable, "-m", "domain.famiglia", "--seed", "4"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    assert '"type":"game_started"' in out and '"secret":null' in out.splitlines()[0]
    assert "seat " in out
    assert out.splitlines()[-1].startswith("scores: [")
