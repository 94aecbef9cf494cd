"""Workers under load: 50 concurrent AI-vs-AI games on two worker processes.

Starts its own embedded server (fsync always, as deployed) and two ``omerta worker`` processes,
creates the games (half Famiglia, half Gangsta! with 2-4 seats, every seat AI) and waits until
all are over. Figures:

* projection lag: from an event's append (its envelope time) to the first read-model write that
  covers its version (the workers log each write's time: the benchmark wraps
  ``Projector.write`` in its worker processes); goal p99 < 100 ms;
* AI move latency: from the event after which an AI seat owed a move to the move's own event
  (every seat is AI, so that is the gap between consecutive commands of a game);
* jobs per second: jobs the two workers completed, over the wall time.
"""

from __future__ import annotations

import itertools
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.benchmarks.common import progress

GAMES = 50
WORKERS = 2
WRITES_LOG = "OMERTA_BENCH_WRITES"


def instrumented_worker() -> None:
    """A worker process that logs (game, version, ms) of every read-model write it makes."""
    from services.store import now_ms
    from workers import worker
    from workers.projection import Projector

    log = open(os.environ[WRITES_LOG], "a", buffering=1)  # noqa: SIM115  (lives with the process)
    write = Projector.write

    def logged(self: Projector, game_id: str, folded: object, seating: object) -> bool:
        written = write(self, game_id, folded, seating)  # type: ignore[arg-type]
        if written:
            log.write(f"{game_id} {folded.version} {now_ms()}\n")  # type: ignore[attr-defined]
        return written

    Projector.write = logged  # type: ignore[method-assign]
    worker.run(interval=5)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def run() -> None:
    from rq import Worker

    from services import commands
    from services.embedded import EmbeddedServer
    from services.readmodels import FINISHED
    from workers import enqueue, runtime

    with tempfile.TemporaryDirectory() as tmp, EmbeddedServer(Path(tmp) / "valkey") as server:
        os.environ["REDIS_URL"] = server.url
        commands._default = None  # the process-wide service, on this server
        runtime.reset()
        enqueue.install()
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
            time.sleep(1.0)  # let the workers start and register
            start = time.perf_counter()
            game_ids = []
            for n in range(GAMES):
                if n % 2 == 0:
                    ai: dict[int, str] = {0: "greedy", 1: "random"}
                    game_ids.append(commands.create_game("famiglia", 2, ai=ai))
                else:
                    seats = 2 + n % 3
                    ai = {s: "greedy" if s % 2 == 0 else "random" for s in range(seats)}
                    game_ids.append(commands.create_game("gangsta", seats, ai=ai))
            done = 0
            deadline = time.monotonic() + 900
            while done < GAMES and time.monotonic() < deadline:
                time.sleep(0.5)
                now = int(client.zcard(FINISHED))
                if now != done:
                    done = now
                    progress(done, GAMES, "games finished")
            wall = time.perf_counter() - start
            jobs = sum(
                w.successful_job_count + w.failed_job_count for w in Worker.all(connection=client)
            )
        finally:
            for proc in procs:
                proc.send_signal(signal.SIGTERM)
            for proc in procs:
                try:
                    proc.wait(30)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        if done < GAMES:
            print(f"  only {done} of {GAMES} games finished within the time limit")

        lags, ai_latency, commands_sent = measure(game_ids, writes)
        print(f"  {GAMES} games, {commands_sent} AI moves, {WORKERS} workers, {wall:.1f} s")
        print(
            f"  projection lag: p50 {percentile(lags, 0.5):.1f} ms, "
            f"p99 {percentile(lags, 0.99):.1f} ms, max {max(lags):.0f} ms "
            f"over {len(lags)} events (goal: p99 < 100 ms)"
        )
        print(
            f"  AI move latency (due -> its event): p50 {percentile(ai_latency, 0.5):.1f} ms, "
            f"p99 {percentile(ai_latency, 0.99):.1f} ms"
        )
        print(f"  jobs: {jobs} done, {jobs / wall:.0f} jobs/s")


def measure(game_ids: list[str], writes: Path) -> tuple[list[float], list[float], int]:
    """Projection lags (per event) and AI move latencies (per command), in ms."""
    from services import commands

    written: dict[str, list[tuple[int, int]]] = {}
    for line in writes.read_text().splitlines():
        game_id, version, at = line.split()
        written.setdefault(game_id, []).append((int(version), int(at)))
    lags: list[float] = []
    latencies: list[float] = []
    sent = 0
    for game_id in game_ids:
        records = commands.service().events(game_id)
        # first_write[v]: the earliest write that covers version v (a write covers all below).
        first_write = [float("inf")] * (len(records) + 2)
        for version, at in written.get(game_id, []):
            first_write[version] = min(first_write[version], at)
        for v in range(len(records), 0, -1):
            first_write[v] = min(first_write[v], first_write[v + 1])
        lags += [first_write[r.version] - r.time for r in records if first_write[r.version] < 1e18]
        batches = [
            r for i, r in enumerate(records) if i == 0 or r.command_id != records[i - 1].command_id
        ]
        for before, after in itertools.pairwise(batches):
            if after.command_id.startswith("ai-"):
                latencies.append(after.time - before.time)
                sent += 1
    return lags, latencies, sent
