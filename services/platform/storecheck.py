"""The store's settings that lose data, checked when a process starts (``omerta serve``,
``omerta worker``, ``omerta run``).

* ``maxmemory-policy`` other than ``noeviction``: refused. An evicting store drops keys when
  its memory is full: events, idempotency records (a retried move applied twice), read models.
  ``noeviction`` refuses the write instead (503, nothing half-written:
  ``services.eventstore.store``).
* the AOF off, or ``appendfsync`` other than ``always``: a warning (a crash loses acknowledged
  moves: everything since the last snapshot, or the last second), unless the operator chose it
  (``OMERTA_ALLOW_RELAXED_DURABILITY=1``).
* a store that refuses ``CONFIG GET`` (managed services often do): a warning that the settings
  could not be checked, naming what to make sure of.
* a cluster: every node is checked so (a replica becomes a master in a failover), and
  ``OMERTA_MIN_REPLICAS`` 0 is a warning: a master that fails before its replica has an append
  takes that acknowledged move with it.
"""

from __future__ import annotations

import sys

import redis
from redis.cluster import RedisCluster

from services.platform.config import Settings, Store
from services.platform.servers import connect

SAFE = "maxmemory-policy noeviction, appendonly yes, appendfsync always"


class UnsafeStore(Exception):
    """The store would drop data on its own (the message names the setting)."""


def check(client: redis.Redis, relaxed: bool = False) -> list[str]:
    """The warnings about ``client``'s store; raises ``UnsafeStore`` for one that evicts."""
    try:
        found = {
            name: _get(client, name) for name in ("maxmemory-policy", "appendonly", "appendfsync")
        }
    except redis.ResponseError as exc:  # unknown (renamed) command, or no permission
        return [f"could not check the store's settings (CONFIG GET refused: {exc}); see to {SAFE}"]
    if found["maxmemory-policy"] not in ("noeviction", None):
        raise UnsafeStore(
            f"the store's maxmemory-policy is {found['maxmemory-policy']}: when its memory is"
            " full it would evict keys (events, idempotency records); set maxmemory-policy"
            " noeviction"
        )
    warnings = [
        f"could not check the store's {name} (CONFIG GET gave nothing); see to {SAFE}"
        for name, value in found.items()
        if value is None
    ]
    if relaxed:
        return warnings
    if found["appendonly"] == "no":
        warnings.append(
            "the store's append-only file is off (appendonly no): a crash loses the moves since"
            " its last snapshot; set appendonly yes (or OMERTA_ALLOW_RELAXED_DURABILITY=1 if"
            " that is your choice)"
        )
    elif found["appendfsync"] not in ("always", None):
        warnings.append(
            f"the store's appendfsync is {found['appendfsync']}: a crash of its machine may lose"
            " the last acknowledged moves; set appendfsync always (or"
            " OMERTA_ALLOW_RELAXED_DURABILITY=1 if that is your choice)"
        )
    return warnings


def _check_all(client: Store, config: Settings) -> list[str]:
    if not isinstance(client, RedisCluster):
        return check(client, config.relaxed_durability)
    warnings = []
    for node in client.get_nodes():
        found = check(client.get_redis_connection(node), config.relaxed_durability)
        warnings += [f"node {node.name}: {warning}" for warning in found]
    if config.min_replicas < 1 and not config.relaxed_durability:
        warnings.append(
            "OMERTA_MIN_REPLICAS is 0 on a cluster: an append is acknowledged before a replica"
            " has it, and a master lost before its replica had it takes the move with it; set"
            " OMERTA_MIN_REPLICAS=1"
        )
    return warnings


def _get(client: redis.Redis, name: str) -> str | None:
    value = client.config_get(name).get(name)
    return value.decode() if isinstance(value, bytes) else value


def at_start(process: str, config: Settings) -> bool:
    """Check the configured store for ``omerta <process>``: print the warnings; False (after
    printing why) if the process must not start. A store that does not answer is not refused
    here: the processes wait for it."""
    client = connect(config)
    try:
        warnings = _check_all(client, config)
    except UnsafeStore as exc:
        print(f"omerta {process}: refusing to start: {exc}", file=sys.stderr)
        return False
    except redis.ConnectionError as exc:
        warnings = [f"could not reach the store to check its settings ({exc})"]
    finally:
        client.close()
    for warning in warnings:
        print(f"omerta {process}: warning: {warning}", file=sys.stderr)
    return True
