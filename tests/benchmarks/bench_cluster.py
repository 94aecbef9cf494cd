"""Commands against a Valkey Cluster and against one server, side by side.

Started here, in a temporary directory, from the wheel's ``valkey-server`` (append-only file,
fsync always, as deployed):

* ``server``: one server, as a single machine runs it (no replica, no ``WAIT``);
* ``server + replica, WAIT 1``: one server with a replica, appends acknowledged once the
  replica has them (``OMERTA_MIN_REPLICAS=1``);
* ``cluster``: a cluster of 3 masters and 3 replicas (``tests.cluster``), no ``WAIT``;
* ``cluster, WAIT 1``: the same cluster, every append waiting for its master's replica (what
  ``deploy/compose.yaml`` sets).

``THREADS`` threads each play their own games through the command service
(``CommandService(EventStoreRepository(EventStore(client)))``: load from the state cache, decide,
append; random legal moves, Famiglia and Gangsta! 2 players alternately, a finished game replaced by
a new one), one shared client per target. ``ROUNDS`` rounds of ``SECONDS`` per target, the targets
interleaved (each round in a rotated order), so that the noise of a shared machine hits all alike.
Figures per target, medians over the rounds: commands per second, p50 and p99 command latency, and
the store's CPU per command (every node of the target, from /proc). The load generator is this one
Python process (the GIL: its threads share one core for deciding and encoding), so commands per
second are bounded by the client as well as by the store; the latencies and the store's CPU per
command show the store's part. Plot: ``PLOT``.

``python -m tests.benchmarks.bench_cluster --seconds 2 --rounds 2`` for a short run,
``--only server`` for the targets whose label contains it.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from matplotlib.figure import Figure

from services.eventstore.store import EventStore
from services.games.commands import CommandService
from services.games.repository import EventStoreRepository
from services.platform.embedded import HOST, EmbeddedServer
from tests.benchmarks.bench_api import _cpu_of
from tests.benchmarks.bench_workers import percentile
from tests.benchmarks.common import median
from tests.cluster import Cluster
from tests.services.helpers import pick_move

THREADS = 4
ROUNDS = 5
SECONDS = 4.0
GAMES = (("famiglia", 2), ("gangsta", 2))
PLOT = Path("bench-results/cluster.png")


@dataclass
class Target:
    label: str
    store: EventStore
    pids: dict[str, int]  # the store's processes: their CPU is counted
    players: list[Player] = field(default_factory=list)
    rates: list[float] = field(default_factory=list)  # commands/s, per round
    p50: list[float] = field(default_factory=list)  # ms, per round
    p99: list[float] = field(default_factory=list)  # ms, per round
    cpu: list[float] = field(default_factory=list)  # store CPU ms per command, per round
    errors: list[str] = field(default_factory=list)


class Player:
    """One thread's games on one target: its own command service (and state cache)."""

    def __init__(self, store: EventStore, n: int) -> None:
        self.svc = CommandService(EventStoreRepository(store))
        self.rng = random.Random(n)
        self.n = n
        self.game_id = ""
        self.sent = 0

    def play(self, until: float, times: list[float], errors: list[str]) -> None:
        try:
            while time.perf_counter() < until:
                move = pick_move(self.svc, self.game_id, self.rng) if self.game_id else None
                if move is None:  # none yet, or over
                    name, seats = GAMES[self.sent % len(GAMES)]
                    self.game_id = self.svc.create_game(name, seats, {})
                    continue
                begun = time.perf_counter()
                self.svc.handle(self.game_id, *move, f"c{self.n}-{self.sent}")
                times.append(time.perf_counter() - begun)
                self.sent += 1
        except Exception as exc:  # reported with the figures
            errors.append(repr(exc))


def round_of(target: Target, seconds: float) -> None:
    times: list[float] = []
    until = time.perf_counter() + seconds
    before = sum(_cpu_of(target.pids)[name] for name in target.pids)
    threads = [threading.Thread(target=p.play, args=(until, times, target.errors))
               for p in target.players]  # fmt: skip
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    spent = sum(_cpu_of(target.pids)[name] for name in target.pids) - before
    if not times:  # every thread failed at once (reported with the figures)
        return
    ms = [t * 1000 for t in times]
    target.rates.append(len(times) / seconds)
    target.p50.append(percentile(ms, 0.5))
    target.p99.append(percentile(ms, 0.99))
    target.cpu.append(spent * 1000 / max(len(times), 1))


def replicated(tmp: Path) -> tuple[EmbeddedServer, EmbeddedServer]:
    """A server and its replica, the link up."""
    primary = EmbeddedServer(tmp / "primary").start()
    replica = EmbeddedServer(tmp / "replica").start()
    client = replica.client()
    client.replicaof(HOST, primary.port)
    deadline = time.monotonic() + 30
    while client.info("replication").get("master_link_status") != "up":
        if time.monotonic() > deadline:
            raise TimeoutError("the replica did not sync")
        time.sleep(0.1)
    client.close()
    return primary, replica


