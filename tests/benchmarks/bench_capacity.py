"""Capacity: many active games, each moving about once a minute, their live streams open.

Real processes: an embedded store (fsync always; ``--cluster``: a 3+3 Valkey Cluster,
``REDIS_CLUSTER_URL``, with ``OMERTA_MIN_REPLICAS=1``), RQ's queues on a server of their own
(``RQ_REDIS_URL``, as deployed), ``omerta serve`` (gunicorn, gevent, ``--web-workers`` processes)
and one ``omerta worker`` (nice 10, as deployed). ``--games`` two-player games (Famiglia and
Gangsta! alternately) between ``PLAYERS`` people are created over HTTP, and a crowd of browsers
(``tests.crowd``, a process of its own) holds one live-event stream open on each game
(``GET /games/{id}/events``; the server ends each one within 2 minutes and the crowd opens it
again, as an EventSource does). For ``--seconds``, ``MOVERS`` threads make each game's moves,
one every ``PERIOD`` seconds per game (the first at a random point of the first period), each
a legal command at random over HTTP (``GET .../legal`` when the last answer did not list the
next seat's commands, then ``POST .../commands``).

Figures:

* command latency (``POST .../commands``, client side) p50 / p99 / max, and how far the movers
  fell behind their schedule (if they did, the rate asked for was not reached);
* CPU per command: the CPU seconds of the web processes, the worker and the store in the
  window, over the commands made in it (everything they did meanwhile counts: the ``legal``
  requests, the streams' deliveries and reconnections, the projections);
* store memory: ``used_memory`` (every master) before the games, after creating them, at the
  end of the window, per game; ``MEMORY USAGE`` of each game's own keys (its hash tag) for
  ``SAMPLE`` active games, and for ``--finished`` games played to their end afterwards
  (through the command service in this process, the worker projecting them), with their
  events' count: memory per active and per finished game;
* a plot, ``PLOT``: command latency's distribution and the CPU per command by process.

On this machine the load generator and the crowd share the two cores with the service.
``python -m tests.benchmarks.bench_capacity --games 1000 --seconds 60`` for a shorter run.
"""

from __future__ import annotations

import argparse
import heapq
import http.client
import json
import multiprocessing
import os
import random
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

from services.eventstore import keys
from services.platform.embedded import EmbeddedServer, free_port
from tests.benchmarks.bench_api import WORKER_NICE, _cpu_of
from tests.benchmarks.bench_workers import percentile
from tests.benchmarks.common import progress, stop_all, wait_ready
from tests.cluster import Cluster
from tests.crowd import allow_files, crowd_process

GAMES = 10_000
PERIOD = 60.0  # seconds between a game's moves
SECONDS = 180.0
PLAYERS = 200
MOVERS = 8
CREATORS = 4
SAMPLE = 200
FINISHED = 40
IDLE = 10.0  # seconds with the streams open and no move: the processes' CPU then
WEB_WORKERS = 2  # one per core, as deployed
PLOT = Path("bench-results/capacity.png")


