"""Load: expert AI games and games of people at once, on the processes ``omerta run`` starts.

An embedded store (fsync always, as deployed), ``omerta serve`` (gunicorn, ``WEB_WORKERS``
processes), one default ``omerta worker`` and ``AI_WORKERS`` AI workers (``omerta worker
--queues ai``), all real processes; the workers are instrumented (they log each read-model write
and each AI move's wall time). ``AI_GAMES`` games of two ``expert`` seats (Famiglia and
Gangsta!, alternately) play on their own; ``PEOPLE_GAMES`` two-player games of people are
played over HTTP by one client thread each, for both seats: a legal command at random (passes
only when nothing else is legal), ``THINK`` seconds apart (a person's pace); a finished game
is replaced by a new one.

Two phases of ``--seconds`` each: the AI workers at their default CPU priority
(``OMERTA_AI_NICE``, 15), then restarted at the web's and worker's (``OMERTA_AI_NICE=0``).

Figures per phase:

* projection lag of people's moves: from the command's acknowledgement (its 200 reaching the
  client) to the first read-model write covering its version (0 when the write came first);
  goal p99 < 50 ms;
* AI move wall time: one move in the AI worker, from loading the game to the command stored
  (the search is most of it: ``expert`` searches 1 s); and the wait of an AI move, from the
  event after which it was owed to its own event (with one AI worker and 20 expert games this
  is mostly the AI queue: each game waits for the others' moves);
* and a plot, ``PLOT``. The load generator shares the machine's cores with the service: with 2
  cores, the AI worker's search takes one whenever it runs, and everything else the other.

``python -m tests.benchmarks.bench_load --seconds 30`` for a shorter run.
"""

from __future__ import annotations

import argparse
import http.client
import itertools
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from matplotlib.figure import Figure

from bootstrap import bootstrap
from services.games.commands import CommandService
from services.platform.config import settings
from services.platform.embedded import EmbeddedServer, free_port
from tests.benchmarks.bench_workers import percentile
from tests.benchmarks.common import stop_all, wait_ready

AI_GAMES = 20
PEOPLE_GAMES = 30
AI_WORKERS = 1  # as omerta run starts
WEB_WORKERS = 2  # one per core, as deployed
THINK = (0.3, 1.5)  # seconds between a person's moves
SECONDS = 60.0  # per phase
PHASES = (("AI workers at nice 15", None), ("AI workers at nice 0", "0"))
GOAL_MS = 50
PLOT = Path("bench-results/load.png")
LOG = "OMERTA_BENCH_LOAD_LOG"


def instrumented_worker(queues: str) -> None:
    """A worker process (``queues``: its ``--queues``) that logs
    ``w <game> <version> <ms>`` for each read-model write and ``m <game> <version> <ms> <s>``
    for each AI move it made (its wall time ``s``)."""
    from bootstrap import bootstrap
    from services.eventstore.store import now_ms
    from workers import ai, worker
    from workers.context import Context
    from workers.projection.projector import Projector

    out = open(os.environ[LOG], "a", buffering=1)  # noqa: SIM115  (lives with the process)
    write, move = Projector.write, ai._move

    def logged_write(self: Projector, game_id: str, folded: Any, *rest: Any) -> bool:
        written = write(self, game_id, folded, *rest)
        if written:
            out.write(f"w {game_id} {folded.version} {now_ms()}\n")
        return written

    def logged_move(context: Context, game_id: str, version: int) -> str:
        began = time.perf_counter()
        outcome = move(context, game_id, version)
        if outcome == "moved":
            out.write(f"m {game_id} {version} {now_ms()} {time.perf_counter() - began:.4f}\n")
        return outcome

    Projector.write = logged_write  # type: ignore[method-assign]
    ai._move = logged_move
    context = bootstrap().context
    worker.run(context, interval=5, log_level="WARNING", queues=worker.queue_names(queues))


class Client:
    """One keep-alive connection to the web server."""

    def __init__(self, port: int) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

    def call(self, method: str, path: str, body: Any = None, token: str = "") -> tuple[int, Any]:
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        data = json.dumps(body).encode() if body is not None else None
        self.conn.request(method, path, body=data, headers=headers)
        response = self.conn.getresponse()
        raw = response.read()
        return response.status, json.loads(raw) if raw else None


