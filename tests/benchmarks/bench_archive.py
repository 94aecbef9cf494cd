"""What a finished game costs the store before and after it moves to the archive, and what reading
an archived game's history costs against a game still in the store.

Starts its own embedded server, plays ``GAMES`` two-player Famiglia games of two players to their
end through the API (the Flask test client, the projection run after every append, as
``tests/api`` does), then archives every second one (files under a temporary data directory,
``services.eventstore.archive.FileArchive``), and reports:

* per game: its events' bytes, and ``MEMORY USAGE`` of every key with its hash tag (stream,
  metadata, command records, read model, seats...) before archiving and of what is left after,
  plus its share of the markers' hashes (``archived:{<tag>}``); and ``used_memory`` freed per
  archived game (the whole server: the per-shard lists and per-player entries that stay
  included); the archive's bytes per game;
* ``GET /games/{id}/history`` (as a spectator): the median time for a game in the store, for an
  archived game whose archive is in the process's cache, and for one read from its file
  (``READS`` reads each).

Goal: at most a few hundred bytes left in the store per archived game.
"""

from __future__ import annotations

import os
import random
import tempfile
import time
from pathlib import Path
from typing import Any

import redis

from tests.benchmarks.common import median, progress

GAMES = 60
READS = 200
GOAL = 300  # bytes left in the store per archived game


def tagged_memory(client: redis.Redis, game_id: str) -> int:
    """``MEMORY USAGE`` of every key carrying the game's hash tag."""
    return sum(
        int(client.memory_usage(key, samples=0) or 0)
        for key in client.scan_iter(match=f"*{{{game_id}}}*", count=10_000)
    )


def markers_memory(client: redis.Redis) -> int:
    return sum(
        int(client.memory_usage(key, samples=0) or 0)
        for key in client.scan_iter(match="archived:*", count=1000)
    )


def history_ms(api: Any, game_id: str) -> float:
    times = []
    for _ in range(READS):
        start = time.perf_counter()
        response = api.call("GET", f"/games/{game_id}/history")
        times.append(time.perf_counter() - start)
        assert response.status_code == 200
    return 1000 * median(times)


def run() -> None:
    from api.app import create_app
    from services.eventstore import keys
    from services.eventstore.archive import Archived, FileArchive
    from services.eventstore.store import EventStore
    from services.games.commands import CommandService
    from services.games.repository import EventStoreRepository
    from services.platform.embedded import EmbeddedServer
    from services.readside.archiving import Archiver
    from services.readside.ratings import Ratings
    from tests.api.helpers import Api, container_of
    from workers.projection.projector import Projector

    with tempfile.TemporaryDirectory() as tmp, EmbeddedServer(Path(tmp) / "store") as server:
        os.environ.update({"OMERTA_RATE_LIMITS": "off", "OMERTA_VAR": tmp})
        client = server.client()
        files = FileArchive(Path(tmp) / "archive")
        store = EventStore(client, archived=Archived(client, files))
        projector = Projector(store)
        service = CommandService(
            EventStoreRepository(store, hooks=[lambda game_id, *_: projector.project(game_id)])
        )
        app = create_app(container_of(service), stream_seconds=0)
        api = Api(app.test_client(use_cookies=False))
        cold_store = EventStore(client, archived=Archived(client, files, cache_size=0))
        cold_app = create_app(
            container_of(CommandService(EventStoreRepository(cold_store))), stream_seconds=0
        )
        cold = Api(cold_app.test_client(use_cookies=False))

        rng = random.Random(25)
        games = []
        for n in range(GAMES):
            ann, bob = api.player(f"Ann{n}"), api.player(f"Bob{n}")
            made = api.new_game(ann, game="famiglia", seats=2)
            game_id = made["game_id"]
            api.join(bob, game_id, made["invites"][0]["code"])
            while (game := api.ok("GET", f"/games/{game_id}"))["result"] is None:
                who = {ann.id: ann, bob.id: bob}[game["seats"][game["to_act"][0]]["player"]]
                api.random_move(who, game_id, rng)
            Ratings(client).rate(game_id)  # as the rating job does
            games.append(game_id)
            progress(n + 1, GAMES, "games played")

        moved, kept = games[::2], games[1::2]
        events = sum(len(f[b"e"]) for g in moved for _, f in client.xrange(keys.events_key(g)))
        before = sum(tagged_memory(client, g) for g in moved)
        used_before = int(client.info("memory")["used_memory"])
        markers_before = markers_memory(client)
        archiver = Archiver(store)
        for i, game_id in enumerate(moved, 1):
            assert archiver.archive(game_id) == "ok"
            progress(i, len(moved), "games archived")
        after = sum(tagged_memory(client, g) for g in moved)
        markers = markers_memory(client) - markers_before
        used_after = int(client.info("memory")["used_memory"])
        archived_bytes = sum(files.path(g).stat().st_size for g in moved)

        n = len(moved)
        left = (after + markers) / n
        print(f"  {n} games archived, {events / n:.0f} bytes of events each")
        print(f"  store memory per finished game (MEMORY USAGE of its keys): {before / n:.0f} B")
        print(
            f"  left per archived game: {after / n:.0f} B of its keys + {markers / n:.0f} B of"
            f" marker = {left:.0f} B (goal: at most {GOAL} B)"
        )
        print(f"  used_memory freed per archived game: {(used_before - used_after) / n:.0f} B")
        print(f"  archive per game: {archived_bytes / n:.0f} B (zstd, one file each)")
        live = median([history_ms(api, g) for g in kept[:5]])
        warm = median([history_ms(api, g) for g in moved[:5]])
        from_file = median([history_ms(cold, g) for g in moved[:5]])
        print(
            f"  GET /games/{{id}}/history, median of {READS}: in the store {live:.2f} ms,"
            f" archived (cached) {warm:.2f} ms, archived (read from its file) {from_file:.2f} ms"
        )
        client.close()
