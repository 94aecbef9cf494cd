"""One reader of the store per web process, waking the live-event streams (``api.sse``) whose
game has a new version: an open stream costs no Redis connection.

Every append adds one entry ``{game, version}`` to the ``feed`` stream in the same atomic step
(``services.store``). The reader follows the feed with one blocking ``XREAD`` (a connection of
the pool, for as long as it blocks) and keeps, for each game a stream of this process watches,
the highest version seen; entries of other games are skipped. A stream waits on a condition
until its game passes the version it last sent, then reads its records through the service,
holding one of ``readers`` places (``Watch.read``; ``Fanout.reading`` for a stream's start): a
move in a game that thousands of pages watch wakes them all at once, and thousands of pages
reconnect at once after a restart; each would otherwise take a connection of the pool at the
same moment (redis-py's pool refuses more than 100: the requests of the moment would get 503).
The streams of one game that one move wakes, at the same version and seat, share one read.
One key whatever the number of watched games: an ``XREAD`` over each watched game's own stream
would have to be sent again with every key after each event, and woken when a game is added.

Nothing is missed between a stream's read and its wait: ``watch()`` returns only once the
reader's position in the feed is fixed, and the stream reads its records after that, so every
append after that read has its feed entry after the position. A reader that loses the store
goes on from its position when the store answers again (the feed keeps every entry); meanwhile
``Watch.wait`` raises ``Unavailable`` (also to a wait begun before the loss), so that streams end
and browsers reconnect rather than wait on a reader that sees nothing.

The same reader follows the inbox feed (``keys.INBOX_FEED``) in the same ``XREAD``: the
projector adds an entry ``{game, version, players}`` to it with every read-model write of a game
with seated players (in the write's atomic step, ``workers.projection``), so the player streams
(``/me/events``, ``api.presence``) learn that the inboxes of those players may have changed
once the read models show it, not at the append. A watched player's ``version`` counts the
entries that named them since this process first watched them; the games of the latest are
kept (``Watch.changes``). Their streams then re-read the inbox count, once per player and
change (``Watch.read``).

The side feed (``keys.SIDE_FEED``: a chat message, a rematch offered, ``services.chat``) is
followed in the same ``XREAD`` too: each entry names a game, whose ``side`` count then grows and
whose streams wake (``Watch.wait`` with ``side``), to read what changed beside the events.

The reader is a daemon thread (a greenlet under gunicorn's gevent worker, which patches
``threading``) started by the first ``watch()``; it stops within one ``BLOCK_MS`` once no game
and no player is watched. Under Redis Cluster the feed is one stream per slot
(``services.keys``): the reader would then follow the feeds of each node, as the projector does.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import redis

from services import keys, shards
from services.errors import Unavailable
from services.store import unavailable

log = logging.getLogger(__name__)

T = TypeVar("T")

READERS = 16  # streams reading the store at once
BLOCK_MS = 1000  # one XREAD's longest wait: below redis-py's socket timeout (5 s by default)
BATCH = 1000  # feed entries per XREAD
FEEDS = shards.keys(keys.FEED)  # one XREAD follows every shard's feed: one server, no slots
PAUSES = (0.1, 2.0)  # seconds between attempts while the store fails: first, longest
RECENT = 64  # a watched player's latest changes kept (``Watch.changes``)


class _Game:
    """A watched game or player: how many streams watch it, the highest version seen since (a
    player's: how many inbox-feed entries named them), what streams read since
    (``Watch.read``); a player's latest changes: (version, inbox-feed entry id, game id, game
    version)."""

    __slots__ = ("changed", "reads", "recent", "side", "version", "watchers")

    def __init__(self, lock: threading.Lock) -> None:
        self.watchers = 0
        self.version = 0
        self.side = 0  # side-feed entries of the game seen since it was first watched
        self.changed = threading.Condition(lock)
        self.reads: dict[Hashable, Any] = {}
        self.recent: deque[tuple[int, bytes, str, int]] = deque(maxlen=RECENT)


class Fanout:
    def __init__(self, client: redis.Redis, readers: int = READERS) -> None:
        self._redis = client
        self._readers = threading.BoundedSemaphore(readers)
        self._lock = threading.Lock()  # guards everything below; the games' conditions share it
        self._starting = threading.Lock()  # one reader at a time is started
        self._games: dict[str, _Game] = {}
        self._players: dict[str, _Game] = {}
        self._running = False
        # feed -> the id of its last entry read (every shard's: ``FEEDS``)
        self._positions = dict.fromkeys(FEEDS, b"0-0")
        self._inbox_position = b"0-0"  # the id of the last inbox-feed entry read
        self._side_position = b"0-0"  # the id of the last side-feed entry read
        self._failures = 0  # how often the reader lost the store
        self._down = False  # the reader's last attempt failed

    def watch(self, game_id: str) -> Watch:
        """Follow ``game_id`` from now on (close the watch when the stream ends). Raises
        ``Unavailable`` if the reader must start and the store does not answer."""
        return self._watch(self._games, game_id)

    def watch_player(self, player_id: str) -> Watch:
        """Follow the changes of ``player_id``'s inbox from now on (``Watch.start`` is the
        player's version now), as ``watch``."""
        return self._watch(self._players, player_id)

    def _watch(self, table: dict[str, _Game], name: str) -> Watch:
        with self._lock:
            game = table.get(name)
            if game is None:
                game = table[name] = _Game(self._lock)
            game.watchers += 1
            watch = Watch(self, table, name, game)
        try:
            self._ensure_reader()
        except BaseException:
            watch.close()
            raise
        with self._lock:
            watch.position = self._inbox_position
        return watch

    @contextmanager
    def reading(self) -> Iterator[None]:
        """Hold one of the ``readers`` places for a stream's reads of the store (waits for
        one)."""
        with self._readers:
            yield

    def watched(self) -> int:
        """How many games are watched (for tests and figures)."""
        with self._lock:
            return len(self._games)

    @property
    def running(self) -> bool:
        """The reader runs (it stops once nothing is watched)."""
        with self._lock:
            return self._running

    def _ensure_reader(self) -> None:
        with self._starting:
            with self._lock:
                if self._running:
                    return
            pipe = self._redis.pipeline(transaction=False)
            for feed in FEEDS:
                pipe.xrevrange(feed, count=1)
            pipe.xrevrange(keys.INBOX_FEED, count=1)
            pipe.xrevrange(keys.SIDE_FEED, count=1)
            with unavailable():
                *lasts, last_inbox, last_side = pipe.execute()
            with self._lock:
                self._positions = {
                    feed: last[0][0] if last else b"0-0"
                    for feed, last in zip(FEEDS, lasts, strict=True)
                }
                self._inbox_position = last_inbox[0][0] if last_inbox else b"0-0"
                self._side_position = last_side[0][0] if last_side else b"0-0"
                self._running, self._down = True, False
            threading.Thread(target=self._read, name="omerta-fanout", daemon=True).start()

    def _read(self) -> None:
        pause = PAUSES[0]
        while True:
            with self._lock:
                if not self._games and not self._players:
                    self._running = False
                    return
                positions = {
                    **self._positions,
                    keys.INBOX_FEED: self._inbox_position,
                    keys.SIDE_FEED: self._side_position,
                }
            try:
                found = self._redis.xread(positions, count=BATCH, block=BLOCK_MS)
            except Exception:  # the store (or a bug): end the waits, try again later
                log.warning("the live-event reader lost the store", exc_info=True)
                with self._lock:
                    self._failures += 1
                    self._down = True
                    for game in [*self._games.values(), *self._players.values()]:
                        game.changed.notify_all()
                time.sleep(pause)
                pause = min(pause * 2, PAUSES[1])
                continue
            pause = PAUSES[0]
            with self._lock:
                self._down = False
                for key, entries in found or ():
                    if key.decode() == keys.INBOX_FEED:
                        self._inboxes_changed(entries)
                        continue
                    if key.decode() == keys.SIDE_FEED:
                        self._sides_changed(entries)
                        continue
                    for entry_id, fields in entries:
                        self._positions[key.decode()] = entry_id
                        game = self._games.get(fields[b"game"].decode())
                        version = int(fields[b"version"])
                        if game is not None and version > game.version:
                            game.version = version
                            game.reads.clear()
                            game.changed.notify_all()

    def _inboxes_changed(self, entries: list[tuple[bytes, dict[bytes, bytes]]]) -> None:
        """Wake the streams of the players the inbox-feed entries name (the lock is held)."""
        for entry_id, fields in entries:
            self._inbox_position = entry_id
            game_id, version = fields[b"game"].decode(), int(fields[b"version"])
            for player_id in fields[b"players"].decode().split(","):
                player = self._players.get(player_id)
                if player is not None:
                    player.version += 1
                    player.recent.append((player.version, entry_id, game_id, version))
                    player.reads.clear()
                    player.changed.notify_all()

    def _sides_changed(self, entries: list[tuple[bytes, dict[bytes, bytes]]]) -> None:
        """Wake the streams of the games the side-feed entries name (the lock is held)."""
        for entry_id, fields in entries:
            self._side_position = entry_id
            game = self._games.get(fields[b"game"].decode())
            if game is not None:
                game.side += 1
                game.reads.clear()
                game.changed.notify_all()

    def _wait(self, game: _Game, after: int, timeout: float, side: int | None) -> bool:
        deadline = time.monotonic() + timeout
        with self._lock:
            failures = self._failures
            while True:
                if self._down or self._failures != failures:
                    raise Unavailable("the live-event reader lost the event store")
                if game.version > after or (side is not None and game.side > side):
                    return True
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                game.changed.wait(remaining)

    def _unwatch(self, table: dict[str, _Game], name: str, game: _Game) -> None:
        with self._lock:
            game.watchers -= 1
            if game.watchers == 0 and table.get(name) is game:
                del table[name]


