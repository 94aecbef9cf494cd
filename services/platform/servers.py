"""The store's servers: ``connect()`` to the configured one, or start the embedded one.

The settings (``services.platform.config``) name the store: a cluster (``REDIS_CLUSTER_URL``,
redis-py's cluster client: every script and transaction touches one slot,
``services.eventstore.shards``), one server (``REDIS_URL``), or neither: the embedded server.
RQ does not support Cluster, so its queues are on a server of their own (``RQ_REDIS_URL``): a
job lost with that server is rebuilt from the store by the catch-up
(``workers.projection.catchup``). On a single server the queues share it unless ``RQ_REDIS_URL``
says otherwise.

With ``REDIS_URL`` and ``REDIS_CLUSTER_URL`` unset, the first process that connects starts the
embedded server (see ``services.platform.embedded``) and records its port in
``<var>/valkey.port``; other processes using the same data directory find it there and share it
(a lock file serialises the check-or-start). The process that started it stops it cleanly when
it exits.
"""

from __future__ import annotations

import atexit
import fcntl
from collections.abc import Callable
from pathlib import Path

import redis
from redis.backoff import ExponentialBackoff
from redis.cluster import RedisCluster
from redis.retry import Retry

from services.platform.config import Settings, Store
from services.platform.embedded import HOST, EmbeddedServer

# 0.05 s doubling to 1 s, 10 tries: about 7 s, a store restart under ``omerta run`` included.
RETRY_BACKOFF = ExponentialBackoff(cap=1.0, base=0.05)
RETRIES = 10
RETRY_SECONDS = sum(RETRY_BACKOFF.compute(n) for n in range(1, RETRIES + 1))


def connect(config: Settings) -> Store:
    """A redis-py client (bytes in and out) for the configured store, retrying (see above): a
    cluster client with ``REDIS_CLUSTER_URL`` (it also follows a failover: a master's replica
    taking over its slots), else one server's."""
    # Retry's default errors: ConnectionError (BusyLoadingError among them), TimeoutError.
    retry = Retry(RETRY_BACKOFF, RETRIES)
    if config.cluster_url:
        return RedisCluster.from_url(config.cluster_url, retry=retry)
    if config.redis_url:
        return redis.Redis.from_url(config.redis_url, retry=retry)
    return redis.Redis(host=HOST, port=embedded_port(config), retry=retry)


def connect_queues(config: Settings, store: Store) -> redis.Redis:
    """The client of RQ's server: ``RQ_REDIS_URL``'s, else the store itself (one server)."""
    if config.rq_url:
        return redis.Redis.from_url(config.rq_url, retry=Retry(RETRY_BACKOFF, RETRIES))
    assert isinstance(store, redis.Redis), "settings() refuses a cluster without RQ_REDIS_URL"
    return store


def embedded_port(config: Settings) -> int:
    """The port of the embedded server for ``config.var``, started now if none runs."""
    return start_embedded(config)[0]


def start_embedded(
    config: Settings, preexec_fn: Callable[[], None] | None = None
) -> tuple[int, EmbeddedServer | None]:
    """The port of the embedded server for ``config.var``, and the server if this call started
    it (with ``preexec_fn``, see ``EmbeddedServer``; it stops when this process exits). The
    file lock keeps one server per directory, across processes and threads alike."""
    config.var.mkdir(parents=True, exist_ok=True)
    with open(config.var / "valkey.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        port_file = config.var / "valkey.port"
        running = _running_port(port_file, config.var)
        if running is not None:
            return running, None
        server = EmbeddedServer(config.var, config.port, config.fsync, preexec_fn).start()
        port_file.write_text(f"{server.port}\n")
        atexit.register(server.stop)
        return server.port, server


def running_embedded_port(config: Settings) -> int | None:
    """The port of the embedded server that runs for ``config.var``, if one does; never starts
    one (``omerta status``: a server of its own would be an empty store)."""
    return _running_port(config.var / "valkey.port", config.var)


def _running_port(port_file: Path, var: Path) -> int | None:
    """The port in ``port_file`` if a server answers there with ``var`` as its directory."""
    try:
        port = int(port_file.read_text())
    except (OSError, ValueError):
        return None
    client = redis.Redis(host=HOST, port=port, socket_timeout=2)
    try:
        directory = client.config_get("dir").get("dir")
    except redis.RedisError:
        return None
    finally:
        client.close()
    return port if directory is not None and Path(directory) == var else None
