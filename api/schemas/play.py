"""Playing: a move, what it answers, the seat's view and legal moves, the history."""

from __future__ import annotations

from typing import Any

import msgspec

from api.schemas.common import In, Seat, Version
from domain.table import TableView


class CommandIn(In, frozen=True):
    """A move. ``command`` is one of the game's commands (``legal`` lists them). With
    ``expected_version`` the command is refused (409) unless the game is still at that version.
    ``seat``, if sent, must be the caller's own."""

    command: Any
    expected_version: Version | None = None
    seat: Seat | None = None


class ViewOut(msgspec.Struct, frozen=True):
    """What the caller's seat (None: a spectator) may see at ``version``: the game's own view,
    and the table's part (as in GET /games/{id})."""

    game_id: str
    game: str
    version: int
    seat: int | None
    view: Any
    table: TableView


class LegalOut(msgspec.Struct, frozen=True):
    """The game's own moves the seat may send at ``version``; never the table's commands
    (concede, draws, undo: the game's ``table`` says which apply)."""

    game_id: str
    version: int
    seat: int
    commands: list[Any]


class Accepted(msgspec.Struct, frozen=True):
    """The command's events are versions ``first`` to ``version`` (none if first > version);
    ``duplicate``: an earlier request with this Idempotency-Key stored them. What follows at
    ``version``, to save a request: ``to_act``, the seats owing a decision, and ``legal``, the
    caller's moves (as ``GET .../legal`` would list them: not the table's commands); both null
    for a duplicate."""

    game_id: str
    command_id: str
    version: int
    first: int
    duplicate: bool
    to_act: list[int] | None
    legal: list[Any] | None


class EventOut(msgspec.Struct, frozen=True):
    """One event of the history, as the caller may see it (everything once the game is over).
    ``command_id`` is the caller's own key for its own commands; another seat's command shows
    ``#<version>`` (the version of its first event in the answer), ``""`` the game's creation.

    `prev` and `hash` chain the game's events: `prev` of version 1 is 64 zeros, `prev` of
    version v is the `hash` of version v-1, and `hash` is the hex SHA-256 of the event's record
    as the server stores it (MessagePack, which no answer carries: the event in it is
    unredacted). A client checks that the chain is unbroken and that a later copy of the
    history extends the one it holds (the same `hash` at the same version); any change to a
    stored event breaks the chain from there on."""

    version: int
    type: str
    time: int
    actor: int | None
    command_id: str
    prev: str
    hash: str
    event: Any


class HistoryOut(msgspec.Struct, frozen=True):
    game_id: str
    game: str
    seat: int | None
    events: list[EventOut]
