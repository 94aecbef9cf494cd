"""The projection: a game's events (and its seat records) into its read models.

``Projector.project(game_id)`` folds the events past its cached state, builds every read model
of the game at the stream's head (``workers.projection.readmodel``;
``services.readside.readmodels`` lists the keys)
and writes them in single-slot steps that each first compare the checkpoint (version, seats
taken, clock revision): a step writes only if it is greater than what that step stored. So
running a projection twice, late, or concurrently with another changes nothing, and a checkpoint
never moves backwards.

On a Redis Cluster every script touches one slot. A game's read model and its entries in its
shard's indexes (lobby, status lists, due sets, deadlines) share the game's slot
(``services.eventstore.shards``): one script (``WRITE``). Each seated player's inbox is in the
player's slot: a step of its own per player (``INBOX``, with the player's shard's inbox feed), all
done before the game's script, so a projection that dies between them leaves the game's checkpoint
where it was and the next projection does them again (the inboxes it already wrote refuse it).

Everything written is a function of the event log and the seat records alone (times are the
events' own), which is what lets ``omerta rebuild`` reproduce it byte for byte.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import msgspec

from domain import GAMES
from domain.core import Game
from services.eventstore import keys, shards
from services.eventstore.codec import EventCodec
from services.eventstore.records import Entry, decode_meta
from services.eventstore.store import EventStore, entries_of, unavailable
from services.games import rematch, seats, vacation
from services.games.clocks import SeatClock
from services.games.seating import ai_levels
from services.games.statecache import StateCache
from services.notify.notifications import as_created
from services.platform.config import Store
from services.readside import readmodels as rm
from workers.projection.readmodel import Folded, Seating, game_clocks, read_models, unjoined

# KEYS[1]: the game's read-model hash, KEYS[2..8] its shard's indexes (``INDEXES``, in that
# order: all in the game's slot). ARGV: version, seated, indexes JSON, number of hash fields n, the
# clock revision (``services.games.vacation.clock_rev_key``: vacations change clocks without an
# event), then n (field, value) pairs, then (key, score, member) index entries. The checkpoint is
# (version, seated, clock revision). Stale index entries (in the stored indexes JSON, not in the new
# one) are removed from the shard's indexes; entries naming other keys (a read model written before
# the shards: the single lists, the inboxes) are left alone: the inboxes are the players' own steps'
# (``INBOX``), the single lists are read no more (``omerta rebuild`` drops them). Only what changed
# is written: every write lands in the AOF (an index entry ZADDed again with its score changes
# nothing and is not logged; an HSET always is, so unchanged fields are skipped), and a game's read
# model is rewritten on nearly every command.
WRITE = """
local stored = redis.call('HMGET', KEYS[1], 'version', 'seated', 'indexes', 'clockrev')
local version, seated, rev = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[5])
local old_version, old_seated = tonumber(stored[1] or '-1'), tonumber(stored[2] or '-1')
local old_rev = tonumber(stored[4] or '0')
if old_version > version or (old_version == version and (old_seated > seated
    or (old_seated == seated and old_rev >= rev))) then
  return 0
end
local declared = {}
for i = 2, #KEYS do declared[KEYS[i]] = true end
local first_index = 6 + 2 * tonumber(ARGV[4])
for i = first_index, #ARGV, 3 do
  if not declared[ARGV[i]] then return redis.error_reply('not a shard index: ' .. ARGV[i]) end
