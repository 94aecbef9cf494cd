"""Configuration from the environment, and ``connect()``.

| variable | meaning | default |
|---|---|---|
| ``REDIS_URL`` | the Redis/Valkey server to use | unset: an embedded server |
| ``OMERTA_VAR`` | data directory of the embedded server (AOF, log) | ``./var`` |
| ``OMERTA_REDIS_PORT`` | fixed port of the embedded server | 0: a free port |
| ``OMERTA_FSYNC`` | ``appendfsync`` of the embedded server | ``always`` (no move ever lost) |
| ``OMERTA_MIN_REPLICAS`` | replicas that must have an append before it is acknowledged | 0 |
| ``OMERTA_REPLICA_TIMEOUT_MS`` | how long an append waits for them (else 503) | 1000 |
| ``OMERTA_ALLOW_RELAXED_DURABILITY`` | ``1``: no warning for AOF off or fsync not always | ``0`` |
| ``OMERTA_SECURE_COOKIES`` | ``1``: cookies are ``Secure`` (the service is behind HTTPS) | ``0`` |

The rate limits' variables (``OMERTA_RATE_LIMITS``, ``OMERTA_LIMIT_*``, ``OMERTA_OPEN_GAMES``) are
read by ``api.limits.from_env``, next to the limits they set.

With ``REDIS_URL`` unset, the first process that connects starts the embedded server (see
``services.embedded``) and records its port in ``<var>/valkey.port``; other processes using the
same data directory find it there and share it (a lock file serialises the check-or-start). The
process that started it stops it cleanly when it exits.
"""

from __future__ import annotations

import atexit
import fcntl
import os
import threading
from pathlib import Path

import msgspec
import redis

from services.embedded import HOST, EmbeddedServer


class Settings(msgspec.Struct, frozen=True):
    redis_url: str | None
    var: Path
    port: int
    fsync: str
    secure_cookies: bool
    min_replicas: int = 0
    replica_timeout_ms: int = 1000
    relaxed_durability: bool = False


def settings(env: dict[str, str] | None = None) -> Settings:
    env = dict(os.environ) if env is None else env
    return Settings(
        redis_url=env.get("REDIS_URL") or None,
        var=Path(env.get("OMERTA_VAR") or "var").resolve(),
        port=int(env.get("OMERTA_REDIS_PORT") or 0),
        fsync=env.get("OMERTA_FSYNC") or "always",
        secure_cookies=_flag(env.get("OMERTA_SECURE_COOKIES")),
        min_replicas=int(env.get("OMERTA_MIN_REPLICAS") or 0),
        replica_timeout_ms=int(env.get("OMERTA_REPLICA_TIMEOUT_MS") or 1000),
        relaxed_durability=_flag(env.get("OMERTA_ALLOW_RELAXED_DURABILITY")),
    )


def _flag(value: str | None) -> bool:
    return (value or "0").lower() in ("1", "true", "yes")


_started: EmbeddedServer | None = None
_start_lock = threading.Lock()


def connect(config: Settings | None = None) -> redis.Redis:
    """A redis-py client (bytes in and out) for the configured server."""
    config = config or settings()
    if config.redis_url:
        return redis.Redis.from_url(config.redis_url)
    return redis.Redis(host=HOST, port=embedded_port(config))


def embedded_port(config: Settings) -> int:
    """The port of the embedded server for ``config.var``, started now if none runs."""
    global _started
    with _start_lock:
        if _started is not None and _started.directory == config.var:
            return _started.port
        config.var.mkdir(parents=True, exist_ok=True)
        with open(config.var / "valkey.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            port_file = config.var / "valkey.port"
            running = _running_port(port_file, config.var)
            if running is not None:
                return running
            server = EmbeddedServer(config.var, config.port, config.fsync).start()
            port_file.write_text(f"{server.port}\n")
            _started = server
            atexit.register(server.stop)
            return server.port


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