class Conn:
    """A keep-alive connection to the web server, opened again when the server closed it while
    idle (gunicorn's keep-alive timeout: a mover waits longer than that between moves). The
    request was not read then, so sending it again is safe."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

    def call(self, method: str, path: str, body: Any = None, token: str = "") -> tuple[int, Any]:
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        data = json.dumps(body) if body is not None else None
        for attempt in (1, 2):
            try:
                self.conn.request(method, path, data, headers)
                response = self.conn.getresponse()
                break
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                self.conn.close()
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
                if attempt == 2:
                    raise
        raw = response.read()
        return response.status, json.loads(raw) if raw else None


@dataclass
class Game:
    game_id: str
    tokens: list[str]  # the two people's
    seat_of: dict[int, str] = field(default_factory=dict)  # seat -> token, learnt from /legal
    next_seat: int | None = None  # from the last accepted command's to_act
    legal: list[Any] | None = None  # next_seat's commands, when the answer listed them
    version: int = 0
    over: bool = False


def new_game(conn: Conn, n: int, tokens: list[str]) -> Game:
    pair = [tokens[n % len(tokens)], tokens[(n * 7 + 1) % len(tokens)]]
    if pair[0] == pair[1]:
        pair[1] = tokens[(n + 1) % len(tokens)]
    name = ("famiglia", "gangsta")[n % 2]
    status, made = conn.call("POST", "/games", {"game": name, "seats": 2}, pair[0])
    if status != 201:
        raise RuntimeError(f"create: {status} {made}")
    status, joined = conn.call("POST", f"/games/{made['game_id']}/join",
                          {"invite": made["invites"][0]["code"]}, pair[1])  # fmt: skip
    if status != 200:
        raise RuntimeError(f"join: {status} {joined}")
    return Game(made["game_id"], pair)


def move(conn: Conn, game: Game, rng: random.Random) -> float | None:
    """One legal command of a seat to act (a pass only when nothing else is legal); its
    latency in seconds, or None (the game is over, or another seat moved first)."""
    commands, seat = (game.legal, game.next_seat) if game.legal else (None, None)
    if commands is None:
        known = [game.seat_of[game.next_seat]] if game.next_seat in game.seat_of else []
        for token in known + [t for t in game.tokens if t not in known]:
            status, legal = conn.call("GET", f"/games/{game.game_id}/legal", token=token)
            if status != 200:
                raise RuntimeError(f"legal: {status} {legal}")
            game.seat_of[legal["seat"]] = token
            if legal["commands"]:
                commands, seat, game.version = legal["commands"], legal["seat"], legal["version"]
                break
        else:
            game.over = True
            return None
    assert seat is not None
    choices = [c for c in commands if c["type"] != "pass"] or commands
    body = {"command": rng.choice(choices), "expected_version": game.version}
    begun = time.perf_counter()
    status, answer = conn.call("POST", f"/games/{game.game_id}/commands", body,
                          game.seat_of[seat])  # fmt: skip
    latency = time.perf_counter() - begun
    game.legal = None
    if status == 409:  # the other seat moved first (a simultaneous decision): ask again
        game.next_seat = None
        return None
    if status != 200:
        raise RuntimeError(f"command: {status} {answer}")
    game.version = answer["version"]
    game.next_seat = answer["to_act"][0] if answer["to_act"] else None
    if game.next_seat == seat and answer["legal"]:
        game.legal = answer["legal"]
    return latency


@dataclass
class Window:
    latencies: list[float] = field(default_factory=list)  # s
    behind: list[float] = field(default_factory=list)  # s late, per move
    ended: int = 0
    errors: list[str] = field(default_factory=list)


def mover(port: int, games: list[Game], begun: float, until: float, seed: int,
          out: Window) -> None:  # fmt: skip
    """Each of ``games`` moves once every PERIOD from a random point of the first period."""
    conn = Conn(port)
    rng = random.Random(seed)
    due = [(begun + rng.uniform(0, PERIOD), n) for n in range(len(games))]
    heapq.heapify(due)
    try:
        while due:
            at, n = heapq.heappop(due)
            if at >= until or time.monotonic() >= until:  # a mover behind stops on time too
                return
            wait = at - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            else:
                out.behind.append(-wait)
            latency = move(conn, games[n], rng)
            if latency is not None:
                out.latencies.append(latency)
            if games[n].over:
                out.ended += 1
            else:
                heapq.heappush(due, (at + PERIOD, n))
    except Exception as exc:  # reported with the figures
        out.errors.append(repr(exc))


def finished_games(env: dict[str, str], count: int) -> list[str]:
    """``count`` games played to their end through the command service in this process (as
    the API would play them, its enqueue hook waking the worker's projections; over HTTP they
    would take minutes on a loaded machine)."""
    from bootstrap import bootstrap
    from tests.services.helpers import play_out

    os.environ.update(env)
    svc = bootstrap().commands  # this process's service, on the bench's store
    rng = random.Random(7)
    ids = []
    for n in range(count):
        game_id = svc.create_game(("famiglia", "gangsta")[n % 2], 2, {})
        play_out(svc, game_id, rng)
        ids.append(game_id)
    return ids


class Store:
    """The store the processes use (one embedded server, or a 3+3 cluster) and RQ's server of
    its own (``RQ_REDIS_URL``), as deployed: their CPU and memory are counted apart."""

    def __init__(self, tmp: Path, cluster: bool, rq_fsync: str) -> None:
        self.cluster: Cluster | None = None
        self.rq = EmbeddedServer(tmp / "rq", fsync=rq_fsync).start()
        if cluster:
            self.cluster = Cluster(tmp / "cluster").start()
            self.client: Any = self.cluster.client()
            self.nodes = self.cluster.nodes
            self.env = {"REDIS_CLUSTER_URL": self.cluster.url, "OMERTA_MIN_REPLICAS": "1"}
        else:
            server = EmbeddedServer(tmp / "store").start()
            self.client = server.client()
            self.nodes = [server]
            self.env = {"REDIS_URL": server.url}
        self.env["RQ_REDIS_URL"] = self.rq.url

    def pids(self) -> dict[str, int]:
        found = {f"store {n.port}": n.process.pid for n in self.nodes if n.process is not None}
        assert self.rq.process is not None
        return {**found, "rq": self.rq.process.pid}

    def used_memory(self) -> int:
        """Bytes in use on the masters (a replica holds a copy of its master's)."""
        total = 0
        for node in self.nodes:
            client = node.client()
            try:
                if client.info("replication")["role"] == "master":
                    total += int(client.info("memory")["used_memory"])
            finally:
                client.close()
        return total

    def game_bytes(self, game_ids: list[str]) -> tuple[list[int], list[int]]:
        """(MEMORY USAGE of each game's own keys, summed; its events' count)."""
        wanted = set(game_ids)
        by_game: dict[str, int] = defaultdict(int)
        for key in self.client.scan_iter(count=1000):
            text = key.decode()
            start = text.find("{")
            tag = text[start + 1 : text.find("}", start)] if start >= 0 else ""
            if tag in wanted:
                by_game[tag] += int(self.client.memory_usage(key) or 0)
        events = [int(self.client.xlen(keys.events_key(g))) for g in game_ids]
        return [by_game[g] for g in game_ids], events

    def stop(self) -> None:
        self.client.close()
        if self.cluster:
            self.cluster.stop()
        for node in [*self.nodes, self.rq]:
            node.stop()


def run(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="bench_capacity")
    parser.add_argument("--games", type=int, default=GAMES)
    parser.add_argument("--seconds", type=float, default=SECONDS, help="the measured window")
    parser.add_argument("--web-workers", type=int, default=WEB_WORKERS)
    parser.add_argument("--finished", type=int, default=FINISHED)
    parser.add_argument("--cluster", action="store_true", help="the store on a 3+3 cluster")
    parser.add_argument("--rq-fsync", default="always", help="appendfsync of RQ's server")
    args = parser.parse_args(argv or [])
    allow_files(args.games + 3000)  # the web processes hold every stream
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        store = Store(tmp, args.cluster, args.rq_fsync)
        port = free_port()
        env = {
            **os.environ,
            **store.env,
            "OMERTA_RATE_LIMITS": "off",
            "OMERTA_VAR": name,
            "OMERTA_WEB_STREAMS": str(args.games),  # every game's stream, on any process
        }
        quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "env": env}
        procs = [
            subprocess.Popen([sys.executable, "-m", "api", "serve", "--bind", f"127.0.0.1:{port}",
                              "--workers", str(args.web_workers), "--connections",
                              str(args.games + 2000)], **quiet),
            subprocess.Popen(["nice", "-n", str(WORKER_NICE), sys.executable, "-m", "api",
                              "worker"], **quiet),
        ]  # fmt: skip
        context = multiprocessing.get_context("spawn")
        ours, theirs = context.Pipe()
        crowd = context.Process(target=crowd_process, args=(port, theirs), daemon=True)
        try:
            wait_ready(port, procs[0])
            print(f"  store: {'3+3 cluster, WAIT 1' if args.cluster else 'one server'} (fsync "
                  f"always), RQ's server fsync {args.rq_fsync}; gunicorn x{args.web_workers}; "
                  f"1 worker; {args.games:,} games, a move every {PERIOD:.0f} s each = "
                  f"{args.games / PERIOD:,.0f} commands/s asked for; window "
                  f"{args.seconds:.0f} s; {os.cpu_count()} cores",
                  flush=True)  # fmt: skip
            figures = measure(args, store, port, procs, ours, crowd)
        finally:
            if crowd.is_alive():
                ours.send(("close",))
                crowd.join(30)
            stop_all(procs)
            store.stop()
    report(figures)
    plot(figures, PLOT)
    print(f"  plot: {PLOT}")


