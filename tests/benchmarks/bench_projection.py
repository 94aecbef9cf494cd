"""The projection's processor per move: what projecting one command's events costs a worker
and the store.

Plays ``GAMES`` games to their end (Famiglia of 2, Gangsta of 2 to 4 seats, random legal moves, no
seat taken: no inbox steps) on its own embedded server without projecting them, and saves them
to ``RECORDING`` (every key of each game, ``DUMP``ed) unless that file is there already: every
run then projects the same games, so runs of two versions of the code compare the same work.
Then, into an empty database of the server, each game is restored but its stream, and its
events are appended back one command at a time with a projection after each
(``Projector.project``, as a projection job does, its cache warm). Reported per move (one
command's events): the projector's processor (``time.process_time`` around each projection:
median and mean), the server's (its ``/proc`` ticks over the replay, over the moves) and the
bytes its append-only file grew by (the events' appends included).

Old code against new on the same games, one after the other (the recording is shared)::

    mkdir /tmp/old && git archive <old commit> | tar -x -C /tmp/old
    cp tests/benchmarks/bench_projection.py /tmp/old/tests/benchmarks/
    ln -s "$PWD/bench-results" /tmp/old/bench-results
    (cd /tmp/old && $OLDPWD/.venv/bin/python -m tests.benchmarks projection)
    .venv/bin/python -m tests.benchmarks projection
"""

from __future__ import annotations

import os
import random
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

import msgspec
import redis

from tests.benchmarks.common import median, progress

GAMES = 24
KINDS = [("famiglia", 2), ("gangsta", 2), ("gangsta", 3), ("gangsta", 4)]
RECORDING = Path("bench-results/projection-games.msgpack")
REPLAY_DB = 1
TICKS = os.sysconf("SC_CLK_TCK")


class Recorded(msgspec.Struct):
    game_id: str
    stream: str
    entries: list[tuple[bytes, bytes]]  # (entry id, its ``e`` field), in order
    others: list[tuple[str, bytes]]  # every other key of the game: (key, DUMP)


def record(client: redis.Redis) -> list[Recorded]:
    """Play ``GAMES`` games on ``client``'s database and read them back."""
    from services.eventstore import keys
    from services.eventstore.store import EventStore
    from services.games.commands import CommandService
    from services.games.repository import EventStoreRepository
    from tests.services.helpers import play_out

    service, rng = CommandService(EventStoreRepository(EventStore(client))), random.Random(33)
    out = []
    for n in range(GAMES):
        game, seats = KINDS[n % len(KINDS)]
        game_id = service.create_game(game, seats, {})
        play_out(service, game_id, rng)
        stream = keys.events_key(game_id)
        others = [
            (key.decode(), client.dump(key))
            for key in client.scan_iter(match=f"*{{{game_id}}}*")
            if key.decode() != stream
        ]
        entries = [(entry_id, fields[b"e"]) for entry_id, fields in client.xrange(stream)]
        out.append(Recorded(game_id, stream, entries, others))
        progress(n + 1, GAMES, "games played")
    return out


def commands_of(entries: list[tuple[bytes, bytes]]) -> list[list[tuple[bytes, bytes]]]:
    """The entries grouped by command (a command's events are appended together)."""
    from services.eventstore.records import decode_envelope

    groups: list[list[tuple[bytes, bytes]]] = []
    last = None
    for entry in entries:
        envelope = decode_envelope(entry[1])
        if (envelope.actor, envelope.command_id) != last or not groups:
            groups.append([])
        groups[-1].append(entry)
        last = (envelope.actor, envelope.command_id)
    return groups


def server_cpu(pid: int) -> float:
    """The process's processor seconds so far (user and system)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


class Replayed(NamedTuple):
    took: list[float]  # the projector's processor seconds, each projection's
    server: float  # the server's processor seconds, over them all
    aof: int  # bytes the server's append-only file grew by


def aof_size(client: redis.Redis) -> int:
    return int(client.info("persistence")["aof_current_size"])


def replay(client: redis.Redis, games: list[Recorded], pid: int) -> Replayed:
    """Each game's commands appended back and projected one by one."""
    from services.eventstore.store import EventStore
    from workers.projection.projector import Projector

    client.flushdb()
    for game in games:
        for key, dumped in game.others:
            client.restore(key, 0, dumped)
    projector = Projector(EventStore(client))
    took: list[float] = []
    server_before, aof_before = server_cpu(pid), aof_size(client)
    for n, game in enumerate(games, 1):
        for command in commands_of(game.entries):
            for entry_id, raw in command:
                client.xadd(game.stream, {"e": raw}, id=entry_id)
            start = time.process_time()
            projected = projector.project(game.game_id)
            took.append(time.process_time() - start)
            assert projected is not None and projected.written
        progress(n, len(games), "games projected")
    return Replayed(took, server_cpu(pid) - server_before, aof_size(client) - aof_before)


def run() -> None:
    from services.platform.embedded import EmbeddedServer

    with (
        tempfile.TemporaryDirectory() as tmp,
        EmbeddedServer(Path(tmp), fsync="everysec") as server,
    ):
        assert server.process is not None
        if RECORDING.exists():
            games = msgspec.msgpack.decode(RECORDING.read_bytes(), type=list[Recorded])
        else:
            games = record(server.client())
            RECORDING.parent.mkdir(parents=True, exist_ok=True)
            RECORDING.write_bytes(msgspec.msgpack.encode(games))
        client = redis.Redis(host="127.0.0.1", port=server.port, db=REPLAY_DB)
        replayed = replay(client, games, server.process.pid)
        took, moves = replayed.took, len(replayed.took)
        print(f"  {len(games)} games, {moves} moves projected one by one ({RECORDING})")
        print(
            f"  projector's processor per move: median {1000 * median(took):.3f} ms, "
            f"mean {1000 * sum(took) / moves:.3f} ms; the server's: "
            f"{1000 * replayed.server / moves:.3f} ms; AOF: {replayed.aof / moves:.0f} B per move"
        )
        client.close()
