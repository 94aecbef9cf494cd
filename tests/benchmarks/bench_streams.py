"""Open live-event streams against the API's latency, on one web process.

Set-up: an embedded server (``OMERTA_FSYNC``, default always), one ``omerta worker`` (``nice``,
as in bench_api) and ONE gunicorn process (``omerta serve --workers 1``, gevent, room for
``STEPS[-1]`` connections) on a free port, ``GAMES`` two-player Famiglia games. A crowd of
browsers in a process of its own (``tests.crowd``: raw sockets, one selector) holds the streams
open, spread over the games, and opens each again when the server ends it (every 2 minutes), as
an EventSource does: at 10,000 streams that alone is 83 new streams a second.

At each step (``STEPS`` streams open), ``ROUNDS`` rounds of ``SECONDS``: ``CLIENTS`` threads
send ordinary requests (``GET /healthz`` and ``GET /games/{id}``, keep-alive connections) and
one plays moves in the first game, timing each command and how long its event takes to reach a
stream of that game (a probe read by a thread here). Figures per step: the p99 latency of the
ordinary requests (the median over the rounds), p50/p99 of the commands, the event's delivery
latency (median and worst), the store's connected clients, the web process's CPU with only the
streams open (keep-alives and reconnections: a figure the machine's other load hardly changes,
unlike latencies); then the largest step whose p99 stayed under ``GOAL_MS`` (goal: 10,000
streams) and a plot, ``PLOT``. Load and server share this machine's cores.
"""

from __future__ import annotations

import http.client
import json
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from matplotlib.figure import Figure

from services.platform.config import settings
from services.platform.embedded import EmbeddedServer, free_port
from tests.benchmarks.bench_api import WORKER_NICE, _cpu_of, wait_ready
from tests.benchmarks.common import median
from tests.crowd import EVENT_ID, allow_files, crowd_process, request

STEPS = (0, 1000, 2000, 5000, 10000)
GAMES = 100
CLIENTS = 4
ROUNDS = 3
SECONDS = 4.0
MOVE_EVERY = 0.5  # seconds between the measured moves
IDLE = 3.0  # seconds in which the web process's CPU is measured with only the streams open
GOAL_MS = 100.0
PLOT = Path("bench-results/streams.png")


def call(conn: http.client.HTTPConnection, method: str, path: str, body: Any = None,
         token: str = "") -> tuple[int, Any]:  # fmt: skip
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    conn.request(method, path, json.dumps(body) if body is not None else None, headers)
    response = conn.getresponse()
    raw = response.read()
    return response.status, json.loads(raw) if raw else None


def new_game(conn: http.client.HTTPConnection) -> tuple[str, list[str]]:
    tokens = [call(conn, "POST", "/players", {"name": f"P{i}"})[1]["token"] for i in range(2)]
    _, game = call(conn, "POST", "/games", {"game": "famiglia", "seats": 2}, tokens[0])
    call(conn, "POST", f"/games/{game['game_id']}/join",
         {"invite": game["invites"][0]["code"]}, tokens[1])  # fmt: skip
    return game["game_id"], tokens


class Probe:
    """One stream of a game, read here: when each event id arrived."""

    def __init__(self, port: int, game_id: str) -> None:
        self.port, self.game_id = port, game_id
        self.arrived: dict[int, float] = {}
        self.changed = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        while True:  # the server ends the stream now and then: open it again
            try:
                sock = request(self.port, f"/games/{self.game_id}/events")
            except OSError:  # the server has stopped
                return
            tail = b""
            while data := sock.recv(65536):
                now = time.perf_counter()
                data = tail + data
                with self.changed:
                    for found in EVENT_ID.finditer(data):
                        self.arrived.setdefault(int(found.group(1) or found.group(2)), now)
                    self.changed.notify_all()
                tail = data[-40:]
            sock.close()

    def arrival(self, version: int, timeout: float = 30.0) -> float | None:
        with self.changed:
            self.changed.wait_for(lambda: version in self.arrived, timeout)
            return self.arrived.get(version)


