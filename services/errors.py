"""The typed errors of the service layer.

Every error has a stable ``code`` (clients and tests match on it), an HTTP-like ``status`` (the
API maps it to an RFC 9457 problem), a ``message`` for people, in English, and ``params``: the
values the message names (plain JSON values), from which a client renders the refusal in its own
language (``case`` tells apart the messages of one code). ``game`` is set when a game's rules
refused: its rule codes are that game's own. None of them reveals hidden information: messages
and params name only what the caller sent or may see. A refused command changes nothing in the
store.

| class | status | code |
|---|---|---|
| ``UnknownGame`` | 404 | ``unknown_game`` |
| ``WrongSeat`` | 403 | ``wrong_seat`` |
| ``BadRequest`` | 400 | ``bad_command``, ``bad_options``, ``unknown_game_name``, |
|  |  | ``bad_seats``, ``bad_ai``, ``bad_command_id``, ``bad_expected_version``, |
|  |  | ``bad_clock``, ``bad_on_timeout``, ``bad_vacation`` |
| ``services.games.vacation.VacationRefused`` | 409 | ``vacation_refused`` |
| ``Conflict`` | 409 | ``conflict`` (stale expected version, or the race retries ran out) |
| ``CommandIdReused`` | 409 | ``command_id_reused`` (same id, different command) |
| ``SeatTakenOver`` | 409 | ``seat_taken_over`` (a person's command for a seat a bot plays now) |
| ``GameArchived`` | 409 | ``game_archived`` (a command or a chat message to an archived game) |
| ``RuleRejected`` | 422 | the rules' own code, e.g. ``not_your_turn`` |
| ``Unavailable`` | 503 | ``store_unavailable`` (the server refused or did not answer) |
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class ServiceError(Exception):
    """Base of the service's refusals; ``code``, ``status``, ``message`` and ``params`` are
    always set."""

    status: int = 500
    code: str = "internal"

    def __init__(
        self,
        message: str,
        code: str | None = None,
        params: Mapping[str, Any] | None = None,
        game: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.params: dict[str, Any] = dict(params or {})
        self.game = game

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"


class UnknownGame(ServiceError):
    status = 404
    code = "unknown_game"

    def __init__(self, game_id: str) -> None:
        super().__init__(f"there is no game {game_id!r}", params={"game_id": game_id})
        self.game_id = game_id


class WrongSeat(ServiceError):
    """A seat that is not a seat of this game (out of range)."""

    status = 403
    code = "wrong_seat"


class BadRequest(ServiceError):
    """Input of the wrong shape: a command of another game, a missing field, bad options..."""

    status = 400
    code = "bad_command"


class Conflict(ServiceError):
    """The game moved on: ``version`` is the version the store is at now."""

    status = 409
    code = "conflict"

    def __init__(self, message: str, version: int, **params: Any) -> None:
        super().__init__(message, params={"version": version, **params})
        self.version = version


class CommandIdReused(ServiceError):
    """A command id already used for a different command in this game."""

    status = 409
    code = "command_id_reused"


class SeatTakenOver(ServiceError):
    """A person's command for a seat that a bot plays now (after a concession or a time-out):
    only the bot moves for it."""

    status = 409
    code = "seat_taken_over"


class GameArchived(ServiceError):
    """A write to a game moved to the archive (``services.readside.archiving``): a move, a table
    command, a chat message. It is read, replayed, verified, reviewed and rematched as before."""

    status = 409
    code = "game_archived"

    def __init__(self) -> None:
        super().__init__(
            "the game is archived: it is read and rematched, no longer played or written in"
        )


class RuleRejected(ServiceError):
    """The rules refuse the command; ``code`` is the rules' code (``not_your_turn``, ...)."""

    status = 422
    code = "rule_violation"


class Unavailable(ServiceError):
    """The store's server refused (e.g. out of memory) or did not answer. An append either
    happened completely or not at all: retrying with the same command id is safe."""

    status = 503
    code = "store_unavailable"
