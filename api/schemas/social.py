"""Around a game: its chat and its rematch."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec

from api.schemas.common import In
from services.games.chat import ChatMessage


class ChatIn(In, frozen=True):
    """A chat message: 1 to 500 characters once line breaks and tabs are made spaces and
    other control characters dropped (else 400 ``bad_chat``); a seated player's only."""

    # Any: a text that is no string is the chat's own refusal (bad_chat), not invalid_body.
    text: Annotated[Any, msgspec.Meta(extra_json_schema={"type": "string", "minLength": 1})]


class ChatOut(msgspec.Struct, frozen=True):
    game_id: str
    messages: list[ChatMessage]


class RematchOut(msgspec.Struct, frozen=True):
    """A finished game's rematch (``game_id``), the player who asked for it, and the caller's
    seat in it (taken now, if it was reserved for them)."""

    game_id: str
    by: str
    seat: int
