"""One racing writer for the real-server tests: ``python -m tests.services.racer URL WORKER N OUT``
(``URL`` a server's, or ``cluster+redis://host:port`` for a node of a cluster).

Sends ``N`` commands (ids ``w<WORKER>-<i>``) to the newest games listed in the Redis list
``race:games``, starting a new game whenever the one it picked is over, and logs to ``OUT``
one line per step, flushed at once: ``try <game> <id>`` before sending, then
``ok <game> <id> <first> <last>``, ``rule <game> <id> <code>`` or ``conflict <game> <id>``.
Every tenth accepted command is sent again with the same id (a client retry):
``dup <game> <id> <first> <last>``.
"""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import msgspec
import redis
from redis.cluster import RedisCluster

from services.errors import Conflict, RuleRejected
from services.eventstore import audit
from services.eventstore.store import EventStore
from services.games.commands import CommandService
from services.games.repository import EventStoreRepository
from tests.services.helpers import pick_move

GAMES = "race:games"
KINDS = [("famiglia", 2), ("gangsta", 2), ("gangsta", 3), ("gangsta", 4)]


CLUSTER = "cluster+"


def connect(url: str) -> redis.Redis | RedisCluster:
    if url.startswith(CLUSTER):
        return RedisCluster.from_url(url.removeprefix(CLUSTER))
    return redis.Redis.from_url(url)


def race(url: str, worker: int, commands: int, out: str) -> None:
    client = connect(url)
    svc = CommandService(EventStoreRepository(EventStore(client)))
    rng = random.Random(worker)
    with open(out, "a") as log:

        def note(*words: object) -> None:
            log.write(" ".join(map(str, words)) + "\n")
            log.flush()

        sent = 0
        while sent < commands:
            game_id = rng.choice([g.decode() for g in client.lrange(GAMES, -3, -1)])
            move = pick_move(svc, game_id, rng)
            if move is None:
                client.rpush(GAMES, svc.create_game(*rng.choice(KINDS)))
                continue
            seat, command = move
            command_id = f"w{worker}-{sent}"
            sent += 1
            plain = msgspec.to_builtins(command)
            note("try", game_id, command_id)
            try:
                accepted = svc.handle(game_id, seat, plain, command_id)
            except RuleRejected as exc:
                note("rule", game_id, command_id, exc.code)
                continue
            except Conflict:
                note("conflict", game_id, command_id)
                continue
            note("ok", game_id, command_id, accepted.first, accepted.version)
            if sent % 10 == 0:
                again = CommandService(EventStoreRepository(EventStore(client))).handle(
                    game_id, seat, plain, command_id
                )
                assert again.duplicate
                note("dup", game_id, command_id, again.first, again.version)


def start(url: str, workers: int, commands: int, tmp: Path) -> list[subprocess.Popen[bytes]]:
    """Games of three kinds to race on, and ``workers`` racers on them (their logs:
    ``tmp/racer-<N>.log``)."""
    client = connect(url)
    svc = CommandService(EventStoreRepository(EventStore(client)))
    client.rpush(GAMES, *[svc.create_game(*kind) for kind in KINDS[1:]])
    client.close()
    root = Path(__file__).resolve().parents[2]
    module = [sys.executable, "-m", "tests.services.racer", url]
    return [
        subprocess.Popen([*module, str(w), str(commands), str(tmp / f"racer-{w}.log")], cwd=root)
        for w in range(workers)
    ]


def games(client: redis.Redis | RedisCluster) -> list[str]:
    return [g.decode() for g in client.lrange(GAMES, 0, -1)]


def stored_commands(svc: CommandService, game_ids: list[str]) -> dict[str, tuple[str, list[int]]]:
    """Command id -> (game, versions of its events), over the games given."""
    carried: dict[str, tuple[str, list[int]]] = {}
    for game_id in game_ids:
        for record in svc.events(game_id):
            if record.command_id:
                game, versions = carried.setdefault(record.command_id, (game_id, []))
                assert game == game_id, f"{record.command_id} is in two games"
                versions.append(record.version)
    return carried


def check(client: redis.Redis | RedisCluster, logs: list[Path], killed: bool = False) -> set[str]:
    """The racers' games verify, every acknowledged command is stored in them exactly once at
    the versions it was told, nothing refused is stored (``killed``: a command a racer was
    sending when it was killed may be stored unacknowledged); the command ids stored."""
    svc = CommandService(EventStoreRepository(EventStore(client)))
    game_ids = games(client)
    for game_id in game_ids:
        assert audit.verify(svc.store, game_id) == [], game_id
    carried = stored_commands(svc, game_ids)
    acked: dict[str, tuple[str, list[int]]] = {}
    tried, refused, in_flight = set(), set(), []
    for log in logs:
        if not log.exists():  # a racer killed before it wrote a line (a slow start under load)
            assert killed, f"{log} is missing"
            continue
        last_try = None
        for line in log.read_text().splitlines():
            kind, game_id, command_id, *rest = line.split()
            if kind == "try":
                tried.add(command_id)
                last_try = command_id
                continue
            last_try = None
            if kind in ("ok", "dup"):
                first, last = map(int, rest)
                told = (game_id, list(range(first, last + 1)))
                assert acked.setdefault(command_id, told) == told
            else:
                refused.add(command_id)
        if last_try is not None:
            in_flight.append(last_try)
    for command_id, told in acked.items():
        assert carried.get(command_id) == told, command_id
    assert not refused & set(carried)
    unacknowledged = set(carried) - set(acked)
    assert unacknowledged <= (set(in_flight) if killed else set())
    assert set(carried) <= tried
    return set(acked)


if __name__ == "__main__":
    race(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
