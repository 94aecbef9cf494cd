"""What the store carries beyond the games: AOF bytes and memory per command and per game.

Starts its own embedded server (AOF rewrites off, so the file only grows) and one
``omerta worker``, plays ``GAMES`` games to their end as ``bench_workers`` does (seat 0 a
"person" this process answers for through the command service, with the API's hooks; every other
seat AI, played by the worker), waits until the worker is idle, and reports:

* AOF bytes per command (every byte the file grew by, creations included, over the commands
  played), split by what the bytes were for (the key each logged command writes: RQ's records,
  the game streams, the read models, the feed, ...), against the game events' own bytes;
* store memory per finished game: ``MEMORY USAGE`` of every key of the game (its hash tag: the
  stream, metadata, command records, read model, seats) against its events' bytes; and
  ``used_memory`` growth per command (RQ's leftovers included), and after RQ's short-lived
  records expired.

Goals: at most 2 KB of AOF per command; memory per finished game at most 3x its events' bytes.
The plot (``PLOT``) shows the AOF bytes per command by kind, beside ``BASELINE``, and the memory
per game.

``BASELINE`` is not measured by each run: it is this benchmark's figures on the code before the
store was slimmed (commit 4c93813, main's read models, RQ options and feed), from one run of 24
games on the shared machine, kept here to compare with.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

import redis
from matplotlib.figure import Figure

from tests.benchmarks.common import progress

if TYPE_CHECKING:
    from bootstrap import Container

GAMES = 24
PERSON = 0
PLOT = Path("bench-results/footprint.png")
AOF_GOAL = 2048
MEMORY_GOAL = 3.0
RQ = "RQ's records"
BASELINE = {  # bytes of AOF per command, by kind (see the module docstring)
    "read models": 9954,
    RQ: 2929,
    "game events": 418,
    "feed, changed set": 212,
    "framing (MULTI/EXEC/SELECT)": 136,
    "command records, metadata": 105,
}
BASELINE_AOF = 13725  # bytes the AOF grew by per command, all kinds
BASELINE_MEMORY = 1.52  # memory per finished game : its events' bytes
EXPIRY_WAIT = 12  # seconds: RQ's short-lived records (results kept 10 s) expire meanwhile


def aof_bytes(directory: Path) -> int:
    return sum(f.stat().st_size for f in (directory / "appendonlydir").iterdir())


def aof_commands(directory: Path) -> list[tuple[list[bytes], int]]:
    """Every command logged in the incremental AOF files (RESP arrays of bulk strings), with
    the bytes it takes there."""
    out = []
    for path in sorted((directory / "appendonlydir").glob("*.incr.aof")):
        data, at = path.read_bytes(), 0
        while at < len(data):
            start = at
            end = data.index(b"\r\n", at)
            count, at = int(data[at + 1 : end]), end + 2
            args = []
            for _ in range(count):
                end = data.index(b"\r\n", at)
                size, at = int(data[at + 1 : end]), end + 2
                args.append(data[at : at + size])
                at += size + 2
            out.append((args, at - start))
    return out


def kind_of(args: list[bytes]) -> str:
    """What a logged command's bytes were for, by the key it writes."""
    if len(args) < 2 or args[0].upper() in (b"MULTI", b"EXEC", b"SELECT"):
        return "framing (MULTI/EXEC/SELECT)"
    key = args[1].decode(errors="replace")
    if key.startswith("rq:"):
        return RQ
    if key.startswith("game:") and key.endswith(":events"):
        return "game events"
    if key.startswith("game:"):
        return "command records, metadata"
    if key.startswith("rm:"):
        return "read models"
    if key in ("feed", "changed", "changed:wake"):
        return "feed, changed set"
    return "other"