end
if stored[3] and stored[3] ~= ARGV[3] then
  local kept = {}
  for i = first_index, #ARGV, 3 do kept[ARGV[i] .. '\0' .. ARGV[i + 2]] = true end
  for _, entry in ipairs(cjson.decode(stored[3])) do
    if declared[entry[1]] and not kept[entry[1] .. '\0' .. entry[2]] then
      redis.call('ZREM', entry[1], entry[2])
    end
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
if old_rev ~= rev then redis.call('HSET', KEYS[1], 'clockrev', rev) end
if stored[3] ~= ARGV[3] then redis.call('HSET', KEYS[1], 'indexes', ARGV[3]) end
return 1
"""

INDEXES = (rm.RUNNING, rm.FINISHED, rm.LOBBY, rm.DUE, rm.AI_DUE, rm.DEADLINES, rm.UNJOINED)
"""The indexes a game's read model is listed in (each its shard's copy, ``rm.index_key``)."""

# One seated player's inbox, in the player's slot: KEYS[1] the inbox, KEYS[2] its checkpoints
# (game id -> "version:seated:clock revision" of the projection that last wrote the game's entry),
# KEYS[3] the inbox feed of the player's shard. ARGV: game id, version, seated, clock revision,
# since when the player owes a decision in the game ('': owes none), the player id. Written
# only past the stored checkpoint (a late or repeated projection changes nothing); then the
# entry {game, version, players} on the player's shard's inbox feed tells the player's open
# streams (``services.readside.fanout``) that their inbox may have changed. A ZADD of the same
# score and a ZREM of no entry are not logged in the AOF; the checkpoint is (it must move with every
# write, or a late projection could undo a newer one that changed nothing here).
INBOX = """
local stored = redis.call('HGET', KEYS[2], ARGV[1])
if stored then
  local v, s, r = string.match(stored, '^(%d+):(%d+):(%d+)$')
  v, s, r = tonumber(v), tonumber(s), tonumber(r)
  local version, seated, rev = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
  if v > version or (v == version and (s > seated or (s == seated and r >= rev))) then
    return 0
  end
end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2] .. ':' .. ARGV[3] .. ':' .. ARGV[4])
if ARGV[5] == '' then
  redis.call('ZREM', KEYS[1], ARGV[1])
else
  redis.call('ZADD', KEYS[1], ARGV[5], ARGV[1])
end
redis.call('XADD', KEYS[3], 'MAXLEN', '~', INBOX_FEED_KEEP, '*',
           'game', ARGV[1], 'version', ARGV[2], 'players', ARGV[6])
