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

from collections.abc import Sequence

from services.games.clocks import MIN_CLOCK
from services.games.creation import Creation
from services.games.handling import MAX_ATTEMPTS, Handling
from services.games.reading import Reading
from services.games.repository import AfterAppend, EventStoreRepository
from services.platform.metrics import Metrics


class CommandService:
    """The parts' methods as one object for callers. It is given the repository on the event
    store, whose store callers reach through it (``commands.store``); a part alone runs on any
    ``GameRepository``."""

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
        creation = Creation(repository, min_clock_seconds)
        # Without the process's metrics (a test's service): counted, exported nowhere.
        handling = Handling(repository, metrics or Metrics(), max_attempts)
        reading = Reading(repository)
        self.create_game = creation.create_game
        self.create_like = creation.create_like
        self.handle = handling.handle
        self.time_out = handling.time_out
        self.expire = handling.expire
        self.rules = reading.rules
        self.meta = reading.meta
        self.load = reading.load
        self.events = reading.events
        self.history = reading.history
        self.notify = repository.notify

    @property
    def hooks(self) -> Sequence[AfterAppend]:
        """The repository's (a test changes them there: ``commands.repository.hooks``)."""
        return self.repository.hooks
