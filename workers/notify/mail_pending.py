"""The notification mails' jobs and their pending set (``workers.notify.mail``'s bookkeeping):
what enqueues a mail's or a digest's job, what keeps track of it until it is done, and the
catch-up that enqueues it again when a worker died with it.

A mail (``MAIL``: its batch id) or a digest (``DIGEST``: its window's end) on its way is a
member ``[kind, player, game, id or end]`` of the pending set of its player's shard
(``notify:mail:pending:{<shard tag>}``, ``services.eventstore.shards``), scored with the time after
which
the catch-up may enqueue its job again (ms): a try holds it for its lease, a failure until
RQ's next try is due (the last one forgets it), the job's end forgets it.

The jobs themselves (``deliver_mail``, ``send_digest``) are ``workers.notify.mail``'s: their
dotted paths are what RQ keeps of every job queued.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

import msgspec
import redis
from rq import Retry, get_current_job
from rq.exceptions import DuplicateJobError

from services.eventstore import shards
from services.eventstore.store import now_ms, unavailable
from services.notify import notifications as nt
from services.platform import config
from workers.mailer import MAIL_RETRY
from workers.notify import pending
from workers.queues import NOTIFY, Queues

CHANNEL = "email"
PENDING = "notify:mail:pending"
MARGIN = 5  # seconds: a try's limit past its SMTP steps, a claim's past the try's
SCHEDULER_SLACK = 10  # seconds RQ's scheduler may take to start a due digest
FAILURE_TTL = 7 * 24 * 3600
MAIL = "mail"
DIGEST = "digest"
DELIVER_MAIL = "workers.notify.mail.deliver_mail"
SEND_DIGEST = "workers.notify.mail.send_digest"

_pending = msgspec.json.Decoder(tuple[str, str, str, str])


def pending_key(player: str) -> str:
    """The pending set of the player's shard."""
    return shards.key(PENDING, shards.of(player))


def member(kind: str, player: str, game_id: str, ref: str) -> bytes:
    return msgspec.json.encode((kind, player, game_id, ref))


def digest_id(player: str, game_id: str, ends: str) -> str:
    """The id of (player, game)'s digest for the window ending at ``ends`` (ms)."""
    raw = "|".join((player, game_id, ends, CHANNEL, "digest")).encode()
    return hashlib.sha256(raw).hexdigest()[:32]


def job_timeout() -> int:
    """RQ's limit for one try: a few SMTP steps, each bounded by ``OMERTA_SMTP_TIMEOUT``."""
    return int(3 * config.settings().smtp_timeout) + MARGIN


def lease() -> int:
    """A claim outlives the try that made it: no second try sends while the first may."""
    return job_timeout() + MARGIN


def _options(mail_id: str, what: str) -> dict[str, Any]:
    """RQ's options of a mail's or a digest's job."""
    return {
        "timeout": job_timeout(),
        "result_ttl": 0,
        "failure_ttl": FAILURE_TTL,
        "retry": Retry(max=MAIL_RETRY.max, interval=MAIL_RETRY.intervals),
        "description": f"notification {what} {mail_id}",
    }


def hold(client: redis.Redis, entry: bytes, until: int) -> None:
    """Keep the catch-up off this mail or digest until ``until`` (ms)."""
    with unavailable():
        client.zadd(_pending_of(entry), {entry: until})


def done(client: redis.Redis, entry: bytes) -> None:
    with unavailable():
        client.zrem(_pending_of(entry), entry)


def _pending_of(entry: bytes) -> str:
    return pending_key(_pending.decode(entry)[1])


def enqueue_mail(
    client: redis.Redis, queues: Queues, player: str, game_id: str, batch: str, suffix: str = ""
) -> int:
    """Record the mail of ``batch`` as pending and enqueue its job (once: 1), unless it was
    sent (a projection run again: 0)."""
    if nt.was_sent(client, batch):
        return 0
    hold(client, member(MAIL, player, game_id, batch), now_ms() + 1000 * lease())
    pending.enqueue_once(
        queues,
        NOTIFY,
        DELIVER_MAIL,
        args=(player, game_id, batch),
        job_id=f"mail-{batch}{suffix}",
        **_options(batch, "mail"),
    )
    return 1


def schedule_digest(
    client: redis.Redis, queues: Queues, player: str, game_id: str, ends: str
) -> int:
    """Record the digest of the window ending at ``ends`` as pending and schedule its job then
    (1), unless it was sent (0)."""
    mail_id = digest_id(player, game_id, ends)
    if nt.was_sent(client, mail_id):
        return 0
    entry = member(DIGEST, player, game_id, ends)
    hold(client, entry, int(ends) + 1000 * (lease() + SCHEDULER_SLACK))
    # Scheduled by an earlier notice of this window: it is the same digest.
    with contextlib.suppress(DuplicateJobError):
        queues.queue(NOTIFY).enqueue_at(
            datetime.fromtimestamp(int(ends) / 1000, tz=UTC),
            SEND_DIGEST,
            args=(player, game_id, ends),
            job_id=f"maildigest-{mail_id}",
            unique=True,
            **_options(mail_id, "digest"),
        )
    return 1


def after_failure(client: redis.Redis, entry: bytes) -> None:
    """Keep the catch-up off this mail until RQ's next try is due (or forget it: the last)."""
    job = get_current_job()
    left = job.retries_left if job is not None else None
    if not left:
        done(client, entry)
        return
    intervals = MAIL_RETRY.intervals
    wait = intervals[min(len(intervals) - left, len(intervals) - 1)]
    hold(client, entry, now_ms() + 1000 * (wait + lease()))


def catch_up(
    client: redis.Redis, queues: Queues, which: Iterable[int] = range(shards.SHARDS)
) -> int:
    """Re-enqueue the pending mails and digests of the shards ``which`` past their due time
    that nobody holds (a worker died with them, or a job was lost); how many (at most
    ``pending.CATCH_UP_BATCH`` a shard)."""
    return _revive(client, queues, pending.due(client, PENDING, which))


def _revive(client: redis.Redis, queues: Queues, due: list[bytes]) -> int:
    revived = 0
    for raw in due:
        kind, player, game_id, ref = _pending.decode(raw)
        mail_id = ref if kind == MAIL else digest_id(player, game_id, ref)
        if nt.was_sent(client, mail_id):
            done(client, raw)
            continue
        with unavailable():
            held = client.exists(nt.record_key(mail_id))
        if held:  # claimed: the try decides
            continue
        suffix = f"-catch-up-{now_ms()}"
        if kind == MAIL:
            enqueue_mail(client, queues, player, game_id, ref, suffix)
        else:  # past its window's end: at once
            hold(client, raw, now_ms() + 1000 * lease())
            queues.enqueue(
                NOTIFY,
                SEND_DIGEST,
                args=(player, game_id, ref),
                job_id=f"maildigest-{mail_id}{suffix}",
                **_options(mail_id, "digest"),
            )
        revived += 1
    return revived
