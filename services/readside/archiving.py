"""Moving finished games out of the store into the archive (``services.eventstore.archive``).

A game is moved in two phases, so that a process killed at any point leaves either the game
whole in the store, or its complete archive and its marker (and running it again finishes the
move or does nothing):

1. ``write``: read the game's keys (its events stream, metadata, command records and read
   model: ``Bundle``), write its archive, read it back and check it (the same bundle, every
   entry id, the count, the hash chain to the head). Nothing in the store changes.
2. ``commit``: one script in the game's slot records the marker in ``archived:{<tag>}`` and
   deletes the keys, only if the game did not change since phase 1 (the same version, the
   same last entry, its read model at that version); otherwise nothing changes and the game is
   tried again by a later pass.

What stays of an archived game in the store: its marker (about 100 bytes with its share of the
shard's hash), its entry in its shard's finished list, its seat records, its chat if it has one,
its rating's input and each seated player's list entries (``make bench``, ``bench_archive``:
about 220 bytes a game beside the lists' entries, from about 31 KB). A running game is never moved:
``write`` refuses a game whose read model does not say it is finished, and one not rated yet
(its rating job would find it gone).

Which games: those of a shard's finished list (``rm:games:finished:{<tag>}``, scored by the time
of the last event) older than the cut-off, from the shard's cursor (``archived:cursor:{<tag>}``,
the score up to which every game was moved) on.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from typing import NamedTuple, cast

import msgspec
import redis
import zstandard

from services.errors import ServiceError
from services.eventstore import keys, shards
from services.eventstore.archive import Bundle, Marker, encode_marker, pack, problems, unpack
from services.eventstore.records import GENESIS, chain_hash, decode_meta
from services.eventstore.store import EventStore, unavailable
from services.readside import ratings, reviews
from services.readside import readmodels as rm

log = logging.getLogger(__name__)

DAY_MS = 86_400_000
BATCH = 100  # games read from a shard's finished list at a time

# KEYS: events, archived:{tag}, read model, the other keys to delete.  ARGV: game id, version,
# last entry's bytes, marker.
COMMIT = """
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then return 'done' end
local version = tonumber(ARGV[2])
if redis.call('XLEN', KEYS[1]) ~= version then return 'changed' end
if version > 0 then
  local last = redis.call('XRANGE', KEYS[1], version .. '-0', version .. '-0')[1]
  if last == nil or last[2][2] ~= ARGV[3] then return 'changed' end
