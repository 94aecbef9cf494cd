"""The command service: create games, handle players' commands, read games back.

Module-level functions use one process-wide service on ``services.platform.config.connect()``::

    game_id = create_game("famiglia", seats=2, options={}, ai={1: 2})
    accepted = handle(game_id, seat=0, command={"type": "..."}, command_id="c-123")
    game, state, version, meta = load(game_id)
    records = history(game_id, seat=0)

``CommandService`` is made of one part per job, each module's docstring says how it works:
``services.games.creation`` (new games), ``services.games.handling`` (commands and time-outs,
retries and
command ids), ``services.games.reading`` (load, events, redacted history), on
``services.games.snapshots``
(the per-process snapshot cache and the hooks); ``services.games.commandinput`` checks what callers
pass (command ids, commands as data, AI seats).

Every refusal is a ``services.errors.ServiceError`` (``code``, ``status``, ``message``) and
changes nothing.

``after_append``: callables ``(game_id, version, woke)`` run after every append (and again when
a retried command turns out to be a duplicate, so a lost follow-up is re-triggered). ``woke``
says that this change set the store's wake flag (``EventStore.mark_changed``): the read side must
be woken (the workers' hook enqueues a job then, and only then). They must be idempotent. An
exception in one is logged and does not fail the command, which is already stored; the feed
stream is the durable record of appends.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from domain import GAMES
from domain.core import Game
from services.eventstore.records import EventRecord
from services.eventstore.store import EventStore
from services.eventstore.upcasting import UPCASTERS, Upcasters
from services.games.creation import Creation
from services.games.handling import Accepted, Handling
from services.games.reading import Loaded, Reading
from services.games.snapshots import AfterAppend
from services.platform.config import connect, settings

after_append: list[AfterAppend] = []
"""Hooks of the process-wide service (see the module docstring)."""


class CommandService(Creation, Handling, Reading):
    def __init__(
        self,
        store: EventStore,
        games: Mapping[str, Game] = GAMES,
        hooks: list[AfterAppend] | None = None,
        max_attempts: int = 10,
        cache_size: int = 4096,
        upcasters: Upcasters = UPCASTERS,
    ) -> None:
        # This module's list, read when the service is made: tests replace it.
        hooks = after_append if hooks is None else hooks
        super().__init__(store, games, hooks, max_attempts, cache_size, upcasters)


# -- the process-wide service -------------------------------------------------------------------

_default: CommandService | None = None
_default_lock = threading.Lock()


def service() -> CommandService:
    """The process-wide service on the configured server (started embedded when needed)."""
    global _default
    with _default_lock:
        if _default is None:
            config = settings()
            store = EventStore(
                connect(config),
                min_replicas=config.min_replicas,
                replica_timeout_ms=config.replica_timeout_ms,
            )
            _default = CommandService(store)
        return _default


def create_game(
    game: str,
    seats: int,
    options: dict[str, Any] | None = None,
    ai: Mapping[Any, Any] | None = None,
    clock: Mapping[str, Any] | None = None,
    on_timeout: Mapping[str, Any] | None = None,
) -> str:
    return service().create_game(game, seats, options, ai, clock, on_timeout)


def handle(
    game_id: str, seat: int, command: Any, command_id: str, expected_version: int | None = None
) -> Accepted:
    return service().handle(game_id, seat, command, command_id, expected_version)


def time_out(game_id: str, version: int, seat: int, forfeit: bool) -> Accepted:
    return service().time_out(game_id, version, seat, forfeit)


def load(game_id: str) -> Loaded:
    return service().load(game_id)


def history(game_id: str, seat: int | None, after: int = 0) -> list[EventRecord]:
    return service().history(game_id, seat, after)