def play(container: Container, game_ids: list[str], deadline: float) -> None:
    """Answer for seat PERSON in every game until every game is over (as bench_workers)."""
    from domain import bots
    from services.errors import Conflict
    from services.readside.readmodels import FINISHED

    commands, read_models = container.commands, container.read_models
    finished = 0
    while finished < len(game_ids) and time.monotonic() < deadline:
        owing = [g for g, seat, _ in read_models.due(limit=10 * len(game_ids)) if seat == PERSON]
        for game_id in owing:
            game, state, version, meta = commands.load(game_id)
            if PERSON not in game.to_act(state):
                continue
            view, legal = game.view(state, PERSON), game.legal(state, PERSON)
            command = bots.choose(meta.game, "greedy", view, legal, f"{version}".encode())
            with contextlib.suppress(Conflict):
                commands.handle(game_id, PERSON, command, f"p-{version}", version)
        now = read_models.count(FINISHED)
        if now != finished:
            finished = now
            progress(finished, len(game_ids), "games finished")
        time.sleep(0.005)


def wait_idle(client: redis.Redis) -> None:
    """Until the worker has nothing queued or running (the last projections are written)."""
    from rq import Queue, Worker

    from workers.queues import QUEUES

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        busy = any(len(Queue(q, connection=client)) for q in QUEUES)
        if not busy and all(w.get_state() == "idle" for w in Worker.all(connection=client)):
            return
        time.sleep(0.2)


def game_memory(client: redis.Redis, game_id: str) -> int:
    """Bytes of every key of the game (all carry its hash tag)."""
    return sum(
        int(client.memory_usage(key, samples=0) or 0)
        for key in client.scan_iter(match=f"*{{{game_id}}}*", count=1000)
    )


def run() -> None:
    from bootstrap import bootstrap
    from services.platform.embedded import EmbeddedServer

    with (
        tempfile.TemporaryDirectory() as tmp,
        EmbeddedServer(Path(tmp) / "valkey", fsync="everysec") as server,
    ):
        client = server.client()
        client.config_set("auto-aof-rewrite-percentage", 0)  # the file only grows
        os.environ["REDIS_URL"] = server.url
        container = bootstrap()  # this process's service, on this server
        worker = subprocess.Popen(
            [sys.executable, "-m", "api", "worker", "--quiet", "--interval", "5"],
            env=os.environ.copy(),
            stdout=subprocess.DEVNULL,
            stderr=open(Path(tmp) / "worker.log", "wb"),  # noqa: SIM115
        )
        try:
            wait_idle(client)
            aof_before, memory_before = aof_bytes(server.directory), used_memory(client)
            logged_before = len(aof_commands(server.directory))
            game_ids = []
            for n in range(GAMES):
                name, seats = ("famiglia", 2) if n % 2 == 0 else ("gangsta", 2 + n % 3)
                ai = {s: "greedy" if s % 2 else "random" for s in range(seats) if s != PERSON}
                game_ids.append(container.commands.create_game(name, seats, ai=ai))
            play(container, game_ids, time.monotonic() + 900)
            wait_idle(client)
            aof_after, memory_after = aof_bytes(server.directory), used_memory(client)
            time.sleep(EXPIRY_WAIT)
            memory_settled = used_memory(client)
            by_kind: Counter[str] = Counter()
            rq_detail: Counter[str] = Counter()
            job_ids = set()
            for args, size in aof_commands(server.directory)[logged_before:]:
                kind = kind_of(args)
                by_kind[kind] += size
                if kind == RQ:
                    key = args[1].decode()
                    rq_detail[":".join(key.split(":")[:2])] += size
                    if key.startswith("rq:job:"):
                        job_ids.add(key.split(":")[2])
            svc = container.commands
            events_bytes = {g: sum(len(e.raw) for e in svc.store.read(g)) for g in game_ids}
            played = sum(
                sum(len(r) for s, r in svc.store.command_records(g, 4).items() if s is not None)
                for g in game_ids
            )
            finished = [g for g in game_ids if _over(svc.load(g))]
            memory = {g: game_memory(client, g) for g in finished}
            rq_keys = sum(1 for _ in client.scan_iter(match="rq:*", count=1000))
        finally:
            worker.send_signal(signal.SIGTERM)
            try:
                worker.wait(30)
            except subprocess.TimeoutExpired:
                worker.kill()
                worker.wait()
    report(
        played, len(finished), aof_after - aof_before, by_kind, rq_detail, events_bytes, memory,
        (memory_after - memory_before, memory_settled - memory_before), rq_keys, len(job_ids),
    )  # fmt: skip


