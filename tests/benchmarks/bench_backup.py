"""``omerta export`` and ``omerta import`` on a real embedded valkey-server (started here).

``GAMES`` random games (Famiglia and Gangsta!, played to their end or ``MOVES`` commands) are
written through the command service; then the figures: export time (games and keys a second),
the file's bytes per game against the store's AOF, the check of the file, and the import's
writing time (the read-model rebuild after it is ``omerta rebuild``'s, not counted here).
"""

from __future__ import annotations

import random
import tempfile
import time
from pathlib import Path

from services.backup.export import export
from services.backup.restore import check, restore
from services.eventstore.store import EventStore
from services.games.commands import CommandService
from services.games.repository import EventStoreRepository
from services.platform.embedded import EmbeddedServer
from tests.benchmarks.common import progress
from tests.services.helpers import pick_move

GAMES = 200
MOVES = 120


def run() -> None:
    with tempfile.TemporaryDirectory() as tmp, EmbeddedServer(Path(tmp) / "valkey") as server:
        client = server.client()
        svc = CommandService(EventStoreRepository(EventStore(client)))
        rng = random.Random(11)
        events = 0
        for i in range(GAMES):
            kind, seats = rng.choice([("famiglia", 2), ("gangsta", 3), ("gangsta", 4)])
            game_id = svc.create_game(kind, seats)
            for n in range(MOVES):
                move = pick_move(svc, game_id, rng)
                if move is None:
                    break
                svc.handle(game_id, move[0], move[1], f"b{n}")
            events += svc.store.version(game_id)
            progress(i + 1, GAMES, "games")
        path = Path(tmp) / "omerta.backup"
        start = time.perf_counter()
        with path.open("wb") as out:
            done = export(client, out, "bench")
        exported = time.perf_counter() - start
        start = time.perf_counter()
        check(path)
        checked = time.perf_counter() - start
        aof = sum(f.stat().st_size for f in (Path(tmp) / "valkey").rglob("*.aof"))
        client.flushall()
        start = time.perf_counter()
        restore(client, path)
        imported = time.perf_counter() - start
        size = path.stat().st_size
        keys = done.trailer.keys
        print(f"{GAMES} games, {events} events, {keys} keys")
        print(
            f"export: {exported:.2f} s ({GAMES / exported:.0f} games/s,"
            f" {keys / exported:.0f} keys/s)"
        )
        print(
            f"file: {size / GAMES / 1024:.1f} KB a game ({size / events:.0f} B an event);"
            f" AOF: {aof / GAMES / 1024:.1f} KB a game"
        )
        print(
            f"check: {checked:.2f} s; import (writes): {imported:.2f} s"
            f" ({keys / imported:.0f} keys/s)"
        )
