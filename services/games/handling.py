"""The command service's handling of commands: a seat's command, a seat's time-out, or the
expiry of an open game nobody joined, decided by the rules on the game's state and appended as
its events (through the ``GameRepository`` it is given).

``handle`` loads the game's state, calls the rules' ``decide``, and appends the events only if
the stream is still at the version it decided on. When another command got in first it decides
again on the new state, up to ``max_attempts`` times, then raises ``Conflict``; with
``expected_version`` given there is no retry: a stale version raises ``Conflict`` at once.
The ``command_id`` (chosen by the client, unique per seat of a game) makes a retry safe: a
command id the seat already appended appends nothing and returns the first result
(``duplicate=True``); the same id with another command is refused (``command_id_reused``).
Ids are scoped by seat (the store keeps one hash of records per seat,
``services.eventstore.keys``), so one
seat's ids never block another seat: nobody can take the id another seat (an AI seat) will use.
AI seats' ids are ``ai_command_id(version, seat)`` (``services.games.commandinput``), under
``AI_COMMAND_PREFIX``, which the API refuses from clients.
"""

from __future__ import annotations

import hashlib
import time
from typing import Any

import msgspec

from domain import table
from domain.core import RuleViolation
from services.errors import (
    BadRequest,
    CommandIdReused,
    Conflict,
    GameArchived,
    RuleRejected,
    SeatTakenOver,
    ServiceError,
    UnknownGame,
    WrongSeat,
)
from services.eventstore.records import CommandRecord
from services.games.commandinput import (
    AI_COMMAND_PREFIX,
    MAX_COMMAND_ID,
    check_seat,
    is_int,
    parse_command,
)
from services.games.repository import GameRepository, GameState
from services.games.seating import taken_over
from services.platform.metrics import Metrics

# The codes ``handle`` refuses a command with itself, started at 0 in the metrics
# (``commands_refused``); each rule's own code (``RuleRejected``) is counted from its first.
REFUSALS = (
    Conflict.code,
    CommandIdReused.code,
    SeatTakenOver.code,
    WrongSeat.code,
    UnknownGame.code,
    BadRequest.code,
    "bad_command_id",
    "bad_expected_version",
    GameArchived.code,
)


MAX_ATTEMPTS = 10  # decisions on a fresh state per command before ``Conflict`` (``busy``)


class Accepted(msgspec.Struct, frozen=True):
    """A handled command: its events are versions ``first .. version`` of the game (none when
    ``first > version``); ``duplicate`` means an earlier try of this command id stored them.
    ``state`` is the game's state at ``version`` (None for a duplicate: this try did not see
    it), so a caller can answer with what follows (the next legal commands) without a read."""

    game_id: str
    command_id: str
    version: int
    first: int
    duplicate: bool = False
    state: Any = None


