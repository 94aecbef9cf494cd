"""What the command service knows of its games (the base of ``services.games.commands``'
``CommandService``): each game's metadata and latest state, read from the event store, the
games' event codecs, and the hooks run after a change.

Snapshot cache: each process keeps, per game, the latest state it has seen (an LRU of
``cache_size`` games). Loading reads only the events newer than the cached version (usually none:
one round trip that also fetches the command id's record), so a long game never replays from the
start on every move. This is safe because states are immutable (the rules' ``evolve`` returns a
new state) and streams are append-only: a state at version v stays the state at version v.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

from domain.core import Game
from services.errors import Unavailable, UnknownGame
from services.eventstore.codec import EventCodec
from services.eventstore.records import CommandRecord, Entry, GameMeta
from services.eventstore.store import EventStore, NewEvent
from services.eventstore.upcasting import Upcasters
from services.games.statecache import StateCache
from services.platform.metrics import Metrics

log = logging.getLogger(__name__)

AfterAppend = Callable[[str, int, bool], None]


class Snapshot(NamedTuple):
    meta: GameMeta
    version: int
    state: Any
    head: bytes  # the stored bytes of the entry at ``version`` (b"" at 0)


class Snapshots:
    """The games' snapshots on one store; ``services.games.creation``, ``services.games.handling``
    and
    ``services.games.reading`` build on it (``services.games.commands.CommandService`` takes all
    three)."""

    def __init__(
        self,
        store: EventStore,
        games: Mapping[str, Game],
        hooks: Sequence[AfterAppend],
        max_attempts: int,
        cache_size: int,
        upcasters: Upcasters,
        metrics: Metrics,
    ) -> None:
        self.store = store
        self.metrics = metrics
        self.games = games
        self.hooks = hooks
        self.max_attempts = max_attempts
        self.upcasters = upcasters
        self._codecs: dict[str, EventCodec] = {}
        self._cache: StateCache[Snapshot] = StateCache(cache_size)

    def _codec(self, game: str) -> EventCodec:
        codec = self._codecs.get(game)
        if codec is None:
            codec = self._codecs[game] = EventCodec(self.games[game], self.upcasters)
        return codec

    def _encode(self, game: str, events: list[Any]) -> list[NewEvent]:
        codec = self._codec(game)
        return [NewEvent(*codec.encode(event)) for event in events]

    def _meta(self, game_id: str) -> GameMeta:
        cached = self._cache.get(game_id)
        if cached is not None:
            return cached.meta
        meta = self.store.meta(game_id) if isinstance(game_id, str) else None
        if meta is None:
            raise UnknownGame(str(game_id))
        return meta

    def _refresh(
        self, game_id: str, command: tuple[int | None, str] | None = None
    ) -> tuple[Snapshot, CommandRecord | None]:
        """The cached snapshot brought up to date with the stored events (and, when asked,
        the idempotency record of ``command``, (seat, command id), in the same round trip)."""
        snap = self._cache.get(game_id)
        if snap is None:
            snap = Snapshot(self._meta(game_id), 0, None, b"")
        # From the cached head itself: the stream must still hold it (see _store_went_back).
        entries, record = self._read(game_id, max(snap.version - 1, 0), command)
        if snap.version:
            if entries and entries[0].raw == snap.head:
                entries = entries[1:]
            else:
                self._store_went_back(game_id, snap)
                snap = Snapshot(self._meta(game_id), 0, None, b"")
                entries, record = self._read(game_id, 0, command)
                if not entries:  # created after the backup the store came back from
                    raise UnknownGame(game_id)
        if entries:
            snap = self._fold(game_id, snap, entries)
            self._cache.remember(game_id, snap)
        return snap, record

    def _read(
        self, game_id: str, after: int, command: tuple[int | None, str] | None
    ) -> tuple[list[Entry], CommandRecord | None]:
        if command is None:
            return self.store.read(game_id, after), None
        return self.store.read_with_record(game_id, after, *command)

    def _store_went_back(self, game_id: str, snap: Snapshot) -> None:
        """Drop the cached state: the store no longer has its head (restored from an older
        backup, or a lagging replica took over, and perhaps appended to since). The game is
        read again from its first event; deciding on the cached state would chain new events
        onto a version that is gone (the append refuses that: ``forked``)."""
        log.warning(
            "game %s: the store no longer has version %d as this process saw it; reloading",
            game_id,
            snap.version,
        )
        self._cache.forget(game_id, snap)

    def _fold(self, game_id: str, snap: Snapshot, entries: list[Entry]) -> Snapshot:
        rules = self.games[snap.meta.game]
        codec = self._codec(snap.meta.game)
        state, version = snap.state, snap.version
        for entry in entries:
            version += 1
            if entry.envelope.version != version:
                raise RuntimeError(
                    f"game {game_id}: stored version {entry.envelope.version}, expected {version}"
                )
            state = rules.evolve(state, codec.decode(entry.envelope))
        return Snapshot(snap.meta, version, state, entries[-1].raw)

    def notify(self, game_id: str, version: int) -> None:
        """Mark the game changed and run the follow-up hooks again, for a change outside the
        stream that read models show (a seat taken). Hooks are idempotent; a failing one is
        logged, not raised; so is a failing mark (the workers' catch-up repairs both)."""
        try:
            woke = self.store.mark_changed(game_id)
        except Unavailable:
            log.exception("could not mark %s changed", game_id)
            return
        self._after_append(game_id, version, woke)

    def _after_append(self, game_id: str, version: int, woke: bool) -> None:
        for hook in self.hooks:
            try:
                hook(game_id, version, woke)
            except Exception:
                log.exception("after_append hook %r failed for %s@%d", hook, game_id, version)
