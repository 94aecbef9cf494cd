"""One racing writer for the real-server tests: ``python -m tests.services.racer URL WORKER N OUT``.

Sends ``N`` commands (ids ``w<WORKER>-<i>``) to the newest games listed in the Redis list
``race:games``, starting a new game whenever the one it picked is over, and logs to ``OUT``
one line per step, flushed at once: ``try <game> <id>`` before sending, then
``ok <game> <id> <first> <last>``, ``rule <game> <id> <code>`` or ``conflict <game> <id>``.
Every tenth accepted command is sent again with the same id (a client retry):
``dup <game> <id> <first> <last>``.
"""

from __future__ import annotations

import random
import sys

import msgspec
import redis

from services.commands import CommandService
from services.errors import Conflict, RuleRejected
from services.store import EventStore
from tests.services.helpers import pick_move

GAMES = "race:games"
KINDS = [("famiglia", 2), ("gangsta", 2), ("gangsta", 3), ("gangsta", 4)]


def race(url: str, worker: int, commands: int, out: str) -> None:
    client = redis.Redis.from_url(url)
    svc = CommandService(EventStore(client))
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
                again = CommandService(EventStore(client)).handle(game_id, seat, plain, command_id)
                assert again.duplicate
                note("dup", game_id, command_id, again.first, again.version)


if __name__ == "__main__":
    race(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
