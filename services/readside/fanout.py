"""One reader of the store per web process (on a cluster: one per shard being watched), waking the
live-event streams (``api.live.sse``) whose game has a new version: an open stream costs no Redis
connection.

Every append adds one entry ``{game, version}`` to its game's shard feed (``feed:{<tag>}``,
``services.eventstore.shards``) in the same atomic step (``services.eventstore.store``). The reader
follows the feeds with a blocking ``XREAD`` (a connection of the pool, for as long as it blocks) and
keeps, for each game a stream of this process watches, the highest version seen; entries of other
games are skipped. A stream waits on a condition until its game passes the version it last sent,
then reads its records through the service, holding one of ``readers`` places (``Watch.read``;
``Fanout.reading`` for a stream's start): a move in a game that thousands of pages watch wakes them
all at once, and thousands of pages reconnect at once after a restart; each would otherwise take a
connection of the pool at the same moment. The streams of one game that one move wakes, at the same
version and seat, share one read.

Which feeds one ``XREAD`` follows (a ``_Reader``):

* on one server, every shard's feeds in one ``XREAD`` (one connection, whatever the number of
  watched games; the keys never change, so a new watch needs no new ``XREAD``);
* on a cluster, which refuses a command over keys of several slots, one reader per shard that
  this process watches a game or player of, following that shard's three feeds (their keys
  share the shard's tag: one slot). It starts with the first watch of its shard and stops within
  one ``BLOCK_MS`` of the last one's end: at most 64 readers however many streams are open, 64
  blocked connections of the cluster client's pools, one pool of at most 100 (redis-py's
  default) per node: on 3 masters about 21 of a master's pool, the rest left to requests and to
  the ``readers`` places.

Nothing is missed between a stream's read and its wait: ``watch()`` returns only once its
reader's position in the feeds is fixed, and the stream reads its records after that, so every
append after that read has its feed entry after the position. A reader that loses the store
goes on from its position when the store answers again (the feeds keep their entries);
meanwhile ``Watch.wait`` raises ``Unavailable`` (also to a wait begun before the loss) on the
watches it serves, so that streams end and browsers reconnect rather than wait on a reader that
sees nothing.

The same reader follows the shard's inbox feed (``keys.inbox_feed_key``): the projector adds an
entry ``{game, version, players}`` to the inbox feed of a player's shard with every write of that
player's inbox (``workers.projection.projector``), so the player streams (``/me/events``,
``api.live.presence``) learn that the inbox of that player may have changed once the read models
show it, not at the append. A watched player's ``version`` counts the entries that named them since
this process first watched them; the games of the latest are kept (``Watch.changes``). Their streams
then re-read the inbox count, once per player and change (``Watch.read``). ``Watch.position`` is the
reader's place in the player's inbox feed when the watch began (the first message's id, from which a
reconnecting stream resumes: ``ReadModels.inbox_changes``).

The side feed of the game's shard (``keys.side_feed_key``: a chat message, a rematch offered,
``services.games.chat``) is followed in the same ``XREAD`` too: each entry names a game, whose
``side`` count then grows and whose streams wake (``Watch.wait`` with ``side``), to read what
changed beside the events.

A reader is a daemon thread (a greenlet under gunicorn's gevent worker, which patches
``threading``).

When the process is asked to stop (gunicorn's graceful shutdown: ``api.serving.problemworker``),
``close()`` ends every wait with ``Closing``, also the waits begun later: the streams end at
once, telling the browser to reconnect (to another process), instead of holding the process
until the shutdown's timeout cuts them.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar, cast

from redis.cluster import RedisCluster
from redis.typing import KeyT, StreamIdT

from services.errors import Unavailable
from services.eventstore import keys, shards
from services.eventstore.store import unavailable
from services.platform.config import Store

log = logging.getLogger(__name__)

T = TypeVar("T")

READERS = 16  # streams reading the store at once
BLOCK_MS = 1000  # one XREAD's longest wait: below redis-py's socket timeout (5 s by default)
BATCH = 1000  # feed entries per XREAD (per feed)
PAUSES = (0.1, 2.0)  # seconds between attempts while the store fails: first, longest
RECENT = 64  # a watched player's latest changes kept (``Watch.changes``)
EVERY_SHARD = -1  # the group of a single server's one reader


class Closing(Exception):
    """The process is stopping: end the stream, the client reconnects elsewhere."""


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


class _Reader:
    """One ``XREAD`` loop over the feeds of ``shards`` (its fields are guarded by the fan-out's
    lock): the id of the last entry read of each feed, how many watches it serves, whether its
    thread runs, whether its last attempt failed and how often it lost the store."""

    def __init__(self, of: list[int]) -> None:
        self.kinds: dict[bytes, str] = {}
        for shard in of:
            self.kinds[keys.shard_feed_key(shard).encode()] = keys.FEED
            self.kinds[keys.inbox_feed_key(shard).encode()] = keys.INBOX_FEED
            self.kinds[keys.side_feed_key(shard).encode()] = keys.SIDE_FEED
        self.positions = dict.fromkeys(self.kinds, b"0-0")
        self.watchers = 0
        self.running = False
        self.down = False
        self.failures = 0
        self.starting = threading.Lock()  # one thread at a time is started


class Fanout:
    def __init__(self, client: Store, readers: int = READERS) -> None:
        self._redis = client
        self._per_shard = isinstance(client, RedisCluster)  # a cluster: one reader per shard
        self._readers = threading.BoundedSemaphore(readers)
        self._lock = threading.Lock()  # guards everything below; the games' conditions share it
        self._games: dict[str, _Game] = {}
        self._players: dict[str, _Game] = {}
        self._feeds: dict[int, _Reader] = {}  # group (a shard, or EVERY_SHARD) -> its reader
        self._closing = False

    def watch(self, game_id: str) -> Watch:
        """Follow ``game_id`` from now on (close the watch when the stream ends). Raises
        ``Unavailable`` if the reader must start and the store does not answer."""
        return self._watch(self._games, game_id)

    def watch_player(self, player_id: str) -> Watch:
        """Follow the changes of ``player_id``'s inbox from now on (``Watch.start`` is the
        player's version now), as ``watch``."""
        return self._watch(self._players, player_id)

    def _watch(self, table: dict[str, _Game], name: str) -> Watch:
        shard = shards.of(name)
        group = shard if self._per_shard else EVERY_SHARD
        with self._lock:
            game = table.get(name)
            if game is None:
                game = table[name] = _Game(self._lock)
            game.watchers += 1
            reader = self._feeds.get(group)
            if reader is None:
                of = [shard] if self._per_shard else list(range(shards.SHARDS))
                reader = self._feeds[group] = _Reader(of)
            reader.watchers += 1
            watch = Watch(self, table, name, game, reader)
        try:
            self._ensure_reader(reader)
        except BaseException:
            watch.close()
            raise
        with self._lock:
            watch.position = reader.positions[keys.inbox_feed_key(shard).encode()]
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
    def running(self) -> int:
        """How many readers run (each stops once nothing of its shards is watched)."""
        with self._lock:
            return sum(reader.running for reader in self._feeds.values())

    def close(self) -> None:
        """End every stream's wait, now and from now on (``Closing``): the process stops."""
        with self._lock:
            self._closing = True
            for game in [*self._games.values(), *self._players.values()]:
                game.changed.notify_all()

    def _ensure_reader(self, reader: _Reader) -> None:
        with reader.starting:
            with self._lock:
                if reader.running:
                    return
            feeds = list(reader.kinds)
            pipe = self._redis.pipeline(transaction=False)
            for feed in feeds:
                pipe.xrevrange(feed, count=1)
            with unavailable():
                lasts = pipe.execute()
            with self._lock:
                reader.positions = {
                    feed: last[0][0] if last else b"0-0"
                    for feed, last in zip(feeds, lasts, strict=True)
                }
                reader.running, reader.down = True, False
            threading.Thread(
                target=self._read, args=(reader,), name="omerta-fanout", daemon=True
            ).start()

    def _read(self, reader: _Reader) -> None:
        pause = PAUSES[0]
        while True:
            with self._lock:
                if not reader.watchers:
                    reader.running = False
                    return
                # A copy (the positions change under the lock), typed as wide as xread's
                # parameter: a dict is invariant in its types.
                positions = cast(dict[KeyT, StreamIdT], dict(reader.positions))
            try:
                found = cast(
                    list[tuple[bytes, list[tuple[bytes, dict[bytes, bytes]]]]] | None,
                    self._redis.xread(positions, count=BATCH, block=BLOCK_MS),
                )
            except Exception:  # the store (or a bug): end the waits, try again later
                log.warning("the live-event reader lost the store", exc_info=True)
                with self._lock:
                    reader.failures += 1
                    reader.down = True
                    for game in [*self._games.values(), *self._players.values()]:
                        game.changed.notify_all()
                time.sleep(pause)
                pause = min(pause * 2, PAUSES[1])
                continue
            pause = PAUSES[0]
            with self._lock:
                reader.down = False
                for key, entries in found or ():
                    if not entries:
                        continue
                    reader.positions[key] = entries[-1][0]
                    kind = reader.kinds[key]
                    if kind == keys.INBOX_FEED:
                        self._inboxes_changed(entries)
                    elif kind == keys.SIDE_FEED:
                        self._sides_changed(entries)
                    else:
                        self._games_moved(entries)

    def _games_moved(self, entries: list[tuple[bytes, dict[bytes, bytes]]]) -> None:
        """Wake the streams of the games whose feed entries pass their version (the lock is
        held)."""
        for _, fields in entries:
            game = self._games.get(fields[b"game"].decode())
            version = int(fields[b"version"])
            if game is not None and version > game.version:
                game.version = version
                game.reads.clear()
                game.changed.notify_all()

    def _inboxes_changed(self, entries: list[tuple[bytes, dict[bytes, bytes]]]) -> None:
        """Wake the streams of the players the inbox-feed entries name (the lock is held)."""
        for entry_id, fields in entries:
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
        for _, fields in entries:
            game = self._games.get(fields[b"game"].decode())
            if game is not None:
                game.side += 1
                game.reads.clear()
                game.changed.notify_all()

    def _wait(
        self, game: _Game, reader: _Reader, after: int, timeout: float, side: int | None
    ) -> bool:
        deadline = time.monotonic() + timeout
        with self._lock:
            failures = reader.failures
            while True:
                if self._closing:
                    raise Closing("the process is stopping")
                if reader.down or reader.failures != failures:
                    raise Unavailable("the live-event reader lost the event store")
                if game.version > after or (side is not None and game.side > side):
                    return True
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                game.changed.wait(remaining)

    def _unwatch(self, table: dict[str, _Game], name: str, game: _Game, reader: _Reader) -> None:
        with self._lock:
            game.watchers -= 1
            reader.watchers -= 1
            if game.watchers == 0 and table.get(name) is game:
                del table[name]


class Watch:
    """One stream's hold on a watched game or player."""

    def __init__(
        self, fanout: Fanout, table: dict[str, _Game], name: str, game: _Game, reader: _Reader
    ) -> None:
        self._fanout = fanout
        self._table = table
        self._name = name
        self._game = game
        self._reader = reader
        self._closed = False
        self.start = game.version  # (made under the fan-out's lock)
        # The reader's place in the inbox feed of the name's shard once it follows this watch:
        # the entries after it wake the watch.
        self.position = b"0-0"

    def wait(self, after: int, timeout: float, side: int | None = None) -> bool:
        """True as soon as the game has a version after ``after`` (at once if it already has
        one since the watch began), or with ``side`` a side count past it; False after
        ``timeout`` seconds without. Raises ``Unavailable`` if the reader cannot read the store,
        or could not meanwhile, and ``Closing`` once the process stops (``Fanout.close``)."""
        return self._fanout._wait(self._game, self._reader, after, timeout, side)

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
            self._fanout._unwatch(self._table, self._name, self._game, self._reader)
