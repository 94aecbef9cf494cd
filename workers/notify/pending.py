"""The pending set of a notification channel (``workers.notify.channel``): every sending under
way, as the channel's member (its job's arguments), scored with the time after which the
catch-up may enqueue it again (ms). A try holds it for its lease; a failure holds it until RQ's
next try is due (the last one forgets it); a success forgets it. What is past its time and
nobody holds (no delivery record: a worker died with it) is enqueued again by the catch-up
(``workers.notify.channel.catch_up``). Every channel's set, backoff and catch-up work so: only
what a member is, and how its job is enqueued, is the channel's.

The set is one per shard (``services.eventstore.shards``): a sending is kept in its player's
shard's copy (``<name>:{<tag>}``), so no single key takes every sending's writes, and the
catch-up reads the copies of the shards it is given (a worker's: those it holds the lease of).

The fan-outs (``workers.notify.notices.fan_outs``) are kept in such a set too, a member being a
fan-out's notices in its game's shard's copy; a failure never forgets one (only the channels
taking its notices does), so the catch-up runs again a fan-out whose job is gone or failed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from rq import Retry, get_current_job
from rq.exceptions import DuplicateJobError

from services.eventstore import shards
from services.eventstore.store import now_ms, unavailable
from services.platform.config import Store
from workers.queues import Queues

FAILURE_TTL = 7 * 24 * 3600
CATCH_UP_BATCH = 100


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


class Pending:
    """``name``: the sets' (one per shard); ``player_of``: the player (or game) of a member
    (their shard keeps it); ``backoff``: the seconds before each of RQ's next tries; ``lease``:
    how long a try holds a member (seconds). Both are read when used: the settings may change."""

    def __init__(
        self,
        client: Store,
        name: str,
        player_of: Callable[[str | bytes], str],
        backoff: Callable[[], Sequence[int]],
        lease: Callable[[], int],
    ) -> None:
        self.client, self.name, self.player_of = client, name, player_of
        self.backoff, self.lease = backoff, lease

    def key(self, player: str) -> str:
        """The set of the player's shard."""
        return shards.key(self.name, shards.of(player))

    def retry(self) -> Retry:
        """RQ's tries of a sending after its first."""
        backoff = list(self.backoff())
        return Retry(max=len(backoff), interval=backoff)

    def hold(self, entry: str | bytes, until: int) -> None:
        """Keep the catch-up off this sending until ``until`` (ms)."""
        with unavailable():
            # as bytes, as redis-py would send a str (a zadd's members have one type)
            member = entry.encode() if isinstance(entry, str) else entry
            self.client.zadd(self.key(self.player_of(entry)), {member: until})

    def hold_for_lease(self, entry: str | bytes) -> None:
        """Keep the catch-up off this sending while a try may be under way."""
        self.hold(entry, now_ms() + 1000 * self.lease())

    def done(self, entry: str | bytes) -> None:
        with unavailable():
            self.client.zrem(self.key(self.player_of(entry)), entry)

    def after_failure(self, entry: str | bytes) -> bool:
        """Keep the catch-up off this sending until RQ's next try is due (or forget it: the
        last); whether that was the last try."""
        job = get_current_job()
        left = job.retries_left if job is not None else None
        if not left:
            self.done(entry)
            return True
        backoff = self.backoff()
        wait = backoff[min(len(backoff) - left, len(backoff) - 1)]
        self.hold(entry, now_ms() + 1000 * (wait + self.lease()))
        return False

    def due(self, which: Iterable[int]) -> list[bytes]:
        """The members past their time in the sets of the shards ``which`` (at most
        ``CATCH_UP_BATCH`` a shard), shard after shard."""
        pipe = self.client.pipeline(transaction=False)
        for shard in which:
            pipe.zrangebyscore(
                shards.key(self.name, shard), 0, now_ms(), start=0, num=CATCH_UP_BATCH
            )
        with unavailable():
            found = pipe.execute()
        return [raw for members in found for raw in members]
