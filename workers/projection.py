"""The projection: a game's events (and its seat records) into its read models.

``Projector.project(game_id)`` folds the events past its cached state, builds every read model
of the game at the stream's head (``services.readmodels`` lists the keys) and writes them with
one Lua script that first compares the checkpoint: the write happens only if (version, seats
taken) is greater than what is stored. So running a projection twice, late, or concurrently with
another changes nothing, and a checkpoint never moves backwards.

Everything written is a function of the event log and the seat records alone (times are the
events' own), which is what lets ``omerta rebuild`` reproduce it byte for byte.

Under Redis Cluster the script would have to be split: it touches the global indexes (lobby,
inboxes, status sets, the inbox feed) as well as the game's own hash, which is fine on one
server (this deployment) and is the one place to change for a cluster.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

import msgspec
import redis

from domain import GAMES
from domain.core import Game
from services import keys
from services import readmodels as rm
from services.codec import EventCodec
from services.players import public_key, seats_key
from services.records import Entry, GameMeta, decode_meta
from services.rematch import reserved_key
from services.statecache import StateCache
from services.store import EventStore, entries_of, unavailable

# KEYS[1]: the game's read-model hash, KEYS[2] the inbox feed.  ARGV: version, seated, indexes
# JSON, the seated players (comma-separated), number of hash fields n, then n (field, value)
# pairs, then (key, score, member) index entries. A write with seated players adds an entry
# {game, version, players} to the inbox feed: their inboxes may have changed (``services.fanout``
# wakes their open player streams; the game id is KEYS[1]'s hash tag).
# Only what changed is written: every write lands in the AOF (an index entry ZADDed again with
# its score changes nothing and is not logged; an HSET always is, so unchanged fields are
# skipped), and a game's read model is rewritten on nearly every command.
WRITE = """
local stored = redis.call('HMGET', KEYS[1], 'version', 'seated', 'indexes')
local version, seated = tonumber(ARGV[1]), tonumber(ARGV[2])
local old_version, old_seated = tonumber(stored[1] or '-1'), tonumber(stored[2] or '-1')
if old_version > version or (old_version == version and old_seated >= seated) then
  return 0
end
local first_index = 6 + 2 * tonumber(ARGV[5])
if stored[3] and stored[3] ~= ARGV[3] then
  local kept = {}
  for i = first_index, #ARGV, 3 do kept[ARGV[i] .. '\0' .. ARGV[i + 2]] = true end
  for _, entry in ipairs(cjson.decode(stored[3])) do
    if not kept[entry[1] .. '\0' .. entry[2]] then redis.call('ZREM', entry[1], entry[2]) end
  end
end
for i = 6, first_index - 1, 2 do
  if redis.call('HGET', KEYS[1], ARGV[i]) ~= ARGV[i + 1] then
    redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
  end
end
for i = first_index, #ARGV, 3 do
  redis.call('ZADD', ARGV[i], ARGV[i + 1], ARGV[i + 2])
end
redis.call('HSET', KEYS[1], 'version', version)
if old_seated ~= seated then redis.call('HSET', KEYS[1], 'seated', seated) end
if stored[3] ~= ARGV[3] then redis.call('HSET', KEYS[1], 'indexes', ARGV[3]) end
if ARGV[4] ~= '' then
  redis.call('XADD', KEYS[2], 'MAXLEN', '~', INBOX_FEED_KEEP, '*',
             'game', string.sub(KEYS[1], 5, -2), 'version', version, 'players', ARGV[4])