class People(threading.Thread):
    """Two people playing one game after another over HTTP; records each accepted command's
    (game, version, acknowledged at ms)."""

    def __init__(self, port: int, n: int, stop: threading.Event) -> None:
        super().__init__(daemon=True)
        self.client, self.n, self.stop = Client(port), n, stop
        self.rng = random.Random(n)
        self.acks: list[tuple[str, int, int]] = []
        self.errors: list[str] = []
        self.tokens = [self.client.call("POST", "/players", {"name": f"P{n}-{i}"})[1]["token"]
                       for i in range(2)]  # fmt: skip

    def new_game(self) -> str:
        game = "famiglia" if self.n % 2 == 0 else "gangsta"
        _, made = self.client.call("POST", "/games", {"game": game, "seats": 2}, self.tokens[0])
        invite = made["invites"][0]["code"]
        self.client.call("POST", f"/games/{made['game_id']}/join", {"invite": invite},
                         self.tokens[1])  # fmt: skip
        return str(made["game_id"])

    def run(self) -> None:
        try:
            game_id = self.new_game()
            while not self.stop.wait(self.rng.uniform(*THINK)):
                if not self.move(game_id):
                    game_id = self.new_game()
        except Exception as exc:  # reported with the figures
            self.errors.append(repr(exc))

    def move(self, game_id: str) -> bool:
        """One legal command of a seat to act; False once the game is over."""
        for token in self.tokens:
            status, legal = self.client.call("GET", f"/games/{game_id}/legal", token=token)
            if status == 200 and legal["commands"]:
                break
        else:
            return False
        choices = [c for c in legal["commands"] if c["type"] != "pass"] or legal["commands"]
        body = {"command": self.rng.choice(choices), "expected_version": legal["version"]}
        status, answer = self.client.call("POST", f"/games/{game_id}/commands", body, token)
        if status == 200:
            self.acks.append((game_id, answer["version"], int(time.time() * 1000)))
        elif status != 409:  # 409: the other seat moved first (a simultaneous decision)
            raise RuntimeError(f"command refused: {status} {answer}")
        return True


