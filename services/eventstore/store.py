"""The event store: one Redis stream per game, appended by one server-side Lua script.

``APPEND`` (below) is the only writer. In one atomic step it

1. returns the stored record if this seat already appended this command id (idempotent retry;
   ids are scoped by seat: each seat has its own hash of records, ``services.eventstore.keys``), or
   if the game's unscoped hash has it (games stored before scoping kept every seat's ids there),
2. refuses unless the stream is exactly at the expected version (optimistic concurrency),
   and unless the entry at that version is byte for byte the one the caller decided on
   (``forked``): a store restored from a backup, or a replica that was behind when it took
   over, may have lost versions the caller saw and been appended to again since; the version
   number alone would let the caller chain its events onto a head that is gone,
3. on a creation, writes the game's metadata record,
4. appends the events with entry ids ``<version>-0``, records the command id, adds one entry
   to the feed of the game's shard and marks the game changed in its shard for the read side
   (``mark_changed``). Every key is in the game's slot (``services.eventstore.shards``): on a
   cluster too the append is one script on one master.

Every check comes before the first write, so a refused or failed append leaves nothing behind
(Redis also refuses a writing script as a whole when it is out of memory). A game's stream is
never trimmed or rewritten (the feed is trimmed behind its readers:
``workers.projection.projector``).

With ``min_replicas`` set (``OMERTA_MIN_REPLICAS``), an append is acknowledged only once
``WAIT`` confirms that many replicas have it, sent on the append's own connection (a pipeline)
since ``WAIT`` counts that connection's writes; on a cluster, the connection to the master of
the game's slot. Otherwise it raises ``Unavailable``: the write
may be done, and a retry with the same command id finds it (``duplicate``) and waits again.

Keys are in ``services.eventstore.keys``; the envelope and the hash chain in
``services.eventstore.records``.

A game moved to the archive (``services.eventstore.archive``) has no keys left but its marker:
every reader below falls back to its archive when a game's keys are missing and its marker is
there, so an archived game reads exactly as before (an append to it finds version 0: ``conflict``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, cast

import msgspec
import redis
from redis.cluster import RedisCluster
from redis.typing import EncodableT

from services.errors import Unavailable
from services.eventstore import keys, shards
from services.eventstore.archive import Archived, Bundle
from services.eventstore.records import (
    GENESIS,
    CommandRecord,
    Entry,
    Envelope,
    GameMeta,
    chain_hash,
    decode_envelope,
    decode_meta,
    decode_record,
    encode,
)
from services.platform.config import Store
from services.platform.metrics import Metrics

APPEND = """
local done = redis.call('HGET', KEYS[2], ARGV[2]) or redis.call('HGET', KEYS[7], ARGV[2])
if done then return {'duplicate', done} end
local version = redis.call('XLEN', KEYS[1])
if version ~= tonumber(ARGV[1]) then return {'conflict', version} end
if version > 0 then
  local head = redis.call('XRANGE', KEYS[1], version .. '-0', version .. '-0')[1]
  if head == nil or head[2][2] ~= ARGV[7] then return {'forked', version} end
end
if ARGV[5] ~= '' then
  redis.call('SET', KEYS[4], ARGV[5])
elseif version == 0 then
  return {'unknown', 0}
end
for i = 8, #ARGV do
  version = version + 1
  redis.call('XADD', KEYS[1], version .. '-0', 'e', ARGV[i])
