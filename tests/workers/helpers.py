"""Shared by the worker tests: what the read models should hold and the views served, from the
domain itself; a worker process (``omerta worker``) on a given store."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import msgspec

from bootstrap import Container
from services.eventstore.store import EventStore
from services.games.commands import CommandService
from services.readside.readmodels import ReadModels
from workers import rqworker
from workers.projection.projector import Projector


def served_view(commands: CommandService, game_id: str, seat: int | None) -> tuple[int, bytes]:
    """(version, JSON of ``seat``'s view; None: a spectator's) as ``GET /games/{id}/view``
    serves it: from the command service's state."""
    game, state, version, _ = commands.load(game_id)
    return version, msgspec.json.encode(game.view(state, seat))


def expected_views(container: Container, game_id: str) -> dict[int | None, bytes]:
    """Every seat's (and a spectator's) view at the game's current version, as JSON, by the
    rules from the stored events alone (a fresh fold, as ``omerta rebuild``'s)."""
    version = container.commands.load(game_id).version
    folded = Projector(container.events).fold_until(game_id, version)
    game = container.projector.games[folded.meta.game]
    seats: list[int | None] = [None, *range(folded.meta.seats)]
    return {seat: msgspec.json.encode(game.view(folded.state, seat)) for seat in seats}


def assert_read_models_current(container: Container, read_models: ReadModels, game_id: str) -> Any:
    """The read models are at the stream's version and match the rules' result, and the views
    served match the rules' views of the stored events; returns the domain's result."""
    game, state, version, _ = container.commands.load(game_id)
    summary = read_models.summary(game_id)
    assert summary is not None
    assert summary.version == version
    assert summary.to_act == sorted(game.to_act(state))
    result = game.result(state)
    assert msgspec.to_builtins(summary.result) == msgspec.to_builtins(result)
    assert summary.status == ("running" if result is None else "finished")
    for seat, view in expected_views(container, game_id).items():
        assert served_view(container.commands, game_id, seat) == (version, view)
    return result


# ``omerta worker``, dumping its threads' stacks to its log on SIGUSR1 (``stop``).
WORKER = (
    "import faulthandler, signal; faulthandler.register(signal.SIGUSR1, all_threads=True); "
    "from api.cli import main; raise SystemExit(main())"
)


def stop(process: subprocess.Popen[bytes], log: Path) -> None:
    """SIGTERM ``process`` (a ``WORKER``) and wait for it to end: a worker still there after
    its ``STOP_GRACE`` is a defect (and would take later tests' shards). Its stacks, and those
    of its children (RQ's scheduler), go to its log, it is killed, and the test fails with the
    log. One that its own watchdog ended (``OmertaWorker._stop_overdue``) did what the service
    promises, but hung on something: a warning shows its log."""
    process.send_signal(signal.SIGTERM)
    within = rqworker.STOP_GRACE + 15
    try:
        process.wait(within)
        text = log.read_text()
        if "after it was asked to stop" in text:
            warnings.warn(f"a worker's stop hung; its log:\n{text[-12000:]}", stacklevel=2)
        return
    except subprocess.TimeoutExpired:
        pass
    children = Path(f"/proc/{process.pid}/task/{process.pid}/children")
    pids = [process.pid, *map(int, children.read_text().split())]
    for each in (signal.SIGUSR1, signal.SIGKILL):
        for pid in pids:
            with suppress(ProcessLookupError):
                os.kill(pid, each)
        time.sleep(2)
    process.wait()
    raise AssertionError(
        f"the worker did not stop within {within} s of SIGTERM:\n{log.read_text()[-12000:]}"
    )


def start_worker(
    redis_url: str, log: Path, *options: str, script: str = WORKER
) -> subprocess.Popen[bytes]:
    """``omerta worker`` (the default one; ``options`` such as ``--queues ai`` added), run by
    ``script`` (``WORKER`` after some changes), its output appended to ``log``."""
    env = {**os.environ, "REDIS_URL": redis_url}
    with open(log, "ab") as out:
        return subprocess.Popen(
            [sys.executable, "-c", script, "worker", "--interval", "1", *options],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )


def wait(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def wait_moving(
    container: Container, game_id: str, done: Callable[[], bool], stall: float, what: str
) -> None:
    """Until ``done()``, while the game moves: fails when its version stayed the same for
    ``stall`` seconds (an AI worker at a low priority on a loaded machine is slow, not stuck)."""
    version, moved = container.commands.load(game_id).version, time.monotonic()
    while not done():
        if (now := container.commands.load(game_id).version) != version:
            version, moved = now, time.monotonic()
        if time.monotonic() - moved > stall:
            raise AssertionError(f"{what}: no move for {stall:.0f} s, at version {version}")
        time.sleep(0.02)


@contextmanager
def projectors_racing(store: EventStore, game_ids: list[str], count: int) -> Iterator[None]:
    """``count`` projectors (own caches, as so many worker processes) project ``game_ids`` over
    and over while the block runs (its appends), then once more each; none may fail."""
    done = threading.Event()
    errors: list[BaseException] = []

    def race(projector: Projector) -> None:
        try:
            while not done.is_set():
                for game_id in game_ids:
                    projector.project(game_id)
            for game_id in game_ids:
                projector.project(game_id)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=race, args=(Projector(store),)) for _ in range(count)]
    for thread in threads:
        thread.start()
    try:
        yield
    finally:
        done.set()
        for thread in threads:
            thread.join()
    assert errors == []
