"""The games' repository: a game's state at its newest version, and the appending of its events.
The command service's parts (``services.games.creation``, ``services.games.handling``,
``services.games.reading``) are given one and know no store: ``GameRepository`` is what they
use (a unit test gives them a fake), ``EventStoreRepository`` the one on the event store.

State cache: each process keeps, per game, the newest state it has seen (``StateCache``, an LRU
of ``cache_size`` games). ``get`` reads only the events newer than the cached version (usually
none: one round trip that also fetches the command id's record), so a long game never replays
from the start on every move. This is safe because states are immutable (the rules' ``evolve``
returns a new state) and streams are append-only: a state at version v stays the state at
version v.

``hooks``: callables ``(game_id, version, woke)`` run after every append (and again by
``notify``). ``woke`` says that this change set the store's wake flag
(``EventStore.mark_changed``): the read side must be woken (the workers' hook enqueues a job
then, and only then). They must be idempotent. An exception in one is logged and does not fail
the command, which is already stored; the feed stream is the durable record of appends.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple, Protocol

from domain import GAMES
from domain.core import Game, replay
from services.errors import Unavailable, UnknownGame
from services.eventstore.codec import EventCodec
from services.eventstore.records import CommandRecord, Entry, EventRecord, GameMeta, to_record
from services.eventstore.store import Appended, EventStore, NewEvent, unavailable
from services.eventstore.upcasting import UPCASTERS, Upcasters
from services.games.statecache import StateCache

log = logging.getLogger(__name__)

AfterAppend = Callable[[str, int, bool], None]

# A command's key in the store's idempotency records: (seat, command id); seat None for the
# game's own commands (its creation, its expiry).
CommandKey = tuple[int | None, str]


class GameState(NamedTuple):
    """A game at one version: its metadata, its state, and the stored bytes of its entry at
    ``version`` (the head the next append chains onto; ``b""`` at 0)."""

    meta: GameMeta
    version: int
    state: Any
    head: bytes

    @classmethod
    def new(cls, meta: GameMeta) -> GameState:
        """A game before its first event (what its creation appends onto)."""
        return cls(meta, 0, None, b"")


class Stored(NamedTuple):
    """An append's outcome: the store's answer, and the game after it (None: nothing was
    appended). ``forked``: the store no longer has the version appended onto (it was restored
    from an older backup, or a lagging replica took over); what it holds is from then."""

    answer: Appended
    game: GameState | None
    forked: bool


class GameRepository(Protocol):
    games: Mapping[str, Game]

    def clock(self) -> int:
        """The store's time (ms), which stamps events and creations."""
        ...

    def meta(self, game_id: str) -> GameMeta:
        """The game's metadata (``UnknownGame`` for none)."""
        ...

    def cached(self, game_id: str) -> GameState | None:
        """The newest state this process has seen, without a read (None: none seen)."""
        ...

    def get(
        self, game_id: str, command: CommandKey | None = None
    ) -> tuple[GameState, CommandRecord | None]:
        """The game at its newest stored version and, when asked, the idempotency record of
        ``command`` (None: not appended)."""
        ...

    def records(self, game_id: str, after: int = 0) -> list[EventRecord]:
        """Every event after version ``after`` as stored, decoded (upcast to today's shapes)."""
        ...

    def append(
        self,
        game_id: str,
        at: GameState,
        seat: int | None,
        events: list[Any],
        command_id: str,
        digest: bytes = b"",
    ) -> Stored:
        """Append ``events`` onto ``at`` (a creation onto ``GameState.new``) if the stream is
        still there and ``(seat, command_id)`` is new; on success run the hooks."""
        ...

    def notify(self, game_id: str, version: int) -> None:
        """Mark the game changed and run the hooks again, for a change outside the stream."""
        ...

    def archived(self, game_id: str) -> bool:
        """Whether the game was moved to the archive (and is over)."""
        ...


