"""What the metrics cost (``services.platform.metrics``, ``workers.metrics``).

* The figures one command adds (the accepted counter, the command's and the append's
  histograms), per command: in one process's registry (a worker) and in prometheus_client's
  multiprocess mode (a web server: each value is a write to a memory-mapped file). Each mode is
  measured in a fresh interpreter, since prometheus_client picks it at import.
* One scrape of the store's figures (``StoreCollector``: the queues, leases, replication and
  every shard's projection lag, about 200 reads in 4 round trips) on a real embedded server,
  idle and after 2,000 appends waiting in the shards' feeds.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bootstrap import bootstrap
from services.platform.embedded import EmbeddedServer
from workers.metrics import StoreCollector

COMMANDS = 200_000
SCRAPES = 50
GAMES = 200
MOVES = 10

PER_COMMAND = f"""
import timeit
from prometheus_client import CollectorRegistry
from services.platform.metrics import Metrics
m = Metrics(CollectorRegistry())
def command():
    m.commands_accepted.inc()
    m.command_seconds.observe(0.004)
    m.append_seconds.observe(0.002)
print(timeit.timeit(command, number={COMMANDS}) / {COMMANDS} * 1e6)
"""


def _per_command(multiprocess: bool) -> float:
    env = dict(os.environ)
    with tempfile.TemporaryDirectory() as directory:
        if multiprocess:
            env["PROMETHEUS_MULTIPROC_DIR"] = directory
        out = subprocess.run(
            [sys.executable, "-c", PER_COMMAND], env=env, capture_output=True, check=True
        )
    return float(out.stdout)


def _scrape_ms(collector: StoreCollector) -> float:
    took = []
    for _ in range(SCRAPES):
        began = time.perf_counter()
        list(collector.collect())
        took.append(1000 * (time.perf_counter() - began))
    return statistics.median(took)


def run() -> None:
    print(f"per command, one registry:  {_per_command(False):.2f} µs")
    print(f"per command, multiprocess: {_per_command(True):.2f} µs")
    with tempfile.TemporaryDirectory() as directory, EmbeddedServer(Path(directory)) as server:
        client = server.client()
        container = bootstrap(store=client, queues_client=client, hooks=(), listeners=())
        collector = StoreCollector(container.context)
        print(f"store scrape, idle: {_scrape_ms(collector):.1f} ms (median of {SCRAPES})")
        for _ in range(GAMES):
            game_id = container.commands.create_game("famiglia", 2)
            for _ in range(MOVES):
                game, state, version, _ = container.commands.load(game_id)
                seat = min(game.to_act(state))
                command = game.legal(state, seat)[0]
                container.commands.handle(game_id, seat, command, f"c{version}")
        print(
            f"store scrape, {GAMES * (MOVES + 1)} appends in the feeds: "
            f"{_scrape_ms(collector):.1f} ms"
        )
        client.close()
