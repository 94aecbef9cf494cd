"""The command service: create games, handle players' commands, read games back::

    game_id = commands.create_game("famiglia", seats=2, options={}, ai={1: 2})
    accepted = commands.handle(game_id, seat=0, command={"type": "..."}, command_id="c-123")
    game, state, version, meta = commands.load(game_id)
    records = commands.history(game_id, seat=0)

One service per process, made by the composition root (``bootstrap``) on the process's game
repository and handed to whoever needs it.

``CommandService`` is a facade over one part per job, each given the repository (each module's
docstring says how it works): ``services.games.creation`` (new games),
``services.games.handling`` (commands and time-outs, retries and command ids),
``services.games.reading`` (load, events, redacted history); ``services.games.repository``
(``GameRepository``: the games' states, with the per-process state cache, and their appends,
with the after-append hooks) is all they know of the store; ``services.games.commandinput``
checks what callers pass (command ids, commands as data, AI seats).

Every refusal is a ``services.errors.ServiceError`` (``code``, ``status``, ``message``) and
changes nothing.

The repository's ``hooks`` run after every append, and again when a retried command turns out
to be a duplicate, so a lost follow-up is re-triggered (``services.games.repository``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from domain.core import Game
from services.eventstore.records import EventRecord, GameMeta
from services.games.clocks import MIN_CLOCK
from services.games.creation import Creation
from services.games.handling import MAX_ATTEMPTS, Accepted, Handling
from services.games.reading import Loaded, Reading
from services.games.repository import AfterAppend, EventStoreRepository
from services.platform.metrics import Metrics


class CommandService:
    """The parts' methods as one object for callers. It is given the repository on the event
    store, whose store callers reach through it (``commands.store``); a part alone runs on any
    ``GameRepository``."""

    repository: EventStoreRepository
    creation: Creation
    handling: Handling
    reading: Reading

    def __init__(
        self,
        repository: EventStoreRepository,
        max_attempts: int = MAX_ATTEMPTS,
        metrics: Metrics | None = None,
        min_clock_seconds: int = MIN_CLOCK,
    ) -> None:
        self.repository = repository
        self.store = repository.store
        self.games = repository.games
        self.creation = Creation(repository, min_clock_seconds)
        # Without the process's metrics (a test's service): counted, exported nowhere.
        self.handling = Handling(repository, metrics or Metrics(), max_attempts)
        self.reading = Reading(repository)

    # Each method is its part's, named here so that callers, readers and tools (the refusal
    # codes' walk of tests/api/raised.py) find it on the class.
    def create_game(
        self,
        game: str,
        seats: int,
        options: dict[str, Any] | None = None,
        ai: Mapping[Any, Any] | None = None,
        clock: Mapping[str, Any] | None = None,
        on_timeout: Mapping[str, Any] | None = None,
        game_id: str | None = None,
    ) -> str:
        return self.creation.create_game(game, seats, options, ai, clock, on_timeout, game_id)

    def create_like(self, earlier: GameMeta) -> str:
        return self.creation.create_like(earlier)

    def handle(
        self,
        game_id: str,
        seat: int,
        command: Any,
        command_id: str,
        expected_version: int | None = None,
    ) -> Accepted:
        return self.handling.handle(game_id, seat, command, command_id, expected_version)

    def time_out(self, game_id: str, version: int, seat: int, forfeit: bool) -> Accepted:
        return self.handling.time_out(game_id, version, seat, forfeit)

    def expire(self, game_id: str, days: float) -> Accepted:
        return self.handling.expire(game_id, days)

    def rules(self, game_id: str) -> Game:
        return self.reading.rules(game_id)

    def meta(self, game_id: str) -> GameMeta:
        return self.reading.meta(game_id)

    def load(self, game_id: str) -> Loaded:
        return self.reading.load(game_id)

    def events(self, game_id: str, after: int = 0) -> list[EventRecord]:
        return self.reading.events(game_id, after)

    def history(self, game_id: str, seat: int | None, after: int = 0) -> list[EventRecord]:
        return self.reading.history(game_id, seat, after)

    def notify(self, game_id: str, version: int) -> None:
        self.repository.notify(game_id, version)

    @property
    def hooks(self) -> Sequence[AfterAppend]:
        """The repository's (a test changes them there: ``commands.repository.hooks``)."""
        return self.repository.hooks
