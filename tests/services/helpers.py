"""Shared by the service tests and the store benchmark: drive real games through the service."""

from __future__ import annotations

import random
from typing import Any

import msgspec

from services.commands import CommandService


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
