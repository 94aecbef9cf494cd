"""``deploy/move-shard.sh``: a shard's worth of capacity added to a real cluster. A cluster of 3
masters and 3 replicas (a private one: its layout changes) gets a 7th node as a new master
(``valkey-cli --cluster add-node``); the script moves one shard to it while the shard holds a
game's stream and the shard's feed, and every key stays readable through a cluster client."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from redis.cluster import RedisCluster

from services.eventstore import keys, shards
from services.platform.embedded import HOST, EmbeddedServer
from tests.cluster import Cluster, cli_binary

SCRIPT = Path(__file__).resolve().parents[2] / "deploy" / "move-shard.sh"
SHARD = 7


@pytest.fixture
def grown(tmp_path: Path) -> Iterator[tuple[Cluster, EmbeddedServer]]:
    """A 3+3 cluster and a 7th node joined as an empty master."""
    cluster = Cluster(tmp_path / "cluster").start()
    extra = EmbeddedServer(tmp_path / "node-7", extra_args=(
        "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
        "--cluster-node-timeout", "1000"))  # fmt: skip
    try:
        extra.start()
        subprocess.run([cli_binary(), "--cluster", "add-node", f"{HOST}:{extra.port}",
                        f"{HOST}:{cluster.nodes[0].port}"],
                       check=True, capture_output=True, timeout=60)  # fmt: skip
        deadline = time.monotonic() + 30
        while not all(_knows(node, len(cluster.nodes) + 1) for node in [*cluster.nodes, extra]):
            assert time.monotonic() < deadline, "the new node was not learnt"
            time.sleep(0.1)
        cluster.nodes.append(extra)  # one of the cluster's now (master_of, stop)
        yield cluster, extra
    finally:
        extra.stop()
        cluster.stop()


def _knows(node: EmbeddedServer, count: int) -> bool:
    client = node.client()
    try:
        table = client.execute_command("CLUSTER", "NODES").decode().strip().splitlines()
        return len(table) == count and all("handshake" not in line for line in table)
    finally:
        client.close()


def _agreed(cluster: Cluster, key: str) -> bool:
    try:
        cluster.master_of(key)
    except LookupError:
        return False
    return True


def move(shard: int, target: EmbeddedServer, seed: EmbeddedServer) -> str:
    env = {**os.environ, "VALKEY_CLI": cli_binary()}
    done = subprocess.run(["sh", str(SCRIPT), str(shard), f"{HOST}:{target.port}",
                           f"{HOST}:{seed.port}"],
                          env=env, capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.mark.cluster
def test_a_shard_moves_to_a_new_master_with_its_games(
    grown: tuple[Cluster, EmbeddedServer],
) -> None:
    cluster, extra = grown
    client: RedisCluster = cluster.client()
    game_id = shards.new_id(16)
    while shards.of(game_id) != SHARD:
        game_id = shards.new_id(16)
    stream, feed = keys.events_key(game_id), shards.key("feed", SHARD)
    for n in range(250):  # more keys than one MIGRATE batch
        client.set(f"game:{{{game_id}}}:k{n}", n)
    client.xadd(stream, {"e": b"event"})
    client.xadd(feed, {"g": game_id})
    source = cluster.master_of(feed)
    other = next(k for k in shards.keys("feed") if cluster.master_of(k) is not source)
    client.xadd(other, {"g": "elsewhere"})

    said = move(SHARD, extra, cluster.nodes[0])
    assert "252 keys moved" in said

    deadline = time.monotonic() + 10  # the replicas learn it from their masters
    while not _agreed(cluster, feed):
        assert time.monotonic() < deadline, "the nodes do not agree on the slot's master"
        time.sleep(0.1)
    assert cluster.master_of(feed).port == extra.port
    assert cluster.master_of(stream).port == extra.port
    assert cluster.master_of(other).port != extra.port  # only the one shard moved
    mover = source.client()
    assert mover.execute_command("CLUSTER", "COUNTKEYSINSLOT", shards.slot(game_id)) == 0
    mover.close()
    fresh = cluster.client()  # a client that learns the new layout from scratch
    for reader in (client, fresh):
        assert reader.get(f"game:{{{game_id}}}:k249") == b"249"
        assert reader.xlen(stream) == 1 and reader.xlen(feed) == 1
        assert reader.xlen(other) == 1
    # A script touching the game and its shard still runs: one slot, now on the new master.
    assert fresh.eval("return redis.call('XLEN', KEYS[1]) + redis.call('XLEN', KEYS[2])", 2,
                      stream, feed) == 2  # fmt: skip
    assert "already" in move(SHARD, extra, cluster.nodes[0])
    client.close()
    fresh.close()
