"""The shards' feeds and changed sets read as one, for tests that count what every append
writes (``services.eventstore.keys``: one feed, changed set and wake flag per shard)."""

from __future__ import annotations

import redis

from services.eventstore import keys, shards


def feed_length(client: redis.Redis) -> int:
    """Entries in every shard's feed."""
    return sum(int(client.xlen(keys.shard_feed_key(s))) for s in range(shards.SHARDS))


def feed_rows(client: redis.Redis) -> list[dict[bytes, bytes]]:
    """Every shard's feed entries' fields, shard after shard."""
    return [f for s in range(shards.SHARDS) for _, f in client.xrange(keys.shard_feed_key(s))]


def changed(client: redis.Redis) -> set[bytes]:
    """The games in every shard's changed set."""
    return {g for s in range(shards.SHARDS) for g in client.smembers(keys.changed_key(s))}


def woken(client: redis.Redis) -> list[int]:
    """The shards whose wake flag is set."""
    return [s for s in range(shards.SHARDS) if client.exists(keys.wake_key(s))]


_new_id = shards.new_id  # as it is before a test patches it (the ``one_shard`` fixture)


def id_in(shard: int, nbytes: int = 16) -> str:
    """A ``shards.new_id`` of ``shard`` (for tests that need two games in one shard)."""
    while True:
        drawn = _new_id(nbytes)
        if shards.of(drawn) == shard:
            return drawn
