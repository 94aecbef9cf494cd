"""The command service: create games, handle players' commands, read games back::

    game_id = commands.create_game("famiglia", seats=2, options={}, ai={1: 2})
    accepted = commands.handle(game_id, seat=0, command={"type": "..."}, command_id="c-123")
    game, state, version, meta = commands.load(game_id)
    records = commands.history(game_id, seat=0)

One service per process, made by the composition root (``bootstrap``) and handed to whoever
needs it.

``CommandService`` is made of one part per job, each module's docstring says how it works:
``services.games.creation`` (new games), ``services.games.handling`` (commands and time-outs,
retries and command ids), ``services.games.reading`` (load, events, redacted history), on
``services.games.snapshots`` (the per-process snapshot cache and the hooks);
``services.games.commandinput`` checks what callers pass (command ids, commands as data, AI
seats).

Every refusal is a ``services.errors.ServiceError`` (``code``, ``status``, ``message``) and
changes nothing.

``hooks``: callables ``(game_id, version, woke)`` run after every append (and again when a
retried command turns out to be a duplicate, so a lost follow-up is re-triggered). ``woke``
says that this change set the store's wake flag (``EventStore.mark_changed``): the read side must
be woken (the workers' hook enqueues a job then, and only then). They must be idempotent. An
exception in one is logged and does not fail the command, which is already stored; the feed
stream is the durable record of appends.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from domain import GAMES
from domain.core import Game
from services.eventstore.store import EventStore
from services.eventstore.upcasting import UPCASTERS, Upcasters
from services.games.creation import Creation
from services.games.handling import Handling
from services.games.reading import Reading
from services.games.snapshots import AfterAppend
from services.platform.metrics import Metrics


class CommandService(Creation, Handling, Reading):
    def __init__(
        self,
        store: EventStore,
        games: Mapping[str, Game] = GAMES,
        hooks: Sequence[AfterAppend] = (),
        max_attempts: int = 10,
        cache_size: int = 4096,
        upcasters: Upcasters = UPCASTERS,
        metrics: Metrics | None = None,
    ) -> None:
        # Without the process's metrics (a test's service): counted, exported nowhere.
        super().__init__(
            store, games, hooks, max_attempts, cache_size, upcasters, metrics or Metrics()
        )
