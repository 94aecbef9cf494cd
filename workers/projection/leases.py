"""Shard leases: which projection worker follows which shard (``services.eventstore.shards``).

Each shard's periodic catch-up (``workers.projection.catchup``: its feed, its seat check, its owed
AI moves) is run by one worker at a time, the shard's holder. The lease is a key in the shard's own
slot, ``workers:lease:{<tag>}``, holding the holder's name with an expiry of ``TTL_MS``
(``OMERTA_LEASE_SECONDS``, 10 s by default): taken with ``SET NX PX``, renewed (and let go) by a
script that first checks the name, so only the holder ever extends or deletes it (one key per
script: one slot, on a cluster too).

Each worker (``Renewer``, a thread of its own: a long job must not let its leases lapse) makes a
pass every third of ``TTL_MS`` (``Leases.renew``):

1. it announces itself in ``workers:lease-holders`` (a sorted set: name -> when the
   announcement lapses) and counts the workers announced: the live ones;
2. it renews the leases it holds;
3. its fair share is ``ceil(64 / live workers)``: above it, it lets go of the extra shards (a new
   worker gets them at its next pass); below it, it takes free shards (in random order: two
   workers claiming at once mostly try different ones; ``SET NX`` decides between them).

A worker that dies (SIGKILL, its machine gone) stops renewing: its announcement and its leases
lapse within ``TTL_MS``, and the others take its shards over at their next pass, within
``TTL_MS`` and a third. A worker that stops cleanly lets go of its leases at once. ``TTL_MS``
is long enough that a pause of a few seconds (a garbage collection, a slow store) loses nothing,
short enough that a dead worker's shards wait only seconds. A worker unable to renew for
``TTL_MS`` (the store down) holds nothing meanwhile (``Leases.held``): another may hold its
shards by then.

Liveness (``omerta status``): every worker, of any queue, also announces itself in
``workers:alive`` (``Presence``, renewed by the same thread), which lapses within
``TTL_MS`` of its death; a worker without the projections announces itself as serving its
queues too, and ``ai_worker_alive`` tells whether such a worker of the AI (or the analysis)
queue runs, even one in a long job.

The lease guards only the catch-up, which is idempotent: two holders at once (a holder paused
past its expiry) would project the same games twice, which changes nothing. The
``project_changed(shard)`` jobs run on whichever worker takes them: their ``SPOP`` of the
changed set already gives each game to one job.
"""

from __future__ import annotations

import logging
import math
import random
import threading
import time
from collections.abc import Sequence
from typing import Protocol, cast

import redis
from redis.commands.core import Script
from redis.typing import EncodableT

from services.eventstore import shards
from services.eventstore.store import now_ms
from services.platform import config
from services.platform.config import Store
from workers.queues import AI

log = logging.getLogger(__name__)

LEASE = "workers:lease"
HOLDERS = "workers:lease-holders"  # sorted set: worker name -> when its announcement lapses (ms)
ALIVE = "workers:alive"  # likewise, of every worker, of any queue (``Presence``)
TTL_MS = 10_000  # OMERTA_LEASE_SECONDS' default
RENEWALS = 3  # passes per TTL: two may fail before a lease lapses

# KEYS: the lease.  ARGV: the holder's name, the new expiry (ms).
RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""

# KEYS: the lease.  ARGV: the holder's name.
RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


def lease_key(shard: int) -> str:
    return shards.key(LEASE, shard)


class Leases:
    """One worker's leases (``name``: its RQ name) on the store ``client``."""

    def __init__(self, client: config.Store, name: str, ttl_ms: int = TTL_MS) -> None:
        self._redis = client
        self.name = name
        self.ttl_ms = ttl_ms
        self._lock = threading.Lock()
        self._renew = client.register_script(RENEW)
        self._release = client.register_script(RELEASE)
        self._held: tuple[int, ...] = ()
        self._valid_until = float("-inf")  # monotonic: the held leases may have lapsed after

    def held(self) -> list[int]:
        """The shards this worker holds (none once its last renewal is ``ttl_ms`` old)."""
        with self._lock:
            return list(self._held) if time.monotonic() < self._valid_until else []

    def renew(self) -> list[int]:
        """One pass (see the module docstring); the shards held after it."""
        began = time.monotonic()
        now = now_ms()
        pipe = self._redis.pipeline(transaction=False)
        pipe.zadd(HOLDERS, {self.name: now + self.ttl_ms})
        pipe.zremrangebyscore(HOLDERS, "-inf", now)
        pipe.zcard(HOLDERS)
        for shard in range(shards.SHARDS):
            pipe.get(lease_key(shard))
        _, _, live, *holders = pipe.execute()
        share = math.ceil(shards.SHARDS / max(int(live), 1))
        mine = [s for s, h in enumerate(holders) if h is not None and h.decode() == self.name]
        free = [s for s, h in enumerate(holders) if h is None]
        renewed = self._each(self._renew, mine, self.ttl_ms)
        kept = [s for s, ok in zip(mine, renewed, strict=True) if ok]
        if len(kept) > share:
            kept, extra = kept[:share], kept[share:]
            self._each(self._release, extra)
            log.info("worker %s lets go of %d shards (its share: %d)", self.name, len(extra), share)
        elif len(kept) < share and free:
            random.shuffle(free)
            wanted = free[: share - len(kept)]
            pipe = self._redis.pipeline(transaction=False)
            for shard in wanted:
                pipe.set(lease_key(shard), self.name, nx=True, px=self.ttl_ms)
            taken = [s for s, ok in zip(wanted, pipe.execute(), strict=True) if ok]
            if taken:
                log.info("worker %s takes %d shards: %s", self.name, len(taken), sorted(taken))
            kept += taken
        with self._lock:
            self._held = tuple(sorted(kept))
            self._valid_until = began + self.ttl_ms / 1000
            return list(self._held)

    def release_all(self) -> None:
        """Let go of every lease held and of the announcement (a clean stop)."""
        with self._lock:
            held, self._held = self._held, ()
        self._each(self._release, list(held))
        self._redis.zrem(HOLDERS, self.name)

    def _each(self, script: Script, held: list[int], *args: EncodableT) -> list[int]:
        """``script`` on each of the leases ``held``: a round trip each (redis-py's cluster
        pipeline runs no scripts), a few dozen every few seconds."""
        return [int(script(keys=[lease_key(s)], args=[self.name, *args])) for s in held]


