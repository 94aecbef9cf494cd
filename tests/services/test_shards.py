"""Shards: drawn ids land in their shard's slot, so one script may touch a game's keys and its
shard's keys together, on a real cluster too."""

from __future__ import annotations

import pytest
import redis
from redis.cluster import RedisCluster
from redis.crc import key_slot
from redis.exceptions import RedisClusterException

from services.eventstore import shards


def test_every_shard_has_its_own_slot_and_tag() -> None:
    assert len(shards.TAGS) == len(set(shards.TAGS)) == shards.SHARDS
    assert sorted(shards.HOME.values()) == list(range(shards.SHARDS))


def test_a_drawn_id_shares_the_slot_of_its_shards_keys() -> None:
    for _ in range(200):
        drawn = shards.new_id(16)
        assert len(drawn) == 22 and "{" not in drawn
        shard = shards.of(drawn)
        assert key_slot(f"game:{{{drawn}}}:events".encode()) == key_slot(
            shards.key("feed", shard).encode()
        )


def test_ids_spread_over_the_shards() -> None:
    counts = [0] * shards.SHARDS
    for _ in range(6400):
        counts[shards.of(shards.new_id(12))] += 1
    assert min(counts) > 40 and max(counts) < 180  # about 100 each


def test_a_derived_id_is_the_same_for_its_seed_and_in_a_home_slot() -> None:
    derived = [shards.derived_id(bytes([n]) * 32, 16) for n in range(64)]
    assert derived == [shards.derived_id(bytes([n]) * 32, 16) for n in range(64)]
    assert len(set(derived)) == 64
    for made in derived:
        assert len(made) == 22 and shards.in_home_slot(made)


def test_an_older_id_still_has_a_shard() -> None:
    older = "not-drawn-by-new-id"
    assert not shards.in_home_slot(older)
    assert shards.of(older) == key_slot(older.encode()) % shards.SHARDS


@pytest.mark.cluster
def test_one_script_writes_a_game_and_its_shard_on_a_cluster(cluster_redis: RedisCluster) -> None:
    drawn = shards.new_id(16)
    game, feed = f"game:{{{drawn}}}:events", shards.key("feed", shards.of(drawn))
    script = cluster_redis.register_script(BOTH)
    script(keys=[game, feed], args=[drawn])
    assert cluster_redis.xlen(game) == cluster_redis.xlen(feed) == 1


@pytest.mark.cluster
def test_an_older_id_and_its_shard_are_refused_together(cluster_redis: RedisCluster) -> None:
    older = "not-drawn-by-new-id"
    script = cluster_redis.register_script(BOTH)
    with pytest.raises((redis.RedisError, RedisClusterException), match=r"(?i)slot"):
        script(keys=[f"game:{{{older}}}:events", shards.key("feed", shards.of(older))], args=[1])


BOTH = """
redis.call('XADD', KEYS[1], '*', 'e', ARGV[1])
return redis.call('XADD', KEYS[2], '*', 'g', ARGV[1])
"""
