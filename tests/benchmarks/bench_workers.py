"""Workers under load: 50 concurrent games on two worker processes, mostly AI.

Starts its own embedded server (fsync always, as deployed) and two ``omerta worker`` processes,
creates the games (half Famiglia, half Gangsta! with 2-4 seats) and plays them to the end. Seat
0 of every game is a "person": this process answers for it through the command service as the
API would (with the greedy bot's move, once the read models show the seat owes one, polling
every 5 ms); every other seat is AI, played by the workers. Figures:

* projection lag: from an event's append (its envelope time) to the first read-model write that
  covers its version (the workers log each write's time: the benchmark wraps
  ``Projector.write`` in its worker processes), for people's moves (projected by a queued job),
  AI moves (projected by the AI job that made them) and the creations (50 at once, a burst),
  and for people's moves once the start's burst is over ("steady", after 10 s); goal p99 <
  100 ms;
* AI move latency: from the event after which an AI seat owed a move to the move's own event;
* jobs per second: jobs the two workers completed, over the wall time;
* ``omerta status``: how long the command takes (a process of its own, as an operator runs it)
  while the workers are busy, every 2 s (goal < 1 s: it once took 5-14 s under load).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import redis

from tests.benchmarks.common import progress, stop_all

if TYPE_CHECKING:
    from bootstrap import Container
    from services.games.commands import CommandService

GAMES = 50
WORKERS = 2
PERSON = 0  # the seat this process plays
WARM_UP_MS = 10_000
WRITES_LOG = "OMERTA_BENCH_WRITES"


def instrumented_worker() -> None:
    """A worker process that logs (game, version, ms) of every read-model write it makes."""
    from bootstrap import bootstrap
    from services.eventstore.store import now_ms
    from workers import worker
    from workers.projection.projector import Projector

    log = open(os.environ[WRITES_LOG], "a", buffering=1)  # noqa: SIM115  (lives with the process)
    write = Projector.write

    def logged(self: Projector, game_id: str, folded: object, *rest: object) -> bool:
        written = write(self, game_id, folded, *rest)  # type: ignore[arg-type]
        if written:
            log.write(f"{game_id} {folded.version} {now_ms()}\n")  # type: ignore[attr-defined]
        return written

    Projector.write = logged  # type: ignore[method-assign]
    worker.run(bootstrap().context, interval=5, log_level="WARNING")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def create_games(commands: CommandService) -> list[str]:
    game_ids = []
    for n in range(GAMES):
        name, seats = ("famiglia", 2) if n % 2 == 0 else ("gangsta", 2 + n % 3)
        ai = {s: "greedy" if s % 2 else "random" for s in range(seats) if s != PERSON}
        game_ids.append(commands.create_game(name, seats, ai=ai))
    return game_ids


def play_person(container: Container, game_ids: list[str], deadline: float) -> None:
    """Answer for seat PERSON in every game, as a player watching the inbox would (the read
    models' ``due`` index), until every game is over (or the deadline)."""
    from domain import bots
    from services.errors import Conflict
    from services.readside.readmodels import FINISHED

    commands, read_models = container.commands, container.read_models
    finished = 0
    while finished < GAMES and time.monotonic() < deadline:
        owing = [g for g, seat, _ in read_models.due(limit=10 * GAMES) if seat == PERSON]
        for game_id in owing:
            game, state, version, meta = commands.load(game_id)
            if PERSON not in game.to_act(state):
                continue  # the read model is behind: its projection is on the way
            view, legal = game.view(state, PERSON), game.legal(state, PERSON)
            command = bots.choose(meta.game, "greedy", view, legal, f"{version}".encode())
            with contextlib.suppress(Conflict):  # the game moved on: look again next round
                commands.handle(game_id, PERSON, command, f"p-{version}", version)
        now = read_models.count(FINISHED)
        if now != finished:
            finished = now
            progress(finished, GAMES, "games finished")
        time.sleep(0.005)


def run() -> None:
    from rq import Worker

    from bootstrap import bootstrap
    from services.platform.embedded import EmbeddedServer

    with tempfile.TemporaryDirectory() as tmp, EmbeddedServer(Path(tmp) / "valkey") as server:
        os.environ["REDIS_URL"] = server.url
        container = bootstrap()  # this process's service, on this server
        client = server.client()
        writes = Path(tmp) / "writes.log"
        env = {**os.environ, WRITES_LOG: str(writes)}
        code = "from tests.benchmarks.bench_workers import instrumented_worker as w; w()"
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", code],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=open(Path(tmp) / f"worker-{n}.log", "wb"),  # noqa: SIM115
            )
            for n in range(WORKERS)
        ]
        try:
            wait_for_workers(client)
            stop, status_seconds = threading.Event(), []
            timer = threading.Thread(target=time_status, args=(stop, status_seconds))
            timer.start()
            start = time.perf_counter()
            game_ids = create_games(container.commands)
            play_person(container, game_ids, time.monotonic() + 900)
            wall = time.perf_counter() - start
            stop.set()
            timer.join()
            time.sleep(0.5)  # the last projections
            jobs = sum(
                w.successful_job_count + w.failed_job_count for w in Worker.all(connection=client)
            )
        finally:
            stop_all(procs)
        report(measure(container.commands, game_ids, writes), wall, jobs, status_seconds)