class Presence:
    """One worker's announcement in ``ALIVE``: what ``omerta status`` counts; a worker without
    the projections also announces itself as serving its queues (``serving_key``: what
    ``ai_worker_alive`` reads). RQ keeps a worker killed by SIGKILL registered for minutes (its
    key's TTL); this lapses within ``ttl_ms``. It is renewed by a thread (``Renewer``), so a
    worker in a long job (a review takes minutes) stays alive: RQ's own heartbeat is sent
    between jobs only."""

    def __init__(
        self, client: config.Store, name: str, ttl_ms: int = TTL_MS, queues: Sequence[str] = ()
    ) -> None:
        self._redis = client
        self.name = name
        self.ttl_ms = ttl_ms
        self._keys = [ALIVE, *(serving_key(q) for q in queues)]

    def renew(self) -> None:
        now = now_ms()
        pipe = self._redis.pipeline(transaction=False)
        for key in self._keys:
            pipe.zadd(key, {self.name: now + self.ttl_ms})
            pipe.zremrangebyscore(key, "-inf", now)
        pipe.execute()

    def release_all(self) -> None:
        pipe = self._redis.pipeline(transaction=False)
        for key in self._keys:
            pipe.zrem(key, self.name)
        pipe.execute()


def serving_key(queue: str) -> str:
    """The workers announced as serving ``queue`` and not the projections (``Presence``)."""
    return f"{ALIVE}:{queue}"


def alive(client: config.Store) -> list[str]:
    """The workers whose announcement (``Presence``) has not lapsed."""
    return [name.decode() for name in _announced(client, ALIVE)]


AI_WORKER_STALE = 30.0  # seconds without an AI worker seen after which a default worker takes over


def ai_worker_alive(client: config.Store, other_than: str | None = None, queue: str = AI) -> bool:
    """Whether an AI worker (one serving the AI queue, or ``queue``, but not the projections)
    is alive (its ``Presence`` has not lapsed)."""
    return any(name.decode() != other_than for name in _announced(client, serving_key(queue)))


def _announced(client: Store, key: str) -> list[bytes]:
    """The names in ``key`` whose announcement has not lapsed."""
    return cast(list[bytes], client.zrangebyscore(key, now_ms(), "+inf"))


class Renewable(Protocol):
    name: str
    ttl_ms: int

    def renew(self) -> object: ...

    def release_all(self) -> None: ...


class Renewer:
    """A daemon thread that renews a worker's ``parts`` (its ``Presence``, its ``Leases``)
    ``RENEWALS`` times per TTL (the first part's), from ``start()`` (which makes the first pass
    itself) until ``stop()`` (which lets go of them)."""

    def __init__(self, *parts: Renewable) -> None:
        self.parts = parts
        self._every = parts[0].ttl_ms / RENEWALS / 1000
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="omerta-leases", daemon=True)

    def start(self) -> None:
        self._pass()
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()
        for part in self.parts:
            try:
                part.release_all()
            except redis.RedisError as exc:  # they lapse on their own
                log.warning("worker %s could not let go of its %s: %s", part.name, _what(part), exc)

    def _run(self) -> None:
        while not self._stop.wait(self._every):
            self._pass()

    def _pass(self) -> None:
        for part in self.parts:
            try:
                part.renew()
            except Exception:  # the next pass tries again; the part lapses meanwhile
                log.warning(
                    "worker %s could not renew its %s", part.name, _what(part), exc_info=True
                )


def _what(part: Renewable) -> str:
    return type(part).__name__.lower()  # "presence", "leases"


def holding(client: config.Store) -> tuple[dict[str, int], list[int]]:
    """The leases now: how many shards each worker holds, and the shards no worker holds."""
    pipe = client.pipeline(transaction=False)
    for shard in range(shards.SHARDS):
        pipe.get(lease_key(shard))
    holders: dict[str, int] = {}
    unheld = []
    for shard, holder in enumerate(pipe.execute()):
        if holder is None:
            unheld.append(shard)
        else:
            holders[holder.decode()] = holders.get(holder.decode(), 0) + 1
    return dict(sorted(holders.items())), unheld


def report(client: config.Store) -> dict[str, object]:
    """``holding`` as ``omerta status`` shows it."""
    holders, unheld = holding(client)
    return {"holders": holders, "unheld": unheld}
