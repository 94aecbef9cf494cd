"""Turning a request's ``command`` into one game's Command struct, with precise codes: a type
no game knows (``unknown_command``), another game's command (``wrong_game_command``), or the
right type with wrong fields (``bad_command``)."""

from __future__ import annotations

import typing
from typing import Any

from api.http.problems import ApiError
from domain import GAMES
from domain.core import Game


def _tags(game: Game) -> frozenset[str]:
    return frozenset(k.__struct_config__.tag for k in typing.get_args(game.Command))


TAGS: dict[str, frozenset[str]] = {name: _tags(game) for name, game in GAMES.items()}


def refusal(game: Game, raw: Any, why: str) -> ApiError:
    tag = raw.get("type") if isinstance(raw, dict) else None
    mine = TAGS.get(game.name, frozenset())
    if isinstance(tag, str) and tag not in mine:
        others = sorted(name for name, tags in TAGS.items() if tag in tags)
        if others:
            return ApiError(
                400,
                "wrong_game_command",
                f"{tag!r} is a command of {', '.join(others)}, not of {game.name}",
                command=tag,
                games=others,
                game=game.name,
            )
        return ApiError(
            400,
            "unknown_command",
            f"{game.name} has no command {tag!r} (commands: {', '.join(sorted(mine))})",
            command=tag,
            game=game.name,
            commands=sorted(mine),
        )
    return ApiError(400, "bad_command", why, error=why)
