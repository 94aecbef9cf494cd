"""The pending set of a notification channel (webhooks, push): every sending under way, by
``(player, target, notice)``, scored with the time after which the catch-up may enqueue it
again. A try holds it for its lease; a failure holds it until RQ's next try is due (the last
one forgets it); a success forgets it. What is past its time and nobody holds (no delivery
record: a worker died with it) is enqueued again by ``revive``.

The set is one per shard (``services.eventstore.shards``): a sending is kept in its player's
shard's copy
(``<name>:{<tag>}``), so no single key takes every sending's writes, and ``revive`` reads the
copies of the shards it is given (a worker's: those it holds the lease of).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec
import redis
from rq import Retry, get_current_job
from rq.exceptions import DuplicateJobError

from services.eventstore import shards
from services.eventstore.store import now_ms, unavailable
from services.notify import notifications as nt
from services.platform import config
from workers.queues import NOTIFY, Queues

FAILURE_TTL = 7 * 24 * 3600
LEASE_MARGIN = 5  # seconds: a try's limit past the HTTP timeout, a claim's past the try's
CATCH_UP_BATCH = 100

_member = msgspec.json.Decoder(tuple[str, str, nt.Notice])


def job_timeout() -> int:
    """RQ's limit for one try: the HTTP call's, and a margin."""
    return int(config.settings().webhook_timeout) + LEASE_MARGIN


def lease() -> int:
    """How long a claim (and a pending entry) outlives the try that holds it."""
    return job_timeout() + LEASE_MARGIN


def enqueue_once(queues: Queues, name: str, func: str, *, job_id: str, **options: Any) -> bool:
    """Enqueue the job on queue ``name`` unless RQ holds a job of that id (queued, running,
    waiting for a retry, or failed for good); whether it was enqueued now.

    RQ's ``unique`` enqueue checks and writes the job in one script, so callers racing with
    one id make one job (two enqueues of an id run it twice, the second failing RQ's cleanup),
    and there is no claim without its job to release or repair. The job's record is the claim:
    it goes when the job succeeds (``result_ttl=0``), so a later call enqueues the job again
    (the notification jobs are idempotent), or after ``failure_ttl`` when it failed."""
    try:
        queues.queue(name).enqueue_call(func, job_id=job_id, unique=True, **options)
    except DuplicateJobError:
        return False
    return True


def due(client: redis.Redis, name: str, which: Iterable[int]) -> list[bytes]:
    """The members past their time in the sets ``name`` of the shards ``which`` (at most
    ``CATCH_UP_BATCH`` a shard), shard after shard."""
    pipe = client.pipeline(transaction=False)
    for shard in which:
        pipe.zrangebyscore(shards.key(name, shard), 0, now_ms(), start=0, num=CATCH_UP_BATCH)
    with unavailable():
        found = pipe.execute()
    return [raw for members in found for raw in members]


class Pending:
    """``name``: the sets' (one per shard); ``channel``: the delivery records'; ``job``: the
    try's function (called with player, target, entry); ``prefix``: its job ids'."""

    def __init__(self, name: str, channel: str, job: str, prefix: str) -> None:
        self.name, self.channel, self.job, self.prefix = name, channel, job, prefix

    def key(self, player: str) -> str:
        """The set of the player's shard."""
        return shards.key(self.name, shards.of(player))

    def enqueue(
        self,
        client: redis.Redis,
        queues: Queues,
        player: str,
        target: str,
        notice: nt.Notice,
        suffix: str = "",
    ) -> None:
        """Record the sending as pending, then enqueue its first try (RQ retries it)."""
        entry = msgspec.json.encode((player, target, notice)).decode()
        delivery = nt.delivery_id(notice, self.channel, target)
        self.hold(client, entry, lease())
        backoff = list(config.settings().webhook_backoff)
        enqueue_once(
            queues,
            NOTIFY,
            self.job,
            args=(player, target, entry),
            job_id=f"{self.prefix}-{delivery}{suffix}",
            timeout=job_timeout(),
            result_ttl=0,
            failure_ttl=FAILURE_TTL,
            retry=Retry(max=len(backoff), interval=backoff),
            description=f"{self.prefix} {delivery}",
        )

    def decode(self, entry: str | bytes) -> tuple[str, str, nt.Notice]:
        return _member.decode(entry)

    def hold(self, client: redis.Redis, entry: str, seconds: int) -> None:
        with unavailable():
            client.zadd(self.key(self.decode(entry)[0]), {entry: now_ms() + 1000 * seconds})

    def done(self, client: redis.Redis, entry: str) -> None:
        with unavailable():
            client.zrem(self.key(self.decode(entry)[0]), entry)

    def after_failure(self, client: redis.Redis, entry: str) -> bool:
        """Keep the catch-up off this sending until RQ's next try is due (or forget it: the
        last); whether that was the last try."""
        job = get_current_job()
        left = job.retries_left if job is not None else None
        if not left:
            self.done(client, entry)
            return True
        backoff = config.settings().webhook_backoff
        self.hold(client, entry, backoff[min(len(backoff) - left, len(backoff) - 1)] + lease())
        return False

    def revive(
        self, client: redis.Redis, queues: Queues, which: Iterable[int] = range(shards.SHARDS)
    ) -> int:
        """Enqueue again the sendings in the sets of the shards ``which`` past their time that
        nobody holds (a worker died with them); how many (at most ``CATCH_UP_BATCH`` a shard)."""
        return self._revive(client, queues, due(client, self.name, which))

    def _revive(self, client: redis.Redis, queues: Queues, found: list[bytes]) -> int:
        revived = 0
        for raw in found:
            player, target, notice = self.decode(raw)
            delivery = nt.delivery_id(notice, self.channel, target)
            with unavailable():
                held = client.exists(nt.record_key(delivery))
            if held:  # sent (its try died before forgetting it) or claimed: the try decides
                if nt.was_sent(client, delivery):
                    self.done(client, raw.decode())
                continue
            self.enqueue(client, queues, player, target, notice, f"-catch-up-{now_ms()}")
            revived += 1
        return revived
