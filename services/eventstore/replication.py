"""Which shards refuse writes for want of replicas, and which masters have none (``/readyz``,
``omerta status``).

With ``OMERTA_MIN_REPLICAS`` set, an append is acknowledged only once that many replicas have it
(``services.eventstore.store``): a master with fewer replicas online refuses every append to the
shards whose slots it serves (503). That happens after a failover with one replica per master: the
promoted replica has none until the old master comes back as its replica (``deploy/README.md``,
"Replicas"). A cluster's master without any replica is a risk even without the setting: its next
failure takes its shards down.

Each master is asked for its own count (``INFO replication``: replicas whose link is
``online``, the ones ``WAIT`` counts); a cluster's masters and their slots are read afresh
(``CLUSTER SLOTS``), not from the client's cache, which lags behind a failover.
"""

from __future__ import annotations

from typing import Any, cast

import msgspec
import redis
from redis.cluster import RedisCluster

from services.eventstore import shards
from services.platform.config import Store


class Replication(msgspec.Struct, frozen=True):
    """``refused_shards``: the shards whose appends are refused (their master has fewer than
    ``min_replicas`` replicas online); ``masters_without_replicas``: ``host:port`` of the masters
    with none (a cluster's, or a single server's when replicas are required)."""

    refused_shards: list[int]
    masters_without_replicas: list[str]

    @property
    def degraded(self) -> bool:
        return bool(self.refused_shards or self.masters_without_replicas)


def replication(client: Store, min_replicas: int) -> Replication:
    if isinstance(client, RedisCluster):
        masters = _cluster_masters(client)
        replicas_expected = True
    elif min_replicas == 0:  # one server, as deployed: no replica is expected
        return Replication([], [])
    else:
        masters = {_address(client): (client, list(range(shards.SHARDS)))}
        replicas_expected = True
    refused: list[int] = []
    orphans = []
    for address, (master, served) in sorted(masters.items()):
        online = _online_replicas(master)
        if online < min_replicas:
            refused += served
        if online == 0 and replicas_expected:
            orphans.append(address)
    return Replication(sorted(refused), orphans)


def _cluster_masters(client: RedisCluster) -> dict[str, tuple[redis.Redis, list[int]]]:
    """Each master (``host:port``): a client of it, and the shards whose home slot it serves."""
    found: dict[str, tuple[redis.Redis, list[int]]] = {}
    # redis-py annotates CLUSTER SLOTS as a list; the cluster client answers it parsed, as a dict
    table = cast(dict[Any, Any], client.cluster_slots(target_nodes=RedisCluster.RANDOM))
    for (first, last), nodes in table.items():
        host, port = nodes["primary"]
        node = client.get_node(host=host, port=port)
        if node is None:  # a node the client has not met yet
            client.nodes_manager.initialize()
            node = client.get_node(host=host, port=port)
        address = f"{host}:{port}"
        _, served = found.setdefault(address, (client.get_redis_connection(node), []))
        served += [shard for slot, shard in shards.HOME.items() if first <= slot <= last]
    return found


def _address(client: redis.Redis) -> str:
    found = client.connection_pool.connection_kwargs
    return f"{found['host']}:{found['port']}" if "host" in found else str(found.get("path"))


def _online_replicas(master: redis.Redis) -> int:
    info = master.info("replication")
    return sum(
        1
        for name, value in info.items()
        if name.startswith("slave") and isinstance(value, dict) and value.get("state") == "online"
    )