class EventStoreRepository:
    """The games on one ``EventStore``, with the process's state cache and the hooks."""

    def __init__(
        self,
        store: EventStore,
        games: Mapping[str, Game] = GAMES,
        hooks: Sequence[AfterAppend] = (),
        cache_size: int = 4096,
        upcasters: Upcasters = UPCASTERS,
    ) -> None:
        self.store = store
        self.games = games
        self.hooks = hooks
        self.upcasters = upcasters
        self._codecs: dict[str, EventCodec] = {}
        self._cache: StateCache[GameState] = StateCache(cache_size)

    def clock(self) -> int:
        return self.store.clock()

    def meta(self, game_id: str) -> GameMeta:
        cached = self._cache.get(game_id)
        if cached is not None:
            return cached.meta
        meta = self.store.meta(game_id) if isinstance(game_id, str) else None
        if meta is None:
            raise UnknownGame(str(game_id))
        return meta

    def cached(self, game_id: str) -> GameState | None:
        return self._cache.get(game_id)

    def get(
        self, game_id: str, command: CommandKey | None = None
    ) -> tuple[GameState, CommandRecord | None]:
        """The cached state brought up to date with the stored events (and ``command``'s
        record in the same round trip)."""
        game = self._cache.get(game_id)
        if game is None:
            game = GameState.new(self.meta(game_id))
        # From the cached head itself: the stream must still hold it (see _store_went_back).
        entries, record = self._read(game_id, max(game.version - 1, 0), command)
        if game.version:
            if entries and entries[0].raw == game.head:
                entries = entries[1:]
            else:
                self._store_went_back(game_id, game)
                game = GameState.new(self.meta(game_id))
                entries, record = self._read(game_id, 0, command)
                if not entries:  # created after the backup the store came back from
                    raise UnknownGame(game_id)
        if entries:
            game = self._fold(game_id, game, entries)
            self._cache.remember(game_id, game)
        return game, record

    def records(self, game_id: str, after: int = 0) -> list[EventRecord]:
        codec = self._codec(self.meta(game_id).game)
        return [
            to_record(entry, codec.decode(entry.envelope))
            for entry in self.store.read(game_id, after)
        ]

    def append(
        self,
        game_id: str,
        at: GameState,
        seat: int | None,
        events: list[Any],
        command_id: str,
        digest: bytes = b"",
    ) -> Stored:
        meta = at.meta
        codec = self._codec(meta.game)
        answer = self.store.append(
            game_id,
            at.version,
            at.head,
            command_id,
            seat,
            [NewEvent(*codec.encode(event)) for event in events],
            digest=digest,
            meta=None if at.version else meta,  # the store keeps it at the creation
        )
        if answer.status == "ok":
            state = replay(self.games[meta.game], events, at.state)
            game = GameState(meta, answer.version, state, answer.entries[-1].raw)
            self._cache.remember(game_id, game)
            self._after_append(game_id, answer.version, answer.woke)
            return Stored(answer, game, forked=False)
        forked = answer.status == "forked" or answer.version < at.version
        if forked:
            self._store_went_back(game_id, at)
        return Stored(answer, None, forked)

    def notify(self, game_id: str, version: int) -> None:
        """A failing hook is logged, not raised; so is a failing mark (the workers' catch-up
        repairs both)."""
        try:
            woke = self.store.mark_changed(game_id)
        except Unavailable:
            log.exception("could not mark %s changed", game_id)
            return
        self._after_append(game_id, version, woke)

    def archived(self, game_id: str) -> bool:
        archived = self.store.archived
        with unavailable():
            return archived is not None and archived.marker(game_id) is not None

    def _codec(self, game: str) -> EventCodec:
        codec = self._codecs.get(game)
        if codec is None:
            codec = self._codecs[game] = EventCodec(self.games[game], self.upcasters)
        return codec

    def _read(
        self, game_id: str, after: int, command: CommandKey | None
    ) -> tuple[list[Entry], CommandRecord | None]:
        if command is None:
            return self.store.read(game_id, after), None
        return self.store.read_with_record(game_id, after, *command)

    def _store_went_back(self, game_id: str, game: GameState) -> None:
        """Drop the cached state: the store no longer has its head (restored from an older
        backup, or a lagging replica took over, and perhaps appended to since). The game is
        read again from its first event; deciding on the cached state would chain new events
        onto a version that is gone (the append refuses that: ``forked``)."""
        log.warning(
            "game %s: the store no longer has version %d as this process saw it; reloading",
            game_id,
            game.version,
        )
        self._cache.forget(game_id, game)

    def _fold(self, game_id: str, game: GameState, entries: list[Entry]) -> GameState:
        rules = self.games[game.meta.game]
        codec = self._codec(game.meta.game)
        state, version = game.state, game.version
        for entry in entries:
            version += 1
            if entry.envelope.version != version:
                raise RuntimeError(
                    f"game {game_id}: stored version {entry.envelope.version}, expected {version}"
                )
            state = rules.evolve(state, codec.decode(entry.envelope))
        return GameState(game.meta, version, state, entries[-1].raw)

    def _after_append(self, game_id: str, version: int, woke: bool) -> None:
        for hook in self.hooks:
            try:
                hook(game_id, version, woke)
            except Exception:
                log.exception("after_append hook %r failed for %s@%d", hook, game_id, version)