end
if tonumber(redis.call('HGET', KEYS[3], 'version') or -1) ~= version then return 'changed' end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[4])
redis.call('DEL', KEYS[1], unpack(KEYS, 3))
return 'ok'
"""


class Refused(Exception):
    """The game cannot be archived: its archive is wrong (a failure)."""


class NotYet(Refused):
    """The game waits, for a reason of the design: not finished or not rated yet, owed a
    review, changed meanwhile. A later pass moves it."""


class Passed(NamedTuple):
    archived: int
    waiting: int  # games left for a later pass (``NotYet``)
    failed: int = 0  # games whose archive was wrong, shards the store failed to read


def cursor_key(shard: int) -> str:
    return shards.key("archived:cursor", shard)


class Archiver:
    def __init__(self, store: EventStore) -> None:
        if store.archived is None:
            raise ValueError("archiving needs an event store with an archive")
        self.store = store
        self.archived = store.archived
        self.redis = store.redis
        self._commit = self.redis.register_script(COMMIT)

    def keys_of(self, game_id: str, seats: int) -> list[str]:
        """The keys that move: the events first, then the read model, then the rest."""
        return [
            keys.events_key(game_id),
            rm.game_key(game_id),
            keys.meta_key(game_id),
            keys.commands_key(game_id),
            *(keys.commands_key(game_id, seat) for seat in range(seats)),
            reviews.review_key(game_id),
        ]

    def collect(self, game_id: str) -> Bundle:
        """The game's keys as they are now (phase 1's reading)."""
        meta = self.store.meta(game_id)
        summary = rm.ReadModels(self.redis).summary(game_id)
        if meta is None or summary is None or summary.status != "finished":
            raise NotYet(f"game {game_id} is not a finished game in the store")
        # Its rating's input is kept apart (``ratings``); a rating job still to come would find
        # the game gone.
        if self.redis.zscore(ratings.FOLDED, game_id) is None:
            raise NotYet(f"game {game_id} is not rated yet")
        # Its review under way would be written after the move, into the store.
        if self.redis.zscore(reviews.owed_key(shards.of(game_id)), game_id) is not None:
            raise NotYet(f"game {game_id} is being reviewed")
        events, model, meta_key, *records, review_key = self.keys_of(game_id, meta.seats)
        pipe = self.redis.pipeline(transaction=False)
        pipe.xrange(events)
        pipe.hgetall(model)
        pipe.get(meta_key)
        for key in records:
            pipe.hgetall(key)
        pipe.get(review_key)
        with unavailable():
            rows, fields, raw_meta, *hashes, review = pipe.execute()
        if raw_meta is None:
            raise NotYet(f"game {game_id} left the store meanwhile")
        head = chain_hash(rows[-1][1][b"e"]) if rows else GENESIS
        return Bundle(
            game_id=game_id,
            version=len(rows),
            head=head,
            rows=[(entry_id, dict(row)) for entry_id, row in rows],
            strings={meta_key: raw_meta, **({review_key: review} if review is not None else {})},
            hashes={
                key: sorted(content.items())
                for key, content in zip([model, *records], [fields, *hashes], strict=True)
                if content
            },
        )

    def write(self, game_id: str) -> Bundle:
        """Phase 1: the game's archive written, read back and checked."""
        bundle = self.collect(game_id)
        if int(dict(bundle.hashes[rm.game_key(game_id)])[b"version"]) != bundle.version:
            raise NotYet(f"game {game_id}'s read model is behind its events")
        self.archived.archive.put(game_id, pack(bundle))
        if not self._stored(game_id, bundle):
            raise Refused(f"game {game_id}: the archive read back is not what was written")
        found = problems(bundle, game_id)
        if found:
            raise Refused(f"game {game_id}: {'; '.join(found)}")
        return bundle

    def _stored(self, game_id: str, bundle: Bundle) -> bool:
        stored = self.archived.archive.get(game_id)
        try:
            return stored is not None and unpack(stored) == bundle
        except (zstandard.ZstdError, msgspec.DecodeError):
            return False

    def commit(self, bundle: Bundle) -> str:
        """Phase 2: the marker recorded and the keys deleted, if the game is unchanged:
        ``ok``, ``done`` (already archived) or ``changed``."""
        game_id = bundle.game_id
        meta = decode_meta(bundle.strings[keys.meta_key(game_id)])
        events, model, *others = self.keys_of(game_id, meta.seats)
        last = bundle.rows[-1][1][b"e"] if bundle.rows else b""
        marker = encode_marker(Marker(bundle.version, bundle.head))
        with unavailable():
            answer = self._commit(
                keys=[events, keys.archived_key(shards.of(game_id)), model, *others],
                args=[game_id, bundle.version, last, marker],
            )
        return answer.decode() if isinstance(answer, bytes) else str(answer)

    def archive(self, game_id: str) -> str:
        """Both phases: ``ok``, ``done`` or ``changed``; raises ``Refused``."""
        if self.archived.marker(game_id) is not None:
            return "done"
        return self.commit(self.write(game_id))

    def archive_shard(self, shard: int, before_ms: int, limit: int = sys.maxsize) -> Passed:
        """Archive the shard's games finished before ``before_ms``, from its cursor on, up to
        ``limit`` games."""
        done = 0
        cursor = float(cast(bytes | None, self.redis.get(cursor_key(shard))) or 0)
        while True:
            rows = cast(
                list[tuple[bytes, float]],
                self.redis.zrangebyscore(
                    rm.index_key(rm.FINISHED, shard), cursor, before_ms, 0, BATCH, withscores=True
                ),
            )
            moved_on = False
            for member, score in rows:
                # The cursor stays at a game not moved: it is tried again next pass.
                try:
                    answer = self.archive(member.decode())
                except NotYet as exc:
                    log.info("archive: game %s waits: %s", member.decode(), exc)
                    return Passed(done, 1)
                except Refused as exc:
                    log.warning("archive: game %s not archived: %s", member.decode(), exc)
                    return Passed(done, 0, 1)
                if answer == "changed":
                    log.info("archive: game %s waits: it changed meanwhile", member.decode())
                    return Passed(done, 1)
                done += answer == "ok"
                if done >= limit:
                    return Passed(done, 0)
                if score > cursor:
                    self.redis.set(cursor_key(shard), repr(score))
                    cursor, moved_on = score, True
            if len(rows) < BATCH or not moved_on:
                return Passed(done, 0)

    def archive_older(
        self,
        days: float,
        now_ms: int,
        held: list[int] | None = None,
        progress: Callable[[int, int, Passed], None] | None = None,
        limit: int = sys.maxsize,
    ) -> Passed:
        """Archive every game finished more than ``days`` before ``now_ms``, in the shards
        ``held`` (default: all), up to ``limit`` games; ``progress(shard, shards, passed so
        far)`` after each shard."""
        which = list(range(shards.SHARDS)) if held is None else held
        total = Passed(0, 0)
        for i, shard in enumerate(which, 1):
            try:
                passed = self.archive_shard(
                    shard, now_ms - int(days * DAY_MS), limit - total.archived
                )
            except (redis.RedisError, ServiceError) as exc:
                log.warning("archive: shard %d: %s", shard, exc)
                passed = Passed(0, 0, 1)
            total = Passed(*(a + b for a, b in zip(total, passed, strict=True)))
            if progress is not None:
                progress(i, len(which), total)
            if total.archived >= limit:
                break
        return total
