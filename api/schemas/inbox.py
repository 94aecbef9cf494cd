"""What a player has seen of a game, and the player stream's inbox messages."""

from __future__ import annotations

import msgspec

from api.schemas.common import Version


class GameChange(msgspec.Struct, frozen=True):
    game_id: str
    version: int


class InboxEvent(msgspec.Struct, frozen=True):
    """A player stream's message: the games waiting for the player, and which games changed."""

    count: int
    games: list[GameChange]


class Seen(msgspec.Struct, frozen=True):
    """The version of a game the player has seen (``PUT``): kept if newer than the stored."""

    version: Version


class SeenOut(msgspec.Struct, frozen=True):
    """What the player has now seen of the game, and what they had seen before (0: nothing)."""

    version: int
    previous: int
