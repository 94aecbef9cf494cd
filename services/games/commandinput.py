"""What the command service takes from its callers, checked: command ids (a client's, and the
AI seats' under ``AI_COMMAND_PREFIX``), a command as a struct or as plain data, and the AI
seats of a new game. Each refusal is a ``services.errors.BadRequest``."""

from __future__ import annotations

import typing
from collections.abc import Mapping
from typing import Any

import msgspec

from domain import bots
from domain.core import Game, RuleViolation
from services.errors import BadRequest, WrongSeat

MAX_COMMAND_ID = 128
AI_COMMAND_PREFIX = "ai-"
"""Command ids that start with this are the AI seats' (the API refuses them from clients)."""


def ai_command_id(version: int, seat: int) -> str:
    """The id of an AI seat's move at ``version``: copies of one AI job share it."""
    return f"{AI_COMMAND_PREFIX}{version}-{seat}"


def is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_seat(seat: object, seats: int) -> None:
    """``WrongSeat`` unless ``seat`` is a seat of a game of ``seats`` seats."""
    if not (is_int(seat) and 0 <= typing.cast(int, seat) < seats):
        raise WrongSeat(
            f"seat {seat!r} is not a seat of this game (0 to {seats - 1})",
            params={"seat": str(seat), "last": seats - 1},
        )


def parse_ai(ai: Mapping[Any, Any] | None, seats: int, game: str) -> dict[int, int | str]:
    """The AI seats and their levels, each a level offered for ``game`` (``bots.levels``: the
    search levels only for a game that can be searched)."""
    try:
        levels = msgspec.convert(dict(ai or {}), dict[int, int | str], strict=False)
    except (msgspec.ValidationError, TypeError, ValueError) as exc:
        raise BadRequest(
            f"ai must map seats to levels: {exc}", code="bad_ai", params={"case": "not_a_map"}
        ) from None
    bad = [s for s in levels if not 0 <= s < seats]
    if bad:
        raise BadRequest(
            f"ai seats {bad} are not seats 0 to {seats - 1}",
            code="bad_ai",
            params={"seats": [str(s) for s in bad], "last": seats - 1},
        )
    offered = bots.levels(game)
    for level in levels.values():
        try:
            name = bots.level_name(level)
        except RuleViolation as exc:
            raise BadRequest(exc.message, code=exc.code, params=exc.params) from None
        if name not in offered:
            raise BadRequest(
                f"the {name} AI is not offered for {game} (use {', '.join(offered)} or 0 and up)",
                code="bad_ai_level",
                params={
                    "case": "not_offered",
                    "level": name,
                    "game": game,
                    "levels": list(offered),
                },
            )
    return levels


def parse_command(rules: Game, command: Any) -> Any:
    kinds = typing.get_args(rules.Command) or (rules.Command,)
    if isinstance(command, msgspec.Struct):
        if isinstance(command, kinds):
            return command
        raise BadRequest(
            f"{type(command).__name__} is not a {rules.name} command",
            params={"command": type(command).__name__, "game": rules.name},
        )
    try:
        if isinstance(command, str | bytes):
            return msgspec.json.decode(command, type=rules.Command)
        return msgspec.convert(command, rules.Command)
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
        raise BadRequest(
            f"not a {rules.name} command: {exc}", params={"game": rules.name, "error": str(exc)}
        ) from None
