"""The event store on a real embedded valkey-server (started here, in a temporary directory).

Figures, one request per round trip as a player's command makes them (no pipelining):

* raw ``XADD`` of one event-sized payload to a stream (the floor the store builds on);
* the store's append (one Lua call: idempotency check, version check, ``XADD``, command record,
  feed entry) of one event; goal: at least half the raw ``XADD`` rate;
* both with ``appendfsync always`` (the chosen policy: no acknowledged move lost) and
  ``everysec``, to show what fsync costs;
* whole commands through the service (load from the snapshot cache, decide, append) in random
  Famiglia and Gangsta! games, the policy's choice not counted;
* a cold load (replay from the first event) of a long game, against a cached one;
* bytes per stored event (median of the envelopes) and per event in the append-only file.
"""

from __future__ import annotations

import random
import statistics
import tempfile
import time
from pathlib import Path

import msgspec
import redis

from services.eventstore.records import GameMeta
from services.eventstore.store import EventStore, NewEvent
from services.games.commands import CommandService
from services.games.repository import EventStoreRepository
from services.platform.embedded import EmbeddedServer
from tests.benchmarks.common import progress
from tests.services.helpers import pick_move

APPENDS = 3000
BLOCK = 250
COMMANDS = 3000
EVENT = NewEvent(
    "card_played",
    1,
    msgspec.msgpack.encode({"type": "card_played", "seat": 1, "card": "red-3", "to": "area"}),
)
META = GameMeta(game="famiglia", seats=2, options={}, ai={}, created=0)


def _appends(
    client: redis.Redis, store: EventStore, payload: bytes, label: str
) -> tuple[float, float]:
    """(raw XADD/s, store append/s), measured in alternating blocks so that the noise of a
    shared machine hits both alike."""
    game_id = f"bench-{label}"
    appended = store.append(game_id, 0, b"", "", None, [EVENT], meta=META)
    head, version = appended.entries[-1].raw, appended.version
    raw_time = store_time = 0.0
    for done in range(BLOCK, APPENDS + 1, BLOCK):
        start = time.perf_counter()
        for i in range(done - BLOCK, done):
            client.xadd(f"raw:{label}", {"e": payload}, id=f"{i + 1}-0")
        raw_time += time.perf_counter() - start
        start = time.perf_counter()
        for i in range(done - BLOCK, done):
            appended = store.append(game_id, version, head, f"c{i}", 0, [EVENT], b"digest")
            head, version = appended.entries[-1].raw, appended.version
        store_time += time.perf_counter() - start
        progress(done, APPENDS, f"appendfsync {label}")
    return APPENDS / raw_time, APPENDS / store_time


def _commands(svc: CommandService, name: str, seats: int) -> tuple[float, list[str]]:
    rng = random.Random(name)
    spent, sent, games = 0.0, 0, []
    while sent < COMMANDS:
        game_id = svc.create_game(name, seats, {})
        games.append(game_id)
        while sent < COMMANDS and (move := pick_move(svc, game_id, rng)) is not None:
            start = time.perf_counter()
            svc.handle(game_id, *move, f"c{sent}")
            spent += time.perf_counter() - start
            sent += 1
            if sent % 500 == 0:
                progress(sent, COMMANDS, f"{name} with {seats} players")
    return sent / spent, games


def run() -> None:
    with tempfile.TemporaryDirectory() as tmp, EmbeddedServer(Path(tmp)) as server:
        client = server.client()
        store = EventStore(client)
        payload = store.append("size", 0, b"", "", None, [EVENT], meta=META).entries[0].raw
        rates: dict[str, tuple[float, float]] = {}
        for fsync in ("always", "everysec"):
            client.config_set("appendfsync", fsync)
            rates[fsync] = _appends(client, store, payload, fsync)
        client.config_set("appendfsync", "always")
        for fsync, (raw, appended) in rates.items():
            print(
                f"  appendfsync {fsync}: raw XADD {raw:,.0f}/s, store append {appended:,.0f}/s"
                f" = {appended / raw:.2f} of raw (goal >= 0.50)"
            )

        svc = CommandService(EventStoreRepository(store))
        played: list[str] = []
        for name, seats in (("famiglia", 2), ("gangsta", 2), ("gangsta", 4)):
            rate, games = _commands(svc, name, seats)
            played += games
            print(
                f"  whole commands, {name} {seats} players: {rate:,.0f}/s"
                f" = {rate / rates['always'][1]:.2f} of the store's append"
            )

        longest = max(played, key=lambda g: svc.load(g).version)
        start = time.perf_counter()
        CommandService(EventStoreRepository(store)).load(longest)
        cold = time.perf_counter() - start
        start = time.perf_counter()
        svc.load(longest)
        warm = time.perf_counter() - start
        print(
            f"  load of a {svc.load(longest).version}-event game: cold {cold * 1e3:.1f} ms"
            f" (replay from the start), from the snapshot cache {warm * 1e3:.2f} ms"
        )

        sizes = [len(e.raw) for g in played for e in store.read(g)]
        aof = sum(f.stat().st_size for f in (Path(tmp) / "appendonlydir").glob("*.aof"))
        total_events = 2 * APPENDS + 3 + len(sizes)
        print(
            f"  stored event: median {statistics.median(sizes):.0f} bytes"
            f" (min {min(sizes)}, max {max(sizes)}) over {len(sizes):,} game events;"
            f" append-only file {aof / total_events:.0f} bytes per event"
        )
        client.close()
