"""The HTTP API under load: a trivial JSON endpoint against the command endpoint.

One run, one set-up: an embedded server (``OMERTA_FSYNC``, default always, as deployed: every
acknowledged write is on disk; ``OMERTA_FSYNC=everysec make bench`` shows what that costs), one
``omerta worker`` (projections) at a lower CPU priority (``nice`` ``WORKER_NICE``: projections
are asynchronous, so on a busy machine the requests people wait for go first and the worker
projects several games' moves at once; deploy it the same way, ``nice omerta worker``) and
gunicorn (``omerta serve``: gevent workers, ``WEB_WORKERS`` processes) on a free port; the load
comes from this process, ``CLIENTS`` threads with a keep-alive connection each. ``ROUNDS``
rounds, each of two phases of ``SECONDS``, side by side:

1. trivial: ``GET /healthz``;
2. refused: ``POST .../commands`` with a command no game has, refused before the rules (400
   ``unknown_command``; nothing read or stored): what the command endpoint costs at the least
   (HTTP, the token, the body, a problem answer);
3. commands: in ``GAMES`` two-player Famiglia games, each client sends one of the acting seat's
   legal commands at random (``POST .../commands`` with an Idempotency-Key and the expected
   version). The legal commands come from the answer to the seat's previous command while the
   same seat goes on; when the other seat is to act, from ``GET .../legal``. A finished game is
   replaced by a new one.

Figures: each round's requests/s of both endpoints and their ratio, then the medians over the
rounds; p50/p99 latency of each endpoint over all rounds; the median ratios: commands/s to the
trivial endpoint's requests/s, and the command loop's requests/s (legal + command) to it; and
where the CPU went in each phase (web server, worker, store, this load generator), per request;
and a plot, ``PLOT``: each round's requests/s beside the goal, and the latency distributions.
Goal: the command endpoint at least half the trivial endpoint's throughput. Client and server
share this machine's cores: the figures are the system's, not the server's alone.
"""

from __future__ import annotations

import http.client
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from matplotlib.figure import Figure

from services.platform.config import settings
from services.platform.embedded import EmbeddedServer, free_port
from tests.benchmarks.common import median, wait_ready

CLIENTS = 16
WORKER_NICE = 10
SECONDS = 5.0
WARM_UP = 2.0  # seconds per kind of request, before the first round
ROUNDS = 3
GAMES = 64
WEB_WORKERS = 2  # one process per core, as deployed
PLOT = Path("bench-results/api.png")


class Client:
    """One keep-alive connection; records each request's latency under its label."""

    def __init__(self, port: int, times: dict[str, list[float]]) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.times = times

    def call(
        self, method: str, path: str, label: str, body: Any = None, headers: dict | None = None
    ) -> tuple[int, Any]:
        data = json.dumps(body).encode() if body is not None else None
        sent = {"Content-Type": "application/json", **(headers or {})}
        begun = time.perf_counter()
        self.conn.request(method, path, body=data, headers=sent)
        response = self.conn.getresponse()
        raw = response.read()
        self.times[label].append(time.perf_counter() - begun)
        return response.status, json.loads(raw) if raw else None


@dataclass
class Game:
    id: str
    tokens: list[str]  # by seat
    last: int = 0  # the seat that moved last (it often moves again: a turn has steps)
    moves: int = 0
    version: int = 0
    legal: list[Any] | None = None  # the last mover's commands, from its command's answer
    to_act: list[int] | None = None  # None: not known yet


@dataclass
class Load:
    times: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    cpu: dict[str, float] = field(default_factory=lambda: defaultdict(float))  # seconds
    errors: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


def new_game(client: Client) -> Game:
    tokens = [client.call("POST", "/players", "setup", {"name": f"P{i}"})[1]["token"]
              for i in range(2)]  # fmt: skip
    auth = {"Authorization": f"Bearer {tokens[0]}"}
    _, created = client.call("POST", "/games", "setup", {"game": "famiglia", "seats": 2}, auth)
    invite = created["invites"][0]["code"]
    client.call("POST", f"/games/{created['game_id']}/join", "setup", {"invite": invite},
                {"Authorization": f"Bearer {tokens[1]}"})  # fmt: skip
    return Game(created["game_id"], tokens)


def play_one(client: Client, game: Game, rng: random.Random) -> bool:
    """One random legal command in ``game``; False once the game is over. A command's answer
    lists what follows (the seats to act, the mover's legal commands): ``GET .../legal`` only
    when another seat is to act."""
    if game.legal:
        seat, moves, version = game.last, game.legal, game.version
    else:
        for seat in game.to_act if game.to_act is not None else (0, 1):
            auth = {"Authorization": f"Bearer {game.tokens[seat]}"}
            _, legal = client.call("GET", f"/games/{game.id}/legal", "legal", headers=auth)
            if legal["commands"]:
                break
        else:
            return False
        moves, version = legal["commands"], legal["version"]
    choices = [c for c in moves if c["type"] != "pass"] or moves
    body = {"command": rng.choice(choices), "expected_version": version}
    key = {"Authorization": f"Bearer {game.tokens[seat]}", "Idempotency-Key": f"m{game.moves}"}
    status, answer = client.call("POST", f"/games/{game.id}/commands", "command", body, key)
    if status != 200:
        raise RuntimeError(f"command refused: {status} {answer}")
    game.last, game.moves, game.version = seat, game.moves + 1, answer["version"]
    game.legal, game.to_act = answer["legal"], answer["to_act"]
    return True