return 1
"""

INBOX_FEED_KEEP = 1_000
"""Entries each shard's inbox feed keeps (``MAXLEN ~``; 64,000 in all, where the single feed
kept 10,000: each shard's feed carries a 64th of the entries, so it keeps a longer stretch of
time). Its readers (the web processes' player streams, ``services.readside.fanout``) follow it live,
within seconds; a reconnecting page reads its count anew."""
INBOX = INBOX.replace("INBOX_FEED_KEEP", str(INBOX_FEED_KEEP))

_json = msgspec.json.Encoder()


class Projected(NamedTuple):
    version: int
    written: bool  # False: the stored read model was already as new (nothing changed)
    ai_due: list[int]  # AI seats owing a decision at ``version``


class Listener:
    """Told what a projection wrote (``Projector(listeners=...)``); each method does nothing
    unless overridden: the notifications (``workers.notify.notices``), the deadlines
    (``workers.clocks.deadlines``), the expiries (``workers.clocks.expiry``), the ratings
    (``workers.projection.ratings``)."""

    def on_change(self, before: rm.Summary, after: rm.Summary) -> None:
        """Told (stored summary, new summary) before each write."""

    def on_deadlines(self, game_id: str, version: int, seats: list[SeatClock]) -> None:
        """Told the seats with a deadline after each write."""

    def on_unjoined(self, game_id: str, created: int) -> None:
        """Told after each write of a game nobody joined yet."""

    def on_finished(self, game_id: str) -> None:
        """Told after a write of a finished game's read model (after it, so a rating job finds
        the result it rates)."""


class Projector:
    """Projects games; keeps the latest folded state of recently projected games (an LRU) so a
    projection reads only the new events. Thread-safe."""

    def __init__(
        self,
        store: EventStore,
        games: Mapping[str, Game] = GAMES,
        cache_size: int = 1024,
        listeners: Sequence[Listener] = (),
        from_archive: bool = False,
    ) -> None:
        self.store = store
        # Project archived games too (``omerta rebuild``); otherwise a game whose keys moved to
        # the archive is no game here: its read model is archived with it.
        self.from_archive = from_archive
        self.redis: Store = store.redis
        self.games = games
        self._write = self.redis.register_script(WRITE)
        self._codecs: dict[str, EventCodec] = {}
        self._cache: StateCache[Folded] = StateCache(cache_size)
        self.listeners = listeners

    def project(self, game_id: str) -> Projected | None:
        """Bring the game's read models up to its stream's head; None for an unknown game.

        One round trip reads the checkpoint, the seats and the events past the cached state
        (all of them, and the metadata, for a game not in the cache)."""
        cached = self._cache.get(game_id)
        pipe = self.redis.pipeline(transaction=False)
        pipe.hmget(rm.game_key(game_id), ["version", "seated", "clockrev", "summary", "progress"])
        read_table = seats.read_table(pipe, game_id)
        read_rev = vacation.read_clock_rev(pipe, game_id)
        read_reserved = rematch.read_reserved(pipe, game_id)
        # From the cached head itself: a store that came back older no longer has it.
        after = 0 if cached is None else max(cached.version - 1, 0)
        pipe.xrange(keys.events_key(game_id), f"{after + 1}-0", "+")
        if cached is None:
            pipe.get(keys.meta_key(game_id))
        with unavailable():
            found = iter(pipe.execute())
        stored, seated, stored_rev, *before = next(found)
        table, clock_rev, held = read_table(found), read_rev(found), read_reserved(found)
        rows, *meta = found
        entries = entries_of(rows)
        if cached is None:
            if meta[0] is None and self.from_archive and not rows:
                meta[0] = self._archived_meta(game_id)
                entries = self.store.read(game_id)
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
        owners = table.owners
        if checkpoint_of(stored, seated, stored_rev) >= (
            folded.version, len(owners), clock_rev
        ):  # fmt: skip
            return Projected(int(stored), False, [])
        seating = self.seating(game_id, folded, owners, table.public, clock_rev, held)
        ai_due = sorted(s for s in folded.due if s in ai_levels(folded.meta, folded.state))
        stored_summary = rm.joined(*before)
        if stored_summary is not None and not any(s.kind == "player" for s in stored_summary.seats):
            # Projected while its creation was being written (the creator always sits): the
            # creator's seat was shown open then, and is no join now.
            stored_summary = None
        creator = None
        if stored_summary is None and self.listeners:
            creator = self._creator(game_id, owners)
        written = self.write(game_id, folded, seating, stored_summary, creator)
        if written and self.listeners:
            deadlines = [c for c in game_clocks(folded, seating) if c.deadline is not None]
            if deadlines:
                for listener in self.listeners:
                    listener.on_deadlines(game_id, folded.version, deadlines)
        finished = self.games[folded.meta.game].result(folded.state) is not None
        unjoined_now = not finished and unjoined(folded.meta, folded.state, seating)
        for listener in self.listeners if written else ():
            if unjoined_now:
                listener.on_unjoined(game_id, folded.meta.created)
            if finished:
                listener.on_finished(game_id)
        return Projected(folded.version, written, ai_due)

    def _archived_meta(self, game_id: str) -> bytes | None:
        bundle = self.store.archived_bundle(game_id)
        return bundle.strings.get(keys.meta_key(game_id)) if bundle is not None else None

    def seating(
        self,
        game_id: str,
        folded: Folded,
        owners: dict[int, str],
        public: bool,
        rev: int,
        reserved: dict[int, str],
    ) -> Seating:
        """The seat records, with the clocks' inputs outside the stream (for a game with a
        clock): when the last seat was taken (each player's seat time, ``players``) and each
        seat's player's vacations."""
        meta = folded.meta
        people = [s for s in range(meta.seats) if s not in meta.ai]
        if meta.clock is None or any(s not in owners for s in people):
            return Seating(owners, public, rev, reserved=reserved)
        pipe = self.redis.pipeline(transaction=False)
        reads = [
            (
                seats.read_seated_at(pipe, owners[seat], game_id),
                vacation.read_periods(pipe, owners[seat]),
            )
            for seat in people
        ]
        with unavailable():
            found = iter(pipe.execute())
        records = [(seated_at(found), periods(found)) for seated_at, periods in reads]
        joined_at = [t for t, _ in records if t is not None]
        started = max([meta.created, *joined_at])
        paused = {s: periods for s, (_, periods) in zip(people, records, strict=True)}
        return Seating(owners, public, rev, started, paused, reserved)

    def _creator(self, game_id: str, owners: dict[int, str]) -> str | None:
        """Who of ``owners`` created the game: the first seated (the creator's game list has
        the game from its creation time, a joiner's from the join's); None if not known yet."""
        players = sorted(set(owners.values()))
        pipe = self.redis.pipeline(transaction=False)
        reads = [seats.read_seated_at(pipe, player_id, game_id) for player_id in players]
        with unavailable():
            found = iter(pipe.execute())
        times = [seated_at(found) for seated_at in reads]
        seated = [(t, p) for t, p in zip(times, players, strict=True) if t is not None]
        return min(seated)[1] if seated else None

    def write(
        self,
        game_id: str,
        folded: Folded,
        seating: Seating,
        before: rm.Summary | None = None,
        creator: str | None = None,
    ) -> bool:
        """Write the read models at ``folded`` unless the stored ones are as new (each step
        decides, atomically: the seated players' inboxes first, then the game's read model with
        its shard's indexes); whether the game's was written.

        First, the listeners' ``on_change`` (the notifications) are told the change from
        ``before`` (the stored summary; none stored: the game as ``creator`` made it,
        ``notifications.as_created``): before the write, so a projection that dies between
        the two loses no notification (the next one, finding the old read model, tells it
        again; the notifications' delivery ids make that harmless)."""
        models = read_models(game_id, self.games[folded.meta.game], folded, seating)
        if self.listeners:
            after = rm.joined(models.fields["summary"], models.fields["progress"])
            assert after is not None
            changed_from = before if before is not None else as_created(after, creator)
            for listener in self.listeners:
                listener.on_change(changed_from, after)
        checkpoint = (folded.version, len(seating.owners), seating.clock_rev)
        self._write_inboxes(game_id, checkpoint, models.inboxes)
        shard = shards.of(game_id)
        args: list[Any] = [
            *checkpoint[:2],
            _json.encode([[key, member] for key, _, member in models.indexes]),
            len(models.fields),
            seating.clock_rev,
        ]
        for field, value in models.fields.items():
            args += [field, value]
        for key, score, member in models.indexes:
            args += [key, score, member]
        index_keys = [rm.index_key(name, shard) for name in INDEXES]
        with unavailable():
            return bool(self._write(keys=[rm.game_key(game_id), *index_keys], args=args))

    def _write_inboxes(
        self, game_id: str, checkpoint: tuple[int, int, int], inboxes: dict[str, int | None]
    ) -> None:
        """Each seated player's inbox entry for the game, in the player's slot (``INBOX``; one
        round trip, a node's steps together). Done before the game's own write: a projection
        that dies between the two has not moved the game's checkpoint, so the next one writes
        again (the inboxes already written refuse it, the others take it)."""
        if not inboxes:
            return
        version, seated, rev = checkpoint
        pipe = self.redis.pipeline(transaction=False)
        for player_id, since in sorted(inboxes.items()):
            # EVAL, not EVALSHA: a cluster's pipeline refuses EVALSHA (the server keeps the
            # compiled script by its digest all the same).
            pipe.execute_command(
                "EVAL", INBOX, 3,
                rm.inbox_key(player_id),
                rm.inbox_checkpoints_key(player_id),
                keys.inbox_feed_key(shards.of(player_id)),
                game_id, version, seated, rev, "" if since is None else since, player_id,
            )  # fmt: skip
        with unavailable():
            pipe.execute()

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
        stretches = list(folded.stretches)
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
                stretches += [(s, t, envelope.time) for s, t in due.items() if s not in owing]
                due = {s: due.get(s, envelope.time) for s in sorted(owing)}
        last = entries[-1]
        return Folded(
            folded.meta, version, state, last.envelope.time, last.hash, due, tuple(stretches)
        )


FEED_KEEP_MS = 60_000
"""How far behind the catch-up's cursor the feed is kept: for other readers of the feed (the
web processes' live-event streams), which follow it from where they are and may lag a little."""


def trim_feed(client: Store, shard: int, cursor: str, keep_ms: int = FEED_KEEP_MS) -> int:
    """Drop the shard's feed entries older than ``keep_ms`` before ``cursor`` (the catch-up's
    checkpoint: the slowest reader that must see every entry; feed ids are ms-seq); how many
    went. Every append adds an entry: untrimmed, the feed grows with every move ever made."""
    millis = int(cursor.split("-")[0]) - keep_ms
    if millis <= 0:
        return 0
    with unavailable():
        trimmed = client.xtrim(keys.shard_feed_key(shard), minid=f"{millis}-0", approximate=False)
        return int(trimmed)


def checkpoint_of(
    version: bytes | None, seated: bytes | None, rev: bytes | None
) -> tuple[int, int, int]:
    """The stored read model's checkpoint (see ``WRITE``), (-1, -1, -1) for none."""
    if version is None:
        return (-1, -1, -1)
    return (int(version), int(seated or 0), int(rev or 0))
