"""A review is the same bytes whatever the machine's load: its search is bounded by iterations
and seeded, never by the clock. Each game is reviewed twice by the job's own ``compute`` (on the
session's server, its seed from the server's secret): once on a quiet process, once beside CPU
hogs with every clock of the process racing (ten seconds a reading), as on a machine so loaded
that any time budget would run out at its first look at the clock."""

from __future__ import annotations

import itertools
import random
import subprocess
import sys
import time
from collections.abc import Callable, Iterator

import pytest

from bootstrap import Container
from tests.web.test_review_page import gangsta_conceded
from tests.workers.test_ratings import play_to_the_end
from workers.review import compute

pytestmark = pytest.mark.server

ITERATIONS = 8  # per decision: a search that weighs its moves, a second or two a game
HOGS = 2  # busy processes, one per core of the tests' machine
HOG_SECONDS = 120  # a bound on the hogs should the test die without stopping them


def famiglia_to_the_end(container: Container) -> str:
    game_id = container.commands.create_game("famiglia", 2)
    play_to_the_end(container.commands, game_id, random.Random(5))
    return game_id


GAMES: dict[str, Callable[[Container], str]] = {
    "famiglia": famiglia_to_the_end,
    "gangsta": lambda container: gangsta_conceded(container, 16, seed=9),
}


@pytest.fixture
def loaded_machine(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """CPU hogs running, and the process's clocks racing, until the test ends."""
    hog = f"import time\nend = time.monotonic() + {HOG_SECONDS}\nwhile time.monotonic() < end: pass"
    hogs = [subprocess.Popen([sys.executable, "-c", hog]) for _ in range(HOGS)]
    for name in ("monotonic", "perf_counter", "time", "process_time"):
        ticks = itertools.count(getattr(time, name)(), 10.0)
        monkeypatch.setattr(time, name, lambda ticks=ticks: next(ticks))
    try:
        yield
    finally:
        monkeypatch.undo()
        for process in hogs:
            process.kill()
            process.wait()


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_review_is_the_same_bytes_beside_cpu_load(
    game: str, container: Container, request: pytest.FixtureRequest
) -> None:
    game_id = GAMES[game](container)
    quiet = compute(container.commands, container.secret, game_id, ITERATIONS)
    request.getfixturevalue("loaded_machine")
    assert compute(container.commands, container.secret, game_id, ITERATIONS) == quiet