def pids(nodes: list[EmbeddedServer]) -> dict[str, int]:
    return {f"node {n.port}": n.process.pid for n in nodes if n.process is not None}


def run(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="bench_cluster")
    parser.add_argument("--seconds", type=float, default=SECONDS, help="per round and target")
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    parser.add_argument("--threads", type=int, default=THREADS)
    parser.add_argument("--only", default="", help="the targets whose label contains this")
    args = parser.parse_args(argv or [])
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        stops: list[Callable[[], None]] = []
        try:
            targets = build(tmp, args.only, stops)
            for target in targets:
                target.players = [Player(target.store, n) for n in range(args.threads)]
            print(f"  {args.threads} threads; {args.rounds} rounds of {args.seconds:.0f} s per "
                  f"target, interleaved; {os.cpu_count()} cores (load and store share them)",
                  flush=True)  # fmt: skip
            for r in range(args.rounds):
                for target in targets[r % len(targets) :] + targets[: r % len(targets)]:
                    if not target.errors:
                        round_of(target, args.seconds)
                print(f"  round {r + 1}/{args.rounds}: " + ", ".join(
                    f"{t.label} {t.rates[-1]:,.0f}/s" for t in targets if t.rates),
                    flush=True)  # fmt: skip
        finally:
            for stop in reversed(stops):
                stop()
    report(targets)
    plot(targets, PLOT)
    print(f"  plot: {PLOT}")


def build(tmp: Path, only: str, stops: list[Callable[[], None]]) -> list[Target]:
    """The targets whose label contains ``only``, their servers started (``stops`` stop them)."""
    labels = ["server", "server + replica, WAIT 1", "cluster", "cluster, WAIT 1"]
    wanted = [label for label in labels if only in label]
    targets: list[Target] = []
    if "server" in wanted:
        server = EmbeddedServer(tmp / "server").start()
        stops.append(server.stop)
        targets.append(Target("server", EventStore(server.client()), pids([server])))
    if "server + replica, WAIT 1" in wanted:
        primary, replica = replicated(tmp)
        stops += [replica.stop, primary.stop]
        store = EventStore(primary.client(), min_replicas=1)
        targets.append(Target("server + replica, WAIT 1", store, pids([primary, replica])))
    if {"cluster", "cluster, WAIT 1"} & set(wanted):
        print("  starting a cluster of 3 masters and 3 replicas", flush=True)
        cluster = Cluster(tmp / "cluster").start()
        stops.append(cluster.stop)
        for label, replicas in (("cluster", 0), ("cluster, WAIT 1", 1)):
            if label in wanted:
                store = EventStore(cluster.client(), min_replicas=replicas)
                targets.append(Target(label, store, pids(cluster.nodes)))
    return targets


def report(targets: list[Target]) -> None:
    base = next((t for t in targets if t.label == "server" and t.rates), None)
    for t in targets:
        if not t.rates:
            print(f"  {t.label}: no figures ({t.errors[0] if t.errors else 'not run'})")
            continue
        versus = f" = {median(t.rates) / median(base.rates):.2f} of one server's" if base else ""
        print(f"  {t.label}: {median(t.rates):,.0f} commands/s{versus}; latency p50 "
              f"{median(t.p50):.2f} ms, p99 {median(t.p99):.2f} ms; store CPU "
              f"{median(t.cpu):.3f} ms per command (all its nodes)")  # fmt: skip
        if t.errors:
            print(f"    ERRORS: {len(t.errors)}, first: {t.errors[0]}")


def plot(targets: list[Target], path: Path) -> None:
    """Commands per second and p99 latency per target (medians over the rounds)."""
    shown = [t for t in targets if t.rates]
    path.parent.mkdir(parents=True, exist_ok=True)
    fig = Figure(figsize=(11, 4.2))
    left, right = fig.subplots(1, 2)
    labels = [t.label.replace(", ", "\n") for t in shown]
    left.bar(labels, [median(t.rates) for t in shown], color="tab:blue")
    left.set_ylabel("commands per second (median of rounds)")
    left.set_title("Throughput, several threads of one client process")
    right.bar(labels, [median(t.p99) for t in shown], color="tab:orange", label="p99")
    right.bar(labels, [median(t.p50) for t in shown], color="tab:green", label="p50")
    right.set_ylabel("command latency, ms (median of rounds)")
    right.set_title("Latency of one command")
    right.legend(fontsize="small")
    for ax in (left, right):
        ax.tick_params(axis="x", labelsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    run(sys.argv[1:])