def measure(
    args: argparse.Namespace,
    store: Store,
    port: int,
    procs: list[subprocess.Popen[bytes]],
    ours: Any,
    crowd: Any,
) -> dict[str, Any]:
    figures: dict[str, Any] = {"games": args.games}
    time.sleep(2.0)  # the worker's start (its records) before the baseline
    figures["memory_before"] = store.used_memory()
    setup = Conn(port)
    tokens = []
    for i in range(PLAYERS):
        status, player = setup.call("POST", "/players", {"name": f"P{i}"})
        if status != 201:
            raise RuntimeError(f"POST /players: {status} {player}")
        tokens.append(player["token"])
    games: list[Game | None] = [None] * args.games
    errors: list[str] = []

    def create(offset: int) -> None:
        conn = Conn(port)
        try:
            for n in range(offset, args.games, CREATORS):
                games[n] = new_game(conn, n, tokens)
                if offset == 0 and n % (CREATORS * 250) == 0:
                    progress(n, args.games, "creating games")
        except Exception as exc:
            errors.append(repr(exc))

    begun = time.monotonic()
    threads = [threading.Thread(target=create, args=(i,)) for i in range(CREATORS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    progress(args.games, args.games, "creating games")
    if errors:
        raise RuntimeError(f"creating the games: {errors[0]}")
    made = [g for g in games if g is not None]
    print(f"  {len(made):,} games created in {time.monotonic() - begun:.0f} s", flush=True)
    time.sleep(3.0)  # their projections
    figures["memory_created"] = store.used_memory()

    crowd.start()
    opened = 0
    while opened < len(made):
        wave = made[opened : opened + 500]
        ours.send(("open", [f"/games/{g.game_id}/events" for g in wave]))
        ours.recv()
        opened += len(wave)
        progress(opened, len(made), "opening streams")

    roots = {"web": procs[0].pid, "worker": procs[1].pid, **store.pids()}
    time.sleep(2.0)
    cpu_before = _cpu_of(roots)
    time.sleep(IDLE)
    figures["idle"] = {k: v / IDLE for k, v in by_process(cpu_before, _cpu_of(roots)).items()}
    window = Window()
    cpu_before = _cpu_of(roots)
    begun = time.monotonic()
    until = begun + args.seconds
    share = [made[i::MOVERS] for i in range(MOVERS)]
    threads = [threading.Thread(target=mover, args=(port, share[i], begun, until, i, window))
               for i in range(MOVERS)]  # fmt: skip
    for thread in threads:
        thread.start()
    while any(t.is_alive() for t in threads):
        time.sleep(5.0)
        ours.send(("count",))
        open_now, reopened, _ = ours.recv()
        print(f"\r  window: {time.monotonic() - begun:4.0f}/{args.seconds:.0f} s, "
              f"{len(window.latencies):,} commands, {open_now:,} streams open, {reopened:,} "
              "reopened", end="", flush=True)  # fmt: skip
    print()
    elapsed = time.monotonic() - begun
    cpu_after = _cpu_of(roots)
    ours.send(("count",))
    figures["streams"] = ours.recv()
    figures["window"] = window
    figures["elapsed"] = elapsed
    figures["cpu"] = by_process(cpu_before, cpu_after)
    time.sleep(3.0)  # the last projections
    figures["memory_end"] = store.used_memory()
    sample = [g.game_id for g in made[:: max(1, len(made) // SAMPLE)]][:SAMPLE]
    figures["active"] = store.game_bytes(sample)

    done = finished_games(store.env, args.finished)
    time.sleep(5.0)  # the worker projects their ends
    figures["finished"] = store.game_bytes(done)
    return figures


def by_process(before: dict[str, float], after: dict[str, float]) -> dict[str, float]:
    """CPU seconds from ``before`` to ``after`` of the web processes, the worker, the store."""
    return {
        "web": after["web"] - before["web"],
        "worker": after["worker"] - before["worker"],
        "store": sum(after[k] - before[k] for k in after if k.startswith("store")),
        "rq": after["rq"] - before["rq"],
    }


def report(f: dict[str, Any]) -> None:
    w: Window = f["window"]
    ms = [x * 1000 for x in w.latencies]
    commands = len(w.latencies)
    rate = commands / f["elapsed"]
    print(f"  commands: {commands:,} in {f['elapsed']:.0f} s = {rate:,.1f}/s (asked "
          f"{f['games'] / PERIOD:,.1f}/s); latency p50 {percentile(ms, 0.5):.1f} ms, p99 "
          f"{percentile(ms, 0.99):.1f} ms, max {max(ms, default=0):.0f} ms")  # fmt: skip
    late = [x for x in w.behind if x > 1.0]
    print(
        f"  movers behind schedule by > 1 s: {len(late)} of {commands + w.ended} moves "
        f"(worst {max(w.behind, default=0):.1f} s); games ended in the window: {w.ended}"
    )
    open_now, reopened, errors = f["streams"]
    print(
        f"  streams: {open_now:,} open at the end, {reopened:,} reopened in all; "
        f"{len(errors)} stream errors"
    )
    cpu, idle = f["cpu"], f["idle"]
    total = sum(cpu.values())
    per = {k: v * 1000 / max(commands, 1) for k, v in cpu.items()}
    # What the moves added to the CPU the processes use with the streams open and no move.
    extra = {k: (cpu[k] - idle[k] * f["elapsed"]) * 1000 / max(commands, 1) for k in cpu}
    print(f"  CPU per command: {total * 1000 / max(commands, 1):.2f} ms (web {per['web']:.2f}, "
          f"worker {per['worker']:.2f}, store {per['store']:.2f}, RQ's server "
          f"{per['rq']:.2f}); the service used "
          f"{total / f['elapsed'] * 100:.0f} % of a core")  # fmt: skip
    print(
        f"  with the streams open and no move ({IDLE:.0f} s): web {idle['web'] * 100:.1f} %, "
        f"worker {idle['worker'] * 100:.1f} %, store {idle['store'] * 100:.1f} %, RQ "
        f"{idle['rq'] * 100:.1f} % of a core; "
        f"the moves' own CPU: {sum(extra.values()):.2f} ms per command (web "
        f"{extra['web']:.2f}, worker {extra['worker']:.2f}, store {extra['store']:.2f}, RQ "
        f"{extra['rq']:.2f})"
    )
    games = f["games"]
    created = (f["memory_created"] - f["memory_before"]) / games
    ended = (f["memory_end"] - f["memory_before"]) / games
    print(
        f"  used_memory per game: {created:,.0f} B created, {ended:,.0f} B at the window's "
        f"end (the store: indexes, feeds, players too; RQ's server apart)"
    )
    for label, (sizes, events) in (("active", f["active"]), ("finished", f["finished"])):
        if sizes:
            mean = sum(sizes) / len(sizes)
            evs = sum(events) / len(events)
            print(f"  {label} game's own keys (MEMORY USAGE, {len(sizes)} games): mean "
                  f"{mean:,.0f} B, p99 {percentile(sizes, 0.99):,.0f} B, with {evs:.1f} "
                  f"events on average = {mean / max(evs, 1):,.0f} B per event")  # fmt: skip
    if w.errors:
        print(f"  ERRORS: {len(w.errors)} movers stopped, first: {w.errors[0]}")
    f["per_command_ms"] = per


def plot(f: dict[str, Any], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fig = Figure(figsize=(11, 4.2))
    left, right = fig.subplots(1, 2)
    ordered = sorted(x * 1000 for x in f["window"].latencies)
    if ordered:
        left.plot(ordered, [(i + 1) / len(ordered) for i in range(len(ordered))])
    left.axhline(0.99, color="grey", linestyle="dotted", label="p99")
    left.set_xscale("log")
    left.set_xlabel("command latency, ms (log scale)")
    left.set_ylabel("fraction of commands")
    left.set_title(f"{f['games']:,} games, a move a minute each, streams open")
    left.legend(fontsize="small")
    per = f["per_command_ms"]
    right.bar(
        list(per), list(per.values()), color=["tab:blue", "tab:orange", "tab:green", "tab:red"]
    )
    right.set_ylabel("CPU ms per command")
    right.set_title("CPU per command, by process")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    run(sys.argv[1:])