class Watch:
    """One stream's hold on a watched game or player."""

    def __init__(self, fanout: Fanout, table: dict[str, _Game], name: str, game: _Game) -> None:
        self._fanout = fanout
        self._table = table
        self._name = name
        self._game = game
        self._closed = False
        self.start = game.version  # (made under the fan-out's lock)
        # The reader's place in the inbox feed once it follows this watch: the entries after it
        # wake the watch.
        self.position = b"0-0"

    def wait(self, after: int, timeout: float, side: int | None = None) -> bool:
        """True as soon as the game has a version after ``after`` (at once if it already has
        one since the watch began), or with ``side`` a side count past it; False after
        ``timeout`` seconds without. Raises ``Unavailable`` if the reader cannot read the store,
        or could not meanwhile."""
        return self._fanout._wait(self._game, after, timeout, side)

    @property
    def side(self) -> int:
        """The watched game's side-feed entries seen so far (``wait``'s ``side``)."""
        with self._fanout._lock:
            return self._game.side

    def read(self, key: Hashable, read: Callable[[], T]) -> T:
        """``read()`` in one of the reading places, or what it gave another stream of this game
        with the same ``key`` since the reader last saw the game move. What a stream reads
        depends on its seat and the version it has sent, and only changes when the game moves:
        the streams that one move wakes read once per ``key``. A result from before an append
        whose feed entry the reader has not seen yet is no loss: that entry wakes the waits."""
        fanout, game = self._fanout, self._game
        with fanout._readers:
            with fanout._lock:
                version = game.version
                if key in game.reads:
                    return game.reads[key]
            result = read()
            with fanout._lock:
                if game.version == version:
                    game.reads[key] = result
            return result

    def changes(self, after: int) -> tuple[int, bytes | None, dict[str, int]]:
        """A watched player's version now, the id of the last inbox-feed entry after ``after``
        (None: none), and the games (id -> latest version) of those entries that this process
        still keeps (the last ``RECENT``)."""
        with self._fanout._lock:
            changed: dict[str, int] = {}
            last = None
            for seen, entry_id, game_id, version in self._game.recent:
                if seen > after:
                    changed[game_id] = max(version, changed.get(game_id, 0))
                    last = entry_id
            return self._game.version, last, changed

    def close(self) -> None:
        """Stop watching (again: nothing)."""
        if not self._closed:
            self._closed = True
            self._fanout._unwatch(self._table, self._name, self._game)