@dataclass
class Step:
    streams: int
    p99: list[float] = field(default_factory=list)  # ms, per round
    times: list[float] = field(default_factory=list)  # s, every ordinary request
    commands: list[float] = field(default_factory=list)  # s
    deliveries: list[float] = field(default_factory=list)  # s
    errors: list[str] = field(default_factory=list)
    store_clients: int = 0
    reopened: int = 0
    idle_cpu: float = 0.0  # share of one core the web process used with only the streams open


def ordinary(port: int, games: list[str], stop: float, times: list[float],
             errors: list[str]) -> None:  # fmt: skip
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    n = 0
    while time.monotonic() < stop:
        path = "/healthz" if n % 2 == 0 else f"/games/{games[n % len(games)]}"
        begun = time.perf_counter()
        status, _ = call(conn, "GET", path)
        times.append(time.perf_counter() - begun)
        if status != 200:
            errors.append(f"GET {path}: {status}")
        n += 1


@dataclass
class Measured:
    """The game the moves are made in, and its probe."""

    game_id: str
    tokens: list[str]
    probe: Probe


def moves(port: int, measured: Measured, stop: float, step: Step) -> None:
    """Moves in the measured game, one per ``MOVE_EVERY``; a game that ends is replaced."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    while time.monotonic() < stop:
        time.sleep(MOVE_EVERY)
        game_id, tokens, probe = measured.game_id, measured.tokens, measured.probe
        _, table = call(conn, "GET", f"/games/{game_id}")
        if not table["to_act"]:
            measured.game_id, measured.tokens = new_game(conn)
            measured.probe = Probe(port, measured.game_id)
            continue
        token = tokens[table["to_act"][0]]
        _, legal = call(conn, "GET", f"/games/{game_id}/legal", token=token)
        if not legal["commands"]:  # the view was behind: ask again
            continue
        choices = [c for c in legal["commands"] if c["type"] != "pass"] or legal["commands"]
        body = {"command": choices[0], "expected_version": legal["version"]}
        begun = time.perf_counter()
        status, accepted = call(conn, "POST", f"/games/{game_id}/commands", body, token)
        step.commands.append(time.perf_counter() - begun)
        if status != 200:
            step.errors.append(f"command: {status} {accepted}")
            return
        arrived = probe.arrival(accepted["version"])
        if arrived is None:
            step.errors.append(f"version {accepted['version']} never reached the stream")
            return
        step.deliveries.append(arrived - begun)


def run() -> None:
    fsync = settings(os.environ).fsync
    allow_files(STEPS[-1] + 2000)  # the server holds every stream, and so does the crowd
    with tempfile.TemporaryDirectory() as tmp, EmbeddedServer(tmp, fsync=fsync) as store:
        port = free_port()
        env = {
            **os.environ,
            "REDIS_URL": store.url,
            "OMERTA_RATE_LIMITS": "off",
            "OMERTA_WEB_STREAMS": str(STEPS[-1]),  # every stream of the crowd's
        }
        quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "env": env}
        procs = [
            subprocess.Popen(["nice", "-n", str(WORKER_NICE), sys.executable, "-m", "api",
                              "worker"], **quiet),
            subprocess.Popen([sys.executable, "-m", "api", "serve", "--bind",
                              f"127.0.0.1:{port}", "--workers", "1", "--connections",
                              str(STEPS[-1] + 2000)], **quiet),
        ]  # fmt: skip
        context = multiprocessing.get_context("spawn")
        ours, theirs = context.Pipe()
        crowd = context.Process(target=crowd_process, args=(port, theirs), daemon=True)
        steps: list[Step] = []
        try:
            wait_ready(port, procs[1])
            setup = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            games = [new_game(setup) for _ in range(GAMES)]
            print(f"  store fsync {fsync}; one gunicorn gevent process on :{port}; {GAMES} "
                  f"Famiglia games; {CLIENTS} clients; {ROUNDS} rounds of {SECONDS:.0f} s "
                  "per step")  # fmt: skip
            crowd.start()
            web = {"web": procs[1].pid}
            measured = Measured(*games[0], Probe(port, games[0][0]))
            opened = 0
            for count in STEPS:
                step = Step(count)
                while opened < count:
                    wave = min(500, count - opened)
                    ours.send(("open", [f"/games/{games[(opened + i) % GAMES][0]}/events"
                                        for i in range(wave)]))  # fmt: skip
                    ours.recv()
                    opened += wave
                    print(f"\r  opening streams: {opened}/{count}", end="", flush=True)
                if count:
                    print()
                time.sleep(1.0)
                before = _cpu_of(web)["web"]
                time.sleep(IDLE)
                step.idle_cpu = (_cpu_of(web)["web"] - before) / IDLE
                for n in range(ROUNDS):
                    stop = time.monotonic() + SECONDS
                    times: list[float] = []
                    threads = [
                        threading.Thread(
                            target=ordinary,
                            args=(port, [g for g, _ in games], stop, times, step.errors),
                        )
                        for _ in range(CLIENTS)
                    ]
                    threads.append(
                        threading.Thread(target=moves, args=(port, measured, stop, step))
                    )
                    for thread in threads:  # fmt: skip
                        thread.start()
                    for thread in threads:
                        thread.join()
                    step.times += times
                    step.p99.append(statistics.quantiles(times, n=100)[98] * 1000)
                    print(f"\r  {count} streams: round {n + 1}/{ROUNDS}", end="", flush=True)
                print()
                ours.send(("count",))
                open_now, step.reopened, errors = ours.recv()
                step.errors += errors
                step.store_clients = store.client().info("clients")["connected_clients"]
                steps.append(step)
                report(step, open_now)
                if step.errors:
                    break
        finally:
            if crowd.is_alive():
                ours.send(("close",))
                crowd.join(30)
            for proc in procs:
                proc.terminate()
            for proc in procs:
                proc.wait(30)
    held = [s.streams for s in steps if median(s.p99) < GOAL_MS and not s.errors]
    print(
        f"  most streams open with the API's p99 under {GOAL_MS:.0f} ms: "
        f"{max(held) if held else 'none'} (goal 10000; steps {', '.join(map(str, STEPS))})"
    )
    plot(steps, PLOT)
    print(f"  plot: {PLOT}")


def _ms(values: list[float], q: int) -> float:
    if len(values) < 2:
        return values[0] * 1000 if values else float("nan")
    return statistics.quantiles(values, n=100)[q - 1] * 1000


def report(step: Step, open_now: int) -> None:
    print(f"  {step.streams:>6} streams ({open_now} open now, {step.reopened} reopened so far): "
          f"requests p99 {median(step.p99):6.1f} ms (median of rounds), p50 "
          f"{_ms(step.times, 50):5.1f} ms; commands p50 {_ms(step.commands, 50):5.1f} / p99 "
          f"{_ms(step.commands, 99):6.1f} ms; event delivery median "
          f"{median(step.deliveries) * 1000:6.1f} ms, worst "
          f"{max(step.deliveries, default=float('nan')) * 1000:6.1f} ms "
          f"({len(step.deliveries)} moves); store clients {step.store_clients}; web CPU "
          f"with only the streams {step.idle_cpu * 100:.0f} % of a core")  # fmt: skip
    for error in step.errors[:3]:
        print(f"  ERROR: {error}")


def plot(steps: list[Step], path: Path) -> None:
    """Latency against open streams: ordinary requests' p99, commands' p99, event delivery."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fig = Figure(figsize=(8, 4.5))
    ax = fig.subplots()
    xs = [s.streams for s in steps]
    ax.plot(xs, [median(s.p99) for s in steps], "o-", label="GET requests, p99 (median of rounds)")
    ax.plot(xs, [_ms(s.commands, 99) for s in steps], "s-", label="commands, p99")
    ax.plot(xs, [median(s.deliveries) * 1000 for s in steps], "^-",
            label="event delivery, median")  # fmt: skip
    ax.axhline(GOAL_MS, color="black", linestyle="dashed", label=f"{GOAL_MS:.0f} ms")
    ax.set_xlabel("open live-event streams on one web process")
    ax.set_ylabel("latency, ms")
    ax.set_yscale("log")
    ax.set_title("API latency with open streams")
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