end
return 1
"""

INBOX_FEED_KEEP = 10_000
"""Entries the inbox feed keeps (``MAXLEN ~``): its readers (the web processes' player streams,
``services.fanout``) follow it live, within seconds; a reconnecting page reads its count anew."""
WRITE = WRITE.replace("INBOX_FEED_KEEP", str(INBOX_FEED_KEEP))

_json = msgspec.json.Encoder()


class Folded(NamedTuple):
    """A game folded up to ``version``: the state, the time of the last event, and since when
    each seat owing a decision has owed it (evaluated after each command's events)."""

    meta: GameMeta
    version: int
    state: Any
    updated: int
    head: bytes
    due: dict[int, int]


class Projected(NamedTuple):
    version: int
    written: bool  # False: the stored read model was already as new (nothing changed)
    ai_due: list[int]  # AI seats owing a decision at ``version``


class Seating(NamedTuple):
    owners: dict[int, str]  # seat -> player id, taken seats
    public: bool
    reserved: dict[int, str] = {}  # seat -> player id: a rematch's seats kept for their players


class Projector:
    """Projects games; keeps the latest folded state of recently projected games (an LRU) so a
    projection reads only the new events. Thread-safe."""

    def __init__(
        self, store: EventStore, games: Mapping[str, Game] = GAMES, cache_size: int = 1024
    ) -> None:
        self.store = store
        self.redis: redis.Redis = store.redis
        self.games = games
        self._write = self.redis.register_script(WRITE)
        self._codecs: dict[str, EventCodec] = {}
        self._cache: StateCache[Folded] = StateCache(cache_size)
        # Told (stored summary, new summary) before each write: the notifications' hook.
        self.on_change: Callable[[rm.Summary | None, rm.Summary], None] | None = None

    def project(self, game_id: str) -> Projected | None:
        """Bring the game's read models up to its stream's head; None for an unknown game.

        One round trip reads the checkpoint, the seats and the events past the cached state
        (all of them, and the metadata, for a game not in the cache)."""
        cached = self._cache.get(game_id)
        pipe = self.redis.pipeline(transaction=False)
        pipe.hmget(rm.game_key(game_id), ["version", "seated", "summary", "progress"])
        pipe.hgetall(seats_key(game_id))
        pipe.get(public_key(game_id))
        pipe.hgetall(reserved_key(game_id))
        # From the cached head itself: a store that came back older no longer has it.
        after = 0 if cached is None else max(cached.version - 1, 0)
        pipe.xrange(keys.events_key(game_id), f"{after + 1}-0", "+")
        if cached is None:
            pipe.get(keys.meta_key(game_id))
        with unavailable():
            (stored, seated, *before), seats, public, reserved, rows, *meta = pipe.execute()
        entries = entries_of(rows)
        if cached is None:
            if meta[0] is None:
                return None
            cached = Folded(decode_meta(meta[0]), 0, None, 0, b"", {})
        elif entries and entries[0].hash == cached.head:
            entries = entries[1:]
        else:  # restored from an older backup, or a lagging replica took over: fold anew
            self._cache.forget(game_id, cached)
            cached = Folded(cached.meta, 0, None, 0, b"", {})
            entries = self.store.read(game_id)
        folded = cached
        if entries:
            folded = self._cache.remember(game_id, self._fold(cached, entries))
        elif not folded.version:
            return None  # no events: not a game (creation stores both at once)
        seating = Seating(
            {int(s): p.decode() for s, p in seats.items()},
            public == b"1",
            {int(s): p.decode() for s, p in reserved.items()},
        )
        checkpoint = (-1, -1) if stored is None else (int(stored), int(seated))
        if checkpoint >= (folded.version, len(seating.owners)):
            return Projected(checkpoint[0], False, [])
        ai_due = sorted(s for s in folded.due if s in folded.meta.ai)
        written = self.write(game_id, folded, seating, rm.joined(*before))
        return Projected(folded.version, written, ai_due)

    def write(
        self, game_id: str, folded: Folded, seating: Seating, before: rm.Summary | None = None
    ) -> bool:
        """Write the read models at ``folded`` unless the stored ones are as new (the script
        decides, atomically); whether anything was written.

        First, ``on_change`` (the notifications, ``workers.notify``) is told the change from
        ``before`` (the stored summary): before the write, so a projection that dies between
        the two loses no notification (the next one, finding the old read model, tells it
        again; the notifications' delivery ids make that harmless)."""
        fields, indexes = read_models(game_id, self.games[folded.meta.game], folded, seating)
        if self.on_change is not None:
            after = rm.joined(fields["summary"], fields["progress"])
            assert after is not None
            self.on_change(before, after)
        args: list[Any] = [
            folded.version,
            len(seating.owners),
            _json.encode([[key, member] for key, _, member in indexes]),
            ",".join(sorted(set(seating.owners.values()))),
            len(fields),
        ]
        for field, value in fields.items():
            args += [field, value]
        for key, score, member in indexes:
            args += [key, score, member]
        with unavailable():
            return bool(self._write(keys=[rm.game_key(game_id), keys.INBOX_FEED], args=args))

    def fold_until(self, game_id: str, version: int) -> Folded:
        """The game folded from its first event up to ``version`` (a command boundary), without
        the cache: what a projection that ran at that version saw."""
        meta = self.store.meta(game_id)
        assert meta is not None, f"no game {game_id}"
        return self._fold(Folded(meta, 0, None, 0, b"", {}), self.store.read(game_id)[:version])

    def _fold(self, folded: Folded, entries: list[Entry]) -> Folded:
        game = self.games[folded.meta.game]
        codec = self._codecs.get(game.name)
        if codec is None:
            codec = self._codecs[game.name] = EventCodec(game)
        state, version, due = folded.state, folded.version, dict(folded.due)
        for i, entry in enumerate(entries):
            envelope = entry.envelope
            version += 1
            if envelope.version != version:
                raise RuntimeError(f"{envelope.game_id}: stored version {envelope.version}")
            state = game.evolve(state, codec.decode(envelope))
            following = entries[i + 1].envelope if i + 1 < len(entries) else None
            last_of_command = following is None or (  # ids are unique per seat, not per game
                (following.actor, following.command_id) != (envelope.actor, envelope.command_id)
            )
            if last_of_command:  # a command's events are appended together: judge after them
                owing = game.to_act(state)
                due = {s: due.get(s, envelope.time) for s in sorted(owing)}
        last = entries[-1]
        return Folded(folded.meta, version, state, last.envelope.time, last.hash, due)


FEED_KEEP_MS = 60_000
"""How far behind the catch-up's cursor the feed is kept: for other readers of the feed (the
web processes' live-event streams), which follow it from where they are and may lag a little."""


def trim_feed(client: redis.Redis, cursor: str, keep_ms: int = FEED_KEEP_MS) -> int:
    """Drop the feed's entries older than ``keep_ms`` before ``cursor`` (the catch-up's
    checkpoint: the slowest reader that must see every entry; feed ids are ms-seq); how many
    went. Every append adds an entry: untrimmed, the feed grows with every move ever made."""
    millis = int(cursor.split("-")[0]) - keep_ms
    if millis <= 0:
        return 0
    with unavailable():
        return int(client.xtrim(keys.FEED, minid=f"{millis}-0", approximate=False))


def read_models(
    game_id: str, game: Game, folded: Folded, seating: Seating
) -> tuple[dict[str, bytes], list[tuple[str, int, str]]]:
    """The game's hash fields and its index entries (key, score, member) at ``folded``."""
    meta, state = folded.meta, folded.state
    result = game.result(state)
    seats = [_seat(s, meta, seating) for s in range(meta.seats)]
    open_seats = [s.seat for s in seats if s.kind == "open"]
    summary = rm.Summary(
        game_id=game_id,
        game=meta.game,
        version=folded.version,
        head=folded.head.hex(),
        created=meta.created,
        updated=folded.updated,
        options=meta.options,
        seats=seats,
        public=seating.public,
        status="running" if result is None else "finished",
        to_act=sorted(folded.due),
        due=folded.due,
        result=result,
    )
    views = [_json.encode(game.view(state, seat)) for seat in range(meta.seats)]
    fields = {
        **rm.summary_fields(summary),
        rm.VIEWS: rm.pack_views(_json.encode(game.view(state, None)), views),
    }

    indexes: list[tuple[str, int, str]] = []
    if result is not None:
        indexes.append((rm.FINISHED, folded.updated, game_id))
        return fields, indexes
    indexes.append((rm.RUNNING, meta.created, game_id))
    if seating.public and open_seats:
        indexes.append((rm.LOBBY, meta.created, game_id))
    for seat, since in folded.due.items():
        indexes.append((rm.DUE, since, rm.due_member(game_id, seat)))
        owner = seating.owners.get(seat)
        if owner is not None:
            indexes.append((rm.inbox_key(owner), since, game_id))
    ai_since = [since for seat, since in folded.due.items() if seat in meta.ai]
    if ai_since:
        indexes.append((rm.AI_DUE, min(ai_since), game_id))
    return fields, indexes


def _seat(seat: int, meta: GameMeta, seating: Seating) -> rm.SeatSummary:
    if seat in meta.ai:
        return rm.SeatSummary(seat, "ai", level=meta.ai[seat])
    owner = seating.owners.get(seat)
    if owner is not None:
        return rm.SeatSummary(seat, "player", player=owner)
    if seat in seating.reserved:
        return rm.SeatSummary(seat, "reserved", player=seating.reserved[seat])
    return rm.SeatSummary(seat, "open")
