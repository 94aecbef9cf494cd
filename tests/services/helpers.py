"""Shared by the service tests and the store benchmark: drive real games through the service."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import msgspec
import redis

from services.eventstore import keys
from services.eventstore.records import GENESIS, chain_hash, decode_envelope, encode
from services.games.commands import CommandService


def pick_move(svc: CommandService, game_id: str, rng: random.Random) -> tuple[int, Any] | None:
    """A random seat owing a decision and one of its legal commands (a pass only when nothing
    else is legal, so Famiglia games do not end at once), or None once the game is over."""
    game, state, _, _ = svc.load(game_id)
    if game.result(state) is not None:
        return None
    seat = rng.choice(sorted(game.to_act(state)))
    legal = game.legal(state, seat)
    moves = [c for c in legal if type(c).__struct_config__.tag != "pass"] or legal
    return seat, rng.choice(moves)


def play_out(svc: CommandService, game_id: str, rng: random.Random, prefix: str = "c") -> int:
    """Play the game to its end with plain-data commands; the number of commands sent."""
    sent = 0
    while (move := pick_move(svc, game_id, rng)) is not None:
        seat, command = move
        svc.handle(game_id, seat, msgspec.to_builtins(command), f"{prefix}{sent}")
        sent += 1
    return sent


def tamper(
    client: redis.Redis,
    game_id: str,
    version: int,
    change: Callable[[Any], Any],
    rechain: bool = False,
) -> None:
    """Rewrite stored event ``version`` with ``change(plain data)``, as an attacker with write
    access to the server would; with ``rechain`` also fix every later ``prev`` so that the
    chain alone does not give it away."""
    key = keys.events_key(game_id)
    rows = []
    prev = GENESIS
    for number, (entry_id, fields) in enumerate(client.xrange(key), 1):
        envelope = decode_envelope(fields[b"e"])
        if number == version:
            data = change(msgspec.msgpack.decode(envelope.data))
            envelope = msgspec.structs.replace(envelope, data=msgspec.Raw(encode(data)))
        elif rechain and number > version:
            envelope = msgspec.structs.replace(envelope, prev=prev)
        raw = encode(envelope)
        prev = chain_hash(raw)
        rows.append((entry_id, raw))
    pipe = client.pipeline(transaction=True)
    pipe.delete(key)
    for entry_id, raw in rows:
        pipe.xadd(key, {"e": raw}, id=entry_id)
    pipe.execute()
