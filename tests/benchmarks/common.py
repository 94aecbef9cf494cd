"""Helpers for benchmarks: timing and a median, printed plainly; rollouts by the rules and by a
game's fast path; the processes a benchmark starts."""

from __future__ import annotations

import http.client
import signal
import statistics
import subprocess
import time
from collections.abc import Callable
from typing import Any

from domain.core import Game
from domain.rng import Rng


def timed(fn: Callable[[], object]) -> tuple[float, object]:
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def progress(i: int, n: int, label: str) -> None:
    print(f"\r  {label}: {i}/{n}", end="\n" if i == n else "", flush=True)


def rules_rollout(game: Game, state: Any, rng: Rng) -> int:
    """Commands of uniform play until the game ends, by legal -> decide -> evolve (the lowest
    seat first when several owe a decision)."""
    commands = 0
    while game.result(state) is None:
        seat = min(game.to_act(state))
        legal = game.legal(state, seat)
        for event in game.decide(state, seat, legal[rng.below(len(legal))]):
            state = game.evolve(state, event)
        commands += 1
    return commands


def fast_rollout(playout: Any, state: Any, rng: Rng) -> int:
    """The same play by a game's playout module (search's fast path): legal -> step."""
    s = playout.enter(state)
    commands = 0
    while playout.done(s) is None:
        seat = min(playout.to_act(s))
        legal = playout.legal(s, seat)
        s = playout.step(s, seat, legal[rng.below(len(legal))])
        commands += 1
    return commands


def wait_ready(port: int, proc: subprocess.Popen[bytes]) -> None:
    """Until the web server on ``port`` answers ``/readyz``."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("the web server exited")
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/readyz")
            if conn.getresponse().status == 200:
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError("the web server never got ready")


def stop_all(procs: list[subprocess.Popen[bytes]]) -> None:
    """SIGTERM to all, then wait for each (killed after 30 s)."""
    for proc in procs:
        proc.send_signal(signal.SIGTERM)
    for proc in procs:
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