def trivial(client: Client, stop: float) -> None:
    while time.monotonic() < stop:
        client.call("GET", "/healthz", "trivial")


def refused(client: Client, stop: float, game: Game) -> None:
    headers = {"Authorization": f"Bearer {game.tokens[0]}", "Idempotency-Key": "refused"}
    body = {"command": {"type": "no_such_command"}}
    while time.monotonic() < stop:
        status, answer = client.call("POST", f"/games/{game.id}/commands", "refused", body, headers)
        if status != 400:
            raise RuntimeError(f"not refused: {status} {answer}")


def commands(client: Client, stop: float, games: list[Game], seed: int) -> None:
    rng = random.Random(seed)
    while time.monotonic() < stop:
        for i, game in enumerate(games):
            if not play_one(client, game, rng):
                games[i] = new_game(client)


TICKS = os.sysconf("SC_CLK_TCK")


def _cpu_of(roots: dict[str, int]) -> dict[str, float]:
    """CPU seconds used so far by each root process and its descendants (from /proc)."""
    stats: dict[int, tuple[int, float]] = {}  # pid -> (parent, cpu seconds)
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = open(f"/proc/{entry}/stat").read().rsplit(")", 1)[1].split()  # noqa: SIM115
            except OSError:
                continue
            stats[int(entry)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / TICKS)
    out = {}
    for name, root in roots.items():
        family, grew = {root}, True
        while grew:
            more = {pid for pid, (parent, _) in stats.items() if parent in family} - family
            family |= more
            grew = bool(more)
        out[name] = sum(stats[pid][1] for pid in family if pid in stats)
    own = os.times()
    out["load generator"] = own.user + own.system
    return out


def phase(
    name: str,
    load: Load,
    port: int,
    target: Any,
    args: list[tuple[Any, ...]],
    roots: dict[str, int],
    seconds: float = SECONDS,
) -> None:
    """``target(client, stop, *a)`` in a thread per ``a`` in ``args`` for ``seconds``, each with
    a client of its own; adds the CPU seconds each process used meanwhile to ``load.cpu``."""
    stop = time.monotonic() + seconds

    def client(*a: Any) -> None:
        try:
            target(Client(port, load.times), stop, *a)
        except Exception as exc:  # reported with the figures, not swallowed
            with load.lock:
                load.errors.append(repr(exc))

    before = _cpu_of(roots)
    threads = [threading.Thread(target=client, args=a) for a in args]
    for thread in threads:
        thread.start()
    begun = time.monotonic()
    while any(t.is_alive() for t in threads):
        time.sleep(1)
        print(f"\r  {name}: {time.monotonic() - begun:.0f}s", end="", flush=True)
    print()
    after = _cpu_of(roots)
    for k, v in after.items():
        load.cpu[k] += v - before[k]


def cpu_line(label: str, used: dict[str, float], requests: int) -> None:
    parts = ", ".join(f"{k} {v / requests * 1000:.2f}" for k, v in used.items())
    print(f"  CPU ms per {label}: {parts}")


def latency(label: str, times: list[float]) -> None:
    cuts = statistics.quantiles(times, n=100) if len(times) > 1 else [float("nan")] * 99
    print(f"  {label:<28} {len(times):>7} requests  "
          f"p50 {cuts[49] * 1000:6.1f} ms  p99 {cuts[98] * 1000:6.1f} ms")  # fmt: skip