def _over(loaded: object) -> bool:
    return loaded.game.result(loaded.state) is not None  # type: ignore[attr-defined]


def used_memory(client: redis.Redis) -> int:
    return int(client.info("memory")["used_memory"])


def report(
    played: int,
    finished: int,
    aof: int,
    by_kind: Counter[str],
    rq_detail: Counter[str],
    events_bytes: dict[str, int],
    memory: dict[str, int],
    growth: tuple[int, int],
    rq_keys: int,
    jobs: int,
) -> None:
    per_command = aof / played
    events_per_command = sum(events_bytes.values()) / played
    print(f"  {len(events_bytes)} games ({finished} finished), {played} commands")
    print(
        f"  AOF per command: {per_command:,.0f} bytes (goal <= {AOF_GOAL:,});"
        f" the game events alone {events_per_command:,.0f} bytes"
    )
    print(f"  (before: {BASELINE_AOF:,} bytes per command, see BASELINE)")
    total = sum(by_kind.values())
    for kind, size in by_kind.most_common():
        before = f"before {BASELINE[kind]:6,}" if kind in BASELINE else ""
        print(f"    {kind:28} {size / played:7,.0f} bytes/command ({size / total:4.0%}) {before}")
        if kind == RQ:
            print(f"      {jobs} jobs: {jobs / played:.2f} per command")
            for key, part in rq_detail.most_common(6):
                print(f"      {key:26} {part / played:7,.0f}")
    ratios = [memory[g] / events_bytes[g] for g in memory]
    mean_memory = sum(memory.values()) / max(len(memory), 1)
    mean_events = sum(events_bytes[g] for g in memory) / max(len(memory), 1)
    print(
        f"  memory per finished game: {mean_memory:,.0f} bytes, events {mean_events:,.0f} bytes:"
        f" {mean_memory / mean_events:.2f}x (goal <= {MEMORY_GOAL:.0f}x;"
        f" worst game {max(ratios):.2f}x; before {BASELINE_MEMORY:.2f}x)"
    )
    print(
        f"  used_memory growth per command: {growth[0] / played:,.0f} bytes when done,"
        f" {growth[1] / played:,.0f} bytes {EXPIRY_WAIT} s later; {rq_keys} rq:* keys left"
    )
    plot(by_kind, played, memory, events_bytes, PLOT)
    print(f"  plot: {PLOT}")


def plot(
    by_kind: Counter[str],
    played: int,
    memory: dict[str, int],
    events_bytes: dict[str, int],
    path: Path,
) -> None:
    """AOF bytes per command by kind beside the goal; memory against events per finished game."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fig = Figure(figsize=(11, 4.2))
    left, right = fig.subplots(1, 2)
    kinds = [kind for kind, _ in by_kind.most_common()]
    kinds += [kind for kind in BASELINE if kind not in kinds]
    bottoms = [0.0, 0.0]
    for n, kind in enumerate(kinds):
        heights = [BASELINE.get(kind, 0), by_kind.get(kind, 0) / played]
        left.bar([0, 1], heights, 0.5, bottom=bottoms, label=kind, color=f"C{n}")
        bottoms = [b + h for b, h in zip(bottoms, heights, strict=True)]
    left.axhline(AOF_GOAL, color="black", linestyle="dashed", label="goal: 2 KB")
    left.set_xticks([0, 1], ["before (BASELINE)", "now"])
    left.set_ylabel("bytes")
    left.set_title("AOF growth per command, by what it is for")
    left.legend(fontsize="small")
    games = sorted(memory, key=lambda g: events_bytes[g])
    xs = [events_bytes[g] / 1024 for g in games]
    right.scatter(xs, [memory[g] / 1024 for g in games], label="store memory of the game")
    right.plot(xs, [MEMORY_GOAL * x for x in xs], color="black", linestyle="dashed",
               label="goal: 3x its events")  # fmt: skip
    right.set_xlabel("the game's events, KiB")
    right.set_ylabel("KiB")
    right.set_title("Memory per finished game")
    right.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