end
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
redis.call('XADD', KEYS[3], '*', 'game', ARGV[4], 'version', version)
redis.call('SADD', KEYS[5], ARGV[4])
local woke = redis.call('SET', KEYS[6], '1', 'NX', 'PX', ARGV[6])
return {'ok', version, woke and 1 or 0}
"""

# KEYS: changed, changed:wake.  ARGV: game id, expiry of the wake flag (ms).  Returns 1 if this
# call set the wake flag.
MARK_CHANGED = """
redis.call('SADD', KEYS[1], ARGV[1])
return redis.call('SET', KEYS[2], '1', 'NX', 'PX', ARGV[2]) and 1 or 0
"""

# A cluster append whose master is gone or moved is tried again on the slot's new master: a
# failover takes the cluster's node timeout and an election (a few seconds), then clients see it.
CLUSTER_TRIES = 10
CLUSTER_PAUSE = 0.2  # seconds, times the try: about 9 s in all
MOVED = ("MOVED", "TRYAGAIN", "CLUSTERDOWN")

WAKE_TTL_MS = 5_000
"""How long the wake flag lives: a read side that never got woken (the appender died between
its append and the wake-up) is woken again by the next append after this, at the latest."""


class NewEvent(msgspec.Struct, frozen=True):
    """An event ready to append: its type, schema and MessagePack bytes."""

    type: str
    schema: int
    data: bytes


class Appended(msgspec.Struct, frozen=True):
    """The store's answer: ``status`` is ``ok``, ``duplicate``, ``conflict``, ``forked`` (the
    stream is at the expected version but its entry there is not the caller's head: the caller's
    view of the game is from a history the store no longer has) or ``unknown``; ``version`` is
    the stream's version after the append (``ok``), now (``conflict``, ``forked``), or the
    last version of the earlier append (``duplicate``, whose ``record`` is then set).
    ``woke``: this append set the wake flag (``mark_changed``)."""

    status: str
    version: int
    entries: list[Entry] = []
    record: CommandRecord | None = None
    woke: bool = False


def now_ms() -> int:
    return time.time_ns() // 1_000_000


class EventStore:
    """Game-agnostic: stores envelopes of already-encoded events and reads them back."""

    def __init__(
        self,
        client: Store,
        clock: Callable[[], int] = now_ms,
        min_replicas: int = 0,
        replica_timeout_ms: int = 1000,
        archived: Archived | None = None,
        metrics: Metrics | None = None,
    ) -> None:
        self.redis = client
        self.archived = archived
        self.metrics = metrics or Metrics()  # a test's store: counted, exported nowhere
        self.clock = clock
        self.min_replicas = min_replicas
        self.replica_timeout_ms = replica_timeout_ms
        self._append = client.register_script(APPEND)
        self._mark_changed = client.register_script(MARK_CHANGED)

    def append(
        self,
        game_id: str,
        expected_version: int,
        head: bytes,
        command_id: str,
        actor: int | None,
        events: Sequence[NewEvent],
        digest: bytes = b"",
        meta: GameMeta | None = None,
    ) -> Appended:
        """Append ``events`` as versions ``expected_version + 1 ...`` if the stream is still at
        ``expected_version``, its entry there is ``head`` (its stored bytes, ``Entry.raw``, onto
        which the new events chain; ``b""`` for a new game) and ``command_id`` is new. ``meta``
        is given only at creation (``expected_version`` 0, ``command_id`` ``""``)."""
        if isinstance(self.redis, RedisCluster) and not shards.in_home_slot(game_id):
            # Not an id the service drew (``shards.new_id``): no game of a cluster has it, and
            # its keys and its shard's are in two slots, which no script may touch together.
            return Appended("unknown", 0)
        stamp = self.clock()
        prev = chain_hash(head) if head else GENESIS
        entries = []
        for i, event in enumerate(events, 1):
            envelope = Envelope(
                game_id=game_id,
                version=expected_version + i,
                type=event.type,
                time=stamp,
                actor=actor,
                command_id=command_id,
                schema=event.schema,
                prev=prev,
                data=msgspec.Raw(event.data),
            )
            raw = encode(envelope)
            prev = chain_hash(raw)
            entries.append(Entry(envelope, raw, prev))
        record = CommandRecord(expected_version + 1, expected_version + len(entries), digest)
        with unavailable(), self.metrics.append_seconds.time():
            (status, value, *woken), replicas = self._run_append(
                [
                    keys.events_key(game_id),
                    keys.commands_key(game_id, actor),
                    keys.feed_key(game_id),
                    keys.meta_key(game_id),
                    keys.changed_key(shards.of(game_id)),
                    keys.wake_key(shards.of(game_id)),
                    keys.commands_key(game_id),
                ],
                [
                    expected_version,
                    command_id,
                    encode(record),
                    game_id,
                    encode(meta) if meta is not None else b"",
                    WAKE_TTL_MS,
                    head,
                    *(entry.raw for entry in entries),
                ],
            )
        outcome = status.decode()
        if outcome in ("ok", "duplicate") and replicas < self.min_replicas:
            raise Unavailable(
                f"the append reached {replicas} of the {self.min_replicas} replicas required"
                f" within {self.replica_timeout_ms} ms: it may be stored; retry with the same"
                " command id"
            )
        if outcome == "duplicate":
            earlier = decode_record(value)
            return Appended("duplicate", earlier.last, record=earlier)
        if outcome != "ok":
            return Appended(outcome, int(value))
        return Appended("ok", int(value), entries=entries, woke=woken == [1])

    def _run_append(self, keys_: list[str], args: list[EncodableT]) -> tuple[list[Any], int]:
        """The script's answer (bytes and integers), and how many replicas confirmed it (0 when
        none are required: then no ``WAIT`` is sent)."""
        if not self.min_replicas:
            return self._append(keys=keys_, args=args), 0
        if not isinstance(self.redis, RedisCluster):
            return self._append_and_wait(self.redis, keys_, args)
        return self._append_on_cluster(keys_, args)

    def _append_and_wait(
        self, client: redis.Redis, keys_: list[str], args: list[EncodableT]
    ) -> tuple[list[Any], int]:
        pipe = client.pipeline(transaction=False)
        self._append(keys=keys_, args=args, client=pipe)
        pipe.execute_command("WAIT", self.min_replicas, self.replica_timeout_ms)
        answer, replicas = pipe.execute()
        return answer, int(replicas)

    def _append_on_cluster(self, keys_: list[str], args: list[EncodableT]) -> tuple[list[Any], int]:
        """On a cluster ``WAIT`` must follow the script on the same connection to the master of
        the game's slot: the cluster client would send it to any node. So both go to that
        master's own client. Its slot may have moved (a failover: its replica now serves it):
        the slot table is read again and the append sent again, which the command id makes
        safe (the earlier try's append, if it was made, answers ``duplicate`` and is waited for
        again)."""
        assert isinstance(self.redis, RedisCluster)
        for attempt in range(1, CLUSTER_TRIES + 1):
            node = self.redis.get_node_from_key(keys_[0])
            try:
                return self._append_and_wait(self.redis.get_redis_connection(node), keys_, args)
            except (redis.ConnectionError, redis.TimeoutError):
                if attempt == CLUSTER_TRIES:
                    raise
            except redis.ResponseError as exc:
                if attempt == CLUSTER_TRIES or not str(exc).startswith(MOVED):
                    raise
            time.sleep(CLUSTER_PAUSE * attempt)
            self.redis.nodes_manager.initialize()
        raise AssertionError("unreachable: the last try returns or raises")

    def mark_changed(self, game_id: str) -> bool:
        """Add the game to its shard's ``changed`` set the read side takes its work from (every
        append does it too), for a change that is not an event (a seat taken). True if this set the
        wake flag: then the caller must wake the read side (the workers' hook enqueues a job),
        which clears the flag when it takes the set; until then later changes need not."""
        with unavailable():
            shard = shards.of(game_id)
            woke = self._mark_changed(
                keys=[keys.changed_key(shard), keys.wake_key(shard)], args=[game_id, WAKE_TTL_MS]
            )
        return woke == 1

    def read(self, game_id: str, after: int = 0) -> list[Entry]:
        """The entries with version > ``after``, in order."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.xrange(keys.events_key(game_id), f"{after + 1}-0", "+")
        pipe.hexists(keys.archived_key(shards.of(game_id)), game_id)
        with unavailable():
            rows, archived = pipe.execute()
        if not rows and archived:
            return entries_of(self._archive(game_id).rows[after:])
        return entries_of(rows)

    def read_with_record(
        self, game_id: str, after: int, seat: int | None, command_id: str
    ) -> tuple[list[Entry], CommandRecord | None]:
        """``read`` and the record of ``seat``'s command id (as ``APPEND`` finds it: the
        seat's own, else the unscoped one of a game stored before scoping), in one round trip."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.xrange(keys.events_key(game_id), f"{after + 1}-0", "+")
        pipe.hget(keys.commands_key(game_id, seat), command_id)
        pipe.hget(keys.commands_key(game_id), command_id)
        pipe.hexists(keys.archived_key(shards.of(game_id)), game_id)
        with unavailable():
            rows, scoped, unscoped, archived = pipe.execute()
        if not rows and archived:
            bundle = self._archive(game_id)
            rows = bundle.rows[after:]
            scoped = (bundle.hash(keys.commands_key(game_id, seat)) or {}).get(command_id.encode())
            unscoped = (bundle.hash(keys.commands_key(game_id)) or {}).get(command_id.encode())
        record = scoped if scoped is not None else unscoped
        return entries_of(rows), decode_record(record) if record is not None else None

    def rows(self, game_id: str) -> list[tuple[bytes, dict[bytes, bytes]]]:
        """The stream exactly as stored (entry ids and fields), for the audit."""
        rows = cast(
            list[tuple[bytes, dict[bytes, bytes]]], self.redis.xrange(keys.events_key(game_id))
        )
        if not rows and (bundle := self.archived_bundle(game_id)) is not None:
            return bundle.rows
        return rows

    def meta(self, game_id: str) -> GameMeta | None:
        with unavailable():
            raw = cast(bytes | None, self.redis.get(keys.meta_key(game_id)))
            if raw is None and (bundle := self.archived_bundle(game_id)) is not None:
                raw = bundle.strings.get(keys.meta_key(game_id))
        return decode_meta(raw) if raw is not None else None

    def version(self, game_id: str) -> int:
        version = int(self.redis.xlen(keys.events_key(game_id)))
        if version == 0 and self.archived is not None:
            marker = self.archived.marker(game_id)
            return marker.version if marker is not None else 0
        return version

    def command_records(
        self, game_id: str, seats: int
    ) -> dict[int | None, dict[str, CommandRecord]]:
        """Every idempotency record of the game: seat (None: the unscoped hash) -> command id
        -> record."""
        pipe = self.redis.pipeline(transaction=False)
        scopes: list[int | None] = [None, *range(seats)]
        for seat in scopes:
            pipe.hgetall(keys.commands_key(game_id, seat))
        found = pipe.execute()
        if not any(found) and (bundle := self.archived_bundle(game_id)) is not None:
            found = [bundle.hash(keys.commands_key(game_id, seat)) or {} for seat in scopes]
        return {
            seat: {k.decode(): decode_record(v) for k, v in rows.items()}
            for seat, rows in zip(scopes, found, strict=True)
        }

    def game_ids(self) -> Iterator[str]:
        """Every game in the store (by its metadata record) and in its archive, in no particular
        order. (On a Redis Cluster this must scan every master; redis-py's cluster client
        does.)"""
        for key in self.redis.scan_iter(match=keys.META_PATTERN, count=1000):
            yield keys.game_id_of_meta_key(key.decode())
        if self.archived is not None:
            yield from self.archived.ids()

    def archived_bundle(self, game_id: str) -> Bundle | None:
        """The game's archive if it was moved there (None: it was not, or no archive is set)."""
        return self.archived.bundle(game_id) if self.archived is not None else None

    def _archive(self, game_id: str) -> Bundle:
        """The archive of a game whose marker was just seen."""
        if self.archived is None:
            raise Unavailable(f"game {game_id} is archived, and this process has no archive")
        return self.archived.load(game_id)


@contextmanager
def unavailable() -> Iterator[None]:
    """Redis errors as the service's ``Unavailable`` (503)."""
    try:
        yield
    except redis.RedisError as exc:
        raise Unavailable(f"the event store did not complete the request ({exc})") from exc


def entries_of(rows: list[tuple[bytes, dict[bytes, bytes]]]) -> list[Entry]:
    """A game stream's rows (``XRANGE``) as entries: for readers that pipeline their own read."""
    out = []
    for _id, fields in rows:
        raw = fields[b"e"]
        out.append(Entry(decode_envelope(raw), raw, chain_hash(raw)))
    return out