def start_worker(queues: str, env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    code = f"from tests.benchmarks.bench_load import instrumented_worker as w; w({queues!r})"
    with open(log, "ab") as err:
        return subprocess.Popen([sys.executable, "-c", code], env=env, stdout=err, stderr=err)


def run(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="bench_load")
    parser.add_argument("--seconds", type=float, default=SECONDS, help="per phase")
    parser.add_argument("--ai-workers", type=int, default=AI_WORKERS)
    args = parser.parse_args(argv or [])
    fsync = settings(os.environ).fsync
    with tempfile.TemporaryDirectory() as tmp, EmbeddedServer(tmp, fsync=fsync) as store:
        port = free_port()
        log = Path(tmp) / "load.log"
        env = {**os.environ, "REDIS_URL": store.url, "OMERTA_RATE_LIMITS": "off", LOG: str(log)}
        out = Path(tmp) / "processes.log"
        web = subprocess.Popen(
            [sys.executable, "-m", "api", "serve", "--bind", f"127.0.0.1:{port}",
             "--workers", str(WEB_WORKERS)],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        main = start_worker("projections,clocks,notify,mail", env, out)  # as omerta run does
        ai: list[subprocess.Popen[bytes]] = []
        windows: list[tuple[str, int, int]] = []
        people: list[People] = []
        try:
            wait_ready(port, web)
            print(f"  store fsync {fsync}; gunicorn x{WEB_WORKERS}; 1 worker, {args.ai_workers} "
                  f"AI worker(s); {AI_GAMES} expert AI games, {PEOPLE_GAMES} games of people "
                  f"(a move every {THINK[0]}-{THINK[1]} s); {len(PHASES)} phases of "
                  f"{args.seconds:.0f} s; {os.cpu_count()} cores")  # fmt: skip
            os.environ["REDIS_URL"] = store.url
            commands = bootstrap().commands  # this process's service, on the bench's server
            ai_games = create_ai_games(commands)
            stop_people = threading.Event()
            people = [People(port, n, stop_people) for n in range(PEOPLE_GAMES)]
            for label, nice in PHASES:
                ai_env = {**env, **({"OMERTA_AI_NICE": nice} if nice is not None else {})}
                ai = [start_worker("ai", ai_env, out) for _ in range(args.ai_workers)]
                time.sleep(3)  # the AI workers start (their first searches are in the phase)
                if not windows:  # the first phase: the people sit down
                    for thread in people:
                        thread.start()
                begun = int(time.time() * 1000)
                time.sleep(args.seconds)
                windows.append((label, begun, int(time.time() * 1000)))
                print(f"  {label}: done", flush=True)
                stop_all(ai)
                ai = []
            stop_people.set()
            for thread in people:
                thread.join(30)
            time.sleep(1.0)  # the last projections
        finally:
            stop_all([*ai, main, web])
        if not log.exists() or not log.read_text():
            print(out.read_text()[-3000:])
            raise RuntimeError("the workers logged nothing (their output is above)")
        # the store still runs: the AI games' events
        report(log, windows, people, commands, ai_games)


def report(
    log: Path,
    windows: list[tuple[str, int, int]],
    people: list[People],
    commands: CommandService,
    ai_games: list[str],
) -> None:
    writes: dict[str, list[tuple[int, int]]] = {}
    moves: list[tuple[int, float]] = []  # (at ms, wall s)
    for line in log.read_text().splitlines():
        kind, game_id, version, at, *rest = line.split()
        if kind == "w":
            writes.setdefault(game_id, []).append((int(version), int(at)))
        else:
            moves.append((int(at), float(rest[0])))
    acks = [a for p in people for a in p.acks]
    waits = owed_waits(commands, ai_games)
    lags_by: dict[str, list[float]] = {}
    walls_by: dict[str, list[float]] = {}
    for label, begun, ended in windows:
        lags = []
        for game_id, version, at in acks:
            if begun <= at < ended:
                shown = min((w for v, w in writes.get(game_id, []) if v >= version), default=None)
                lags.append(float("inf") if shown is None else max(0, shown - at))
        walls = [wall * 1000 for at, wall in moves if begun <= at < ended]
        owed = [ms for at, ms in waits if begun <= at < ended]
        lags_by[label], walls_by[label] = lags, walls
        print(f"  {label}:")
        print(f"    people's moves: {len(lags)}; projection lag (ack -> read model) p50 "
              f"{percentile(lags, 0.5):.1f} ms, p99 {percentile(lags, 0.99):.1f} ms, max "
              f"{max(lags, default=0):.0f} ms (goal p99 < {GOAL_MS} ms)")  # fmt: skip
        print(
            f"    AI moves: {len(walls)}; wall time p50 {percentile(walls, 0.5):.0f} ms, "
            f"p99 {percentile(walls, 0.99):.0f} ms; owed -> made p50 "
            f"{percentile(owed, 0.5) / 1000:.1f} s, p99 {percentile(owed, 0.99) / 1000:.1f} s"
        )
    errors = [e for p in people for e in p.errors]
    if errors:
        print(f"  ERRORS: {len(errors)} clients stopped, first: {errors[0]}")
    plot(lags_by, walls_by, PLOT)
    print(f"  plot: {PLOT}")


def create_ai_games(commands: CommandService) -> list[str]:
    """The games of two AI seats (no person: created by the command service, as the API would
    if someone could sit out; its hook wakes the projections, as the API's does)."""
    ai = {0: "expert", 1: "expert"}
    return [commands.create_game(("famiglia", "gangsta")[n % 2], 2, ai=ai) for n in range(AI_GAMES)]


def owed_waits(commands: CommandService, game_ids: list[str]) -> list[tuple[int, float]]:
    """(at ms, waited ms) of each AI move of the AI games: from the event after which it was
    owed to its own first event."""
    waits = []
    for game_id in game_ids:
        records = commands.events(game_id)
        firsts = [r for i, r in enumerate(records)
                  if i == 0 or r.command_id != records[i - 1].command_id]  # fmt: skip
        for before, after in itertools.pairwise(firsts):
            if after.command_id.startswith("ai-"):
                waits.append((after.time, float(after.time - before.time)))
    return waits


def plot(lags: dict[str, list[float]], walls: dict[str, list[float]], path: Path) -> None:
    """People's projection lag (distribution, goal marked) and AI move wall time, per phase."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fig = Figure(figsize=(11, 4.2))
    left, right = fig.subplots(1, 2)
    for label, values in lags.items():
        ordered = sorted(max(v, 0.1) for v in values if v != float("inf"))
        if ordered:
            left.plot(ordered, [(i + 1) / len(ordered) for i in range(len(ordered))], label=label)
    left.axvline(GOAL_MS, color="black", linestyle="dashed", label=f"goal: p99 < {GOAL_MS} ms")
    left.axhline(0.99, color="grey", linestyle="dotted")
    left.set_xscale("log")
    left.set_xlabel("projection lag of people's moves, ms (log scale; 0 shown as 0.1)")
    left.set_ylabel("fraction of moves")
    left.set_title("Command acknowledged -> read model shows it")
    left.legend(fontsize="small", loc="lower right")
    right.hist([walls[k] for k in walls], bins=30, label=list(walls))
    right.set_xlabel("AI move wall time, ms (expert: 1 s search)")
    right.set_ylabel("moves")
    right.set_title("AI moves")
    right.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    run(sys.argv[1:])