def run() -> None:
    fsync = settings(os.environ).fsync
    with tempfile.TemporaryDirectory() as tmp, EmbeddedServer(tmp, fsync=fsync) as store:
        port = free_port()
        # The load is far above one client's rate limits: lift them explicitly.
        env = {**os.environ, "REDIS_URL": store.url, "OMERTA_RATE_LIMITS": "off"}
        quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "env": env}
        procs = [
            subprocess.Popen(["nice", "-n", str(WORKER_NICE), sys.executable, "-m", "api",
                              "worker"], **quiet),
            subprocess.Popen([sys.executable, "-m", "api", "serve", "--bind",
                              f"127.0.0.1:{port}", "--workers", str(WEB_WORKERS)], **quiet),
        ]  # fmt: skip
        try:
            wait_ready(port, procs[1])
            print(f"  store fsync {fsync}; gunicorn gevent x{WEB_WORKERS} on "
                  f":{port}; {CLIENTS} clients; {ROUNDS} rounds of {SECONDS:.0f} s per phase; "
                  f"{GAMES} Famiglia games")  # fmt: skip
            setup = Client(port, defaultdict(list))
            games = [new_game(setup) for _ in range(GAMES)]
            assert store.process is not None
            roots = {"web": procs[1].pid, "worker": procs[0].pid, "store": store.process.pid}
            # Unmeasured: the worker projects the new games, every process warms its caches.
            refusals = [(games[i],) for i in range(CLIENTS)]
            for target, args in ((trivial, [()] * CLIENTS), (refused, refusals)):
                phase("warming up", Load(), port, target, args, roots, WARM_UP)
            easy, floor, busy = Load(), Load(), Load()
            rates: list[tuple[float, ...]] = []  # trivial, refused, command, legal per second
            per = GAMES // CLIENTS
            for n in range(1, ROUNDS + 1):
                counted = (len(easy.times["trivial"]), len(floor.times["refused"]),
                           len(busy.times["command"]), len(busy.times["legal"]))  # fmt: skip
                label = f"round {n}/{ROUNDS}"
                phase(f"{label} trivial", easy, port, trivial, [()] * CLIENTS, roots)
                phase(f"{label} refused", floor, port, refused, refusals, roots)
                phase(f"{label} commands", busy, port, commands, [
                    (games[i * per:(i + 1) * per], n * CLIENTS + i) for i in range(CLIENTS)
                ], roots)  # fmt: skip
                now = (len(easy.times["trivial"]), len(floor.times["refused"]),
                       len(busy.times["command"]), len(busy.times["legal"]))  # fmt: skip
                rates.append(tuple((b - a) / SECONDS for a, b in zip(counted, now, strict=True)))
                if busy.errors or floor.errors:
                    break
        finally:
            for proc in procs:
                proc.terminate()
            for proc in procs:
                proc.wait(30)
    for n, (easy_rps, floor_rps, command_rps, legal_rps) in enumerate(rates, 1):
        print(
            f"  round {n}: GET /healthz {easy_rps:5.0f}/s, refused {floor_rps:5.0f}/s, "
            f"commands {command_rps:5.0f}/s (+ legal {legal_rps:4.0f}/s): "
            f"ratio {command_rps / easy_rps:.2f}"
        )
    trivial_rps, floor_rps, command_rps = (median([r[i] for r in rates]) for i in range(3))
    print(f"  medians: GET /healthz {trivial_rps:.0f}/s, POST .../commands refused "
          f"{floor_rps:.0f}/s, played {command_rps:.0f}/s")  # fmt: skip
    latency("GET /healthz", easy.times["trivial"])
    latency("POST .../commands, refused", floor.times["refused"])
    latency("POST /games/{id}/commands", busy.times["command"])
    latency("GET /games/{id}/legal", busy.times["legal"])
    ratio = median([r[2] / r[0] for r in rates])
    print(f"  commands/s : trivial requests/s      = {ratio:.2f}  (goal >= 0.5; median of rounds)")
    loop = median([(r[2] + r[3]) / r[0] for r in rates])
    print(f"  command loop requests/s : trivial    = {loop:.2f}  (commands and their legal)")
    least = median([r[1] / r[0] for r in rates])
    print(f"  refused commands/s : trivial         = {least:.2f}  (the endpoint's floor)")
    cpu_line("trivial request", easy.cpu, len(easy.times["trivial"]))
    cpu_line("refused command", floor.cpu, len(floor.times["refused"]))
    cpu_line("command (with its legal)", busy.cpu, len(busy.times["command"]))
    for errors in (floor.errors, busy.errors):
        if errors:
            print(f"  ERRORS: {len(errors)}, first: {errors[0]}")
    latencies = {
        "GET /healthz": easy.times["trivial"],
        "POST .../commands, refused": floor.times["refused"],
        "POST .../commands": busy.times["command"],
        "GET .../legal": busy.times["legal"],
    }
    plot(rates, latencies, PLOT)
    print(f"  plot: {PLOT}")


def plot(rates: list[tuple[float, ...]], latencies: dict[str, list[float]], path: Path) -> None:
    """Requests/s per round beside the goal; each request kind's latency distribution."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fig = Figure(figsize=(11, 4.2))
    left, right = fig.subplots(1, 2)
    kinds = ["GET /healthz", "POST .../commands\nrefused", "POST .../commands"]
    width = 0.8 / len(rates)
    for n, rate in enumerate(rates):
        xs = [i + (n - (len(rates) - 1) / 2) * width for i in range(len(kinds))]
        left.bar(xs, rate[:3], width, label=f"round {n + 1}", color=f"C{n}")
    goal = median([r[0] for r in rates]) / 2
    left.axhline(goal, color="black", linestyle="dashed", label="goal: half the trivial endpoint")
    left.set_xticks(range(len(kinds)), kinds)
    left.set_ylabel("requests/s")
    left.set_title("Throughput, side by side in one run")
    left.legend(fontsize="small")
    for label, times in latencies.items():
        ordered = sorted(t * 1000 for t in times)
        right.plot(ordered, [(i + 1) / len(ordered) for i in range(len(ordered))], label=label)
    right.set_xscale("log")
    right.set_xlabel("latency, ms (log scale)")
    right.set_ylabel("fraction of requests")
    right.set_title("Latency")
    right.legend(fontsize="small", loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