def time_status(stop: threading.Event, took: list[float]) -> None:
    """``omerta status`` every 2 s until ``stop``: the seconds each run took."""
    while not stop.wait(2.0):
        began = time.perf_counter()
        subprocess.run([sys.executable, "-m", "api", "status"], capture_output=True, check=True)
        took.append(time.perf_counter() - began)


def wait_for_workers(client: redis.Redis) -> None:
    """Until both workers are registered and idle (started, past their first catch-up pass):
    the lag measured is the projections', not the workers' start-up."""
    from rq import Worker

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = Worker.all(connection=client)
        if len(found) == WORKERS and all(w.get_state() == "idle" for w in found):
            return
        time.sleep(0.1)
    raise RuntimeError("the workers did not start")


class Measured(NamedTuple):
    # Projection lag per event, ms, by who caused the event; "steady": people's moves after the
    # first WARM_UP_MS (the start is a burst: 50 creations and first moves at once).
    lags: dict[str, list[float]]
    ai_latency: list[float]  # ms from due to the AI move's event
    ai_moves: int
    finished: int


def measure(commands: CommandService, game_ids: list[str], writes: Path) -> Measured:
    written: dict[str, list[tuple[int, int]]] = {}
    for line in writes.read_text().splitlines():
        game_id, version, at = line.split()
        written.setdefault(game_id, []).append((int(version), int(at)))
    lags: dict[str, list[float]] = {"person": [], "ai": [], "creation": [], "steady": []}
    start = min(commands.events(g)[0].time for g in game_ids)
    latencies: list[float] = []
    finished = 0
    for game_id in game_ids:
        game, state, _, _ = commands.load(game_id)
        finished += game.result(state) is not None
        records = commands.events(game_id)
        # first_write[v]: the earliest write that covers version v (a write covers all below).
        first_write = [float("inf")] * (len(records) + 2)
        for version, at in written.get(game_id, []):
            first_write[version] = min(first_write[version], at)
        for v in range(len(records), 0, -1):
            first_write[v] = min(first_write[v], first_write[v + 1])
        for r in records:
            kind = (
                "ai" if r.command_id.startswith("ai-") else "person" if r.command_id else "creation"
            )
            if first_write[r.version] != float("inf"):
                lag = first_write[r.version] - r.time
                lags[kind].append(lag)
                if kind == "person" and r.time >= start + WARM_UP_MS:
                    lags["steady"].append(lag)
        batches = [
            r for i, r in enumerate(records) if i == 0 or r.command_id != records[i - 1].command_id
        ]
        for before, after in itertools.pairwise(batches):
            if after.command_id.startswith("ai-"):
                latencies.append(after.time - before.time)
    return Measured(lags, latencies, len(latencies), finished)


def report(m: Measured, wall: float, jobs: int, status_seconds: list[float]) -> None:
    print(
        f"  {m.finished}/{GAMES} games finished, {m.ai_moves} AI moves, "
        f"{len(m.lags['person'])} events of people's moves, {WORKERS} workers, {wall:.1f} s"
    )
    everything = [lag for kind, values in m.lags.items() if kind != "steady" for lag in values]
    for label, values in (("all events", everything), *m.lags.items()):
        print(
            f"  projection lag, {label:<10}: p50 {percentile(values, 0.5):6.1f} ms, "
            f"p99 {percentile(values, 0.99):6.1f} ms, max {max(values, default=0):5.0f} ms "
            f"({len(values)} events; goal p99 < 100 ms)"
        )
    print(
        f"  AI move latency (due -> its event): p50 {percentile(m.ai_latency, 0.5):.1f} ms, "
        f"p99 {percentile(m.ai_latency, 0.99):.1f} ms"
    )
    print(f"  jobs: {jobs} done, {jobs / wall:.0f} jobs/s")
    print(
        f"  omerta status under this load: p50 {percentile(status_seconds, 0.5):.2f} s, "
        f"max {max(status_seconds, default=0):.2f} s ({len(status_seconds)} runs; goal < 1 s)"
    )