class Handling:
    def __init__(
        self, repository: GameRepository, metrics: Metrics, max_attempts: int = MAX_ATTEMPTS
    ) -> None:
        self.repository = repository
        self.metrics = metrics
        self.max_attempts = max_attempts

    def handle(
        self,
        game_id: str,
        seat: int,
        command: Any,
        command_id: str,
        expected_version: int | None = None,
    ) -> Accepted:
        """Decide ``command`` for ``seat`` and append its events (see the module docstring).

        ``command`` is one of the game's Command structs, or plain data (a dict, or JSON text)
        converted against the game's Command union. Counted and timed in ``metrics``."""
        began = time.perf_counter()
        try:
            accepted = self._handle(game_id, seat, command, command_id, expected_version)
        except ServiceError as exc:
            self.metrics.commands_refused.labels(exc.code).inc()
            raise
        finally:
            self.metrics.command_seconds.observe(time.perf_counter() - began)
        self.metrics.commands_accepted.inc()
        return accepted

    def _handle(
        self,
        game_id: str,
        seat: int,
        command: Any,
        command_id: str,
        expected_version: int | None,
    ) -> Accepted:
        if not isinstance(command_id, str) or not 0 < len(command_id) <= MAX_COMMAND_ID:
            raise BadRequest(
                f"a command id is a string of 1 to {MAX_COMMAND_ID} characters",
                code="bad_command_id",
                params={"max": MAX_COMMAND_ID},
            )
        if expected_version is not None and not (
            is_int(expected_version) and expected_version >= 0
        ):
            raise BadRequest(
                f"an expected version is a version number, not {expected_version!r}",
                code="bad_expected_version",
                params={"expected": str(expected_version)},
            )
        meta = self.repository.meta(game_id)
        rules = self.repository.games[meta.game]
        check_seat(seat, meta.seats)
        command = parse_command(rules, command)
        digest = hashlib.sha256(msgspec.msgpack.encode([seat, command])).digest()[:16]
        game = self._warm(game_id, expected_version)
        if game is not None and not _bot_plays(game, seat, command_id):
            # One round trip: decide on the cached state and append at its version straight
            # away; the append itself checks the version and the command id. Refused by the
            # rules, or a no-op, or beaten by another append: decided again on a fresh read.
            try:
                events = rules.decide(game.state, seat, command)
            except RuleViolation:
                events = []
            if events:
                accepted = self._append(
                    game_id, game, seat, events, command_id, digest, expected_version
                )
                if accepted is not None:
                    return accepted
        for _attempt in range(self.max_attempts):
            game, record = self.repository.get(game_id, (seat, command_id))
            if record is not None:
                return self._duplicate(game_id, command_id, record, digest, game.version)
            if expected_version is not None and game.version != expected_version:
                raise _stale(expected_version, game.version)
            if _bot_plays(game, seat, command_id):
                raise SeatTakenOver(
                    f"seat {seat} is played by a bot now: only the bot moves for it",
                    params={"seat": seat},
                )
            try:
                events = rules.decide(game.state, seat, command)
            except RuleViolation as exc:
                # An archived game is over, so the rules refuse every command: only then is
                # its marker read (no round trip more for a command that is decided).
                if self.repository.archived(game_id):
                    raise GameArchived() from None
                raise RuleRejected(
                    exc.message, code=exc.code, params=exc.params, game=meta.game
                ) from None
            if not events:
                return Accepted(
                    game_id, command_id, game.version, game.version + 1, state=game.state
                )
            accepted = self._append(
                game_id, game, seat, events, command_id, digest, expected_version
            )
            if accepted is not None:
                return accepted
        raise self._busy(game_id)

    def time_out(self, game_id: str, version: int, seat: int, forfeit: bool) -> Accepted:
        """Append ``seat``'s time-out (``domain.table.time_out``) at exactly ``version``:
        ``Conflict`` when the game is elsewhere (it moved on: the deadline is stale). The command
        id is ``ai-timeout-<version>-<seat>``, so copies of one deadline job append it once; no
        client can send it (the API refuses the ``ai-`` prefix)."""
        meta = self.repository.meta(game_id)
        check_seat(seat, meta.seats)
        command_id = f"{AI_COMMAND_PREFIX}timeout-{version}-{seat}"
        digest = hashlib.sha256(msgspec.msgpack.encode([seat, "time_out", forfeit])).digest()[:16]
        game, record = self.repository.get(game_id, (seat, command_id))
        if record is not None:
            return self._duplicate(game_id, command_id, record, digest, game.version)
        if game.version != version:
            raise _stale(version, game.version)
        try:
            events = table.time_out(game.state, seat, forfeit)
        except RuleViolation as exc:
            raise RuleRejected(exc.message, code=exc.code, params=exc.params) from None
        if not events:
            return Accepted(game_id, command_id, game.version, game.version + 1, state=game.state)
        accepted = self._append(game_id, game, seat, events, command_id, digest, version)
        assert accepted is not None  # with an expected version a lost race raises Conflict
        return accepted

    def expire(self, game_id: str, days: float) -> Accepted:
        """Append the game's expiry (``domain.table.expire``): nobody joined it within ``days``;
        the caller closed its seats first (``Seats.close_unjoined``). The command id
        ``ai-expire`` has no seat (as the creation's), so copies of the expiry job append it
        once; a game already over is refused (``game_over``)."""
        command_id = f"{AI_COMMAND_PREFIX}expire"
        digest = hashlib.sha256(b"expire").digest()[:16]
        for _attempt in range(self.max_attempts):
            game, record = self.repository.get(game_id, (None, command_id))
            if record is not None:
                return self._duplicate(game_id, command_id, record, digest, game.version)
            try:
                events = table.expire(game.state, days)
            except RuleViolation as exc:
                raise RuleRejected(exc.message, code=exc.code, params=exc.params) from None
            accepted = self._append(game_id, game, None, events, command_id, digest, None)
            if accepted is not None:
                return accepted
        raise self._busy(game_id)

    def _append(
        self,
        game_id: str,
        game: GameState,
        seat: int | None,
        events: list[Any],
        command_id: str,
        digest: bytes,
        expected_version: int | None,
    ) -> Accepted | None:
        """Append a command's events at ``game``'s version; None if another append got in
        first (the stream is past ``game``), or ``Conflict`` then with ``expected_version``."""
        stored = self.repository.append(game_id, game, seat, events, command_id, digest)
        if stored.game is not None:
            now = stored.game
            return Accepted(game_id, command_id, now.version, game.version + 1, state=now.state)
        appended = stored.answer
        if appended.record is not None:  # an earlier try of this command id stored it
            return self._duplicate(game_id, command_id, appended.record, digest, appended.version)
        if expected_version is not None:
            if stored.forked and appended.version == expected_version:
                raise Conflict(
                    f"the game's version {expected_version} is no longer the one you saw"
                    " (the store was restored); reload and retry",
                    appended.version,
                    expected=str(expected_version),
                )
            raise _stale(expected_version, appended.version)
        return None

    def _busy(self, game_id: str) -> Conflict:
        return Conflict(
            f"the game kept changing; gave up after {self.max_attempts} attempts, try again",
            version=self.repository.get(game_id)[0].version,
            case="busy",
        )

    def _warm(self, game_id: str, expected_version: int | None) -> GameState | None:
        """The cached state to decide on without reading first, if there is one and it is
        at ``expected_version`` (when given: otherwise a read tells stale from duplicate)."""
        game = self.repository.cached(game_id)
        if game is None or (expected_version is not None and game.version != expected_version):
            return None
        return game

    def _duplicate(
        self, game_id: str, command_id: str, record: CommandRecord, digest: bytes, now: int
    ) -> Accepted:
        if record.digest != digest:
            raise CommandIdReused(
                f"command id {command_id!r} was already used for another command of this seat",
                params={"command_id": command_id},
            )
        self.repository.notify(game_id, now)
        return Accepted(game_id, command_id, record.last, record.first, duplicate=True)


def _bot_plays(game: GameState, seat: int, command_id: str) -> bool:
    """A person's command (any id but the AI seats') for a person's seat a bot took over (the
    API seats nobody at the AI seats chosen at creation)."""
    bot = seat in taken_over(game.meta, game.state)
    return bot and not command_id.startswith(AI_COMMAND_PREFIX)


def _stale(expected: int, now: int) -> Conflict:
    return Conflict(
        f"the game is at version {now}, not {expected}; reload and retry",
        now,
        expected=str(expected),
    )
