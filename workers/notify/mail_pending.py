"""The notification mails' jobs and their pending set (``workers.notify.mail``'s bookkeeping):
what enqueues a mail's or a digest's job, and how the catch-up (``workers.notify.channel``)
enqueues it again when a worker died with it.

A mail (``MAIL``: its batch id) or a digest (``DIGEST``: its window's end) on its way is a
member ``[kind, player, game, id or end]`` of the pending set of its player's shard
(``notify:mail:pending:{<shard tag>}``, ``workers.notify.pending``), scored with the time
after which the catch-up may enqueue its job again (ms): a try holds it for its lease, a
failure until RQ's next try is due (``workers.mailer``'s backoff; the last one forgets it), the
job's end forgets it.

The jobs themselves (``deliver_mail``, ``send_digest``) are ``workers.notify.mail``'s: their
dotted paths are what RQ keeps of every job queued.
"""

from __future__ import annotations

import contextlib
import hashlib
from datetime import UTC, datetime
from typing import Any

import msgspec
from rq.exceptions import DuplicateJobError

from services.eventstore.store import now_ms
from services.notify import notifications as nt
from services.platform.config import Settings, Store
from workers.mailer import MAIL_RETRY
from workers.notify.pending import FAILURE_TTL, Pending, enqueue_once
from workers.queues import NOTIFY, Queues

CHANNEL = "email"
PENDING = "notify:mail:pending"
MARGIN = 5  # seconds: a try's limit past its SMTP steps, a claim's past the try's
SCHEDULER_SLACK = 10  # seconds RQ's scheduler may take to start a due digest
MAIL = "mail"
DIGEST = "digest"
DELIVER_MAIL = "workers.notify.mail.deliver_mail"
SEND_DIGEST = "workers.notify.mail.send_digest"

_member = msgspec.json.Decoder(tuple[str, str, str, str])


def member(kind: str, player: str, game_id: str, ref: str) -> bytes:
    return msgspec.json.encode((kind, player, game_id, ref))


def decode(entry: str | bytes) -> tuple[str, str, str, str]:
    """A member's ``(kind, player, game, id or end)``."""
    return _member.decode(entry)


def digest_id(player: str, game_id: str, ends: str) -> str:
    """The id of (player, game)'s digest for the window ending at ``ends`` (ms)."""
    raw = "|".join((player, game_id, ends, CHANNEL, "digest")).encode()
    return hashlib.sha256(raw).hexdigest()[:32]


def job_timeout(settings: Settings) -> int:
    """RQ's limit for one try: a few SMTP steps, each bounded by ``OMERTA_SMTP_TIMEOUT``."""
    return int(3 * settings.smtp_timeout) + MARGIN


def lease(settings: Settings) -> int:
    """A claim outlives the try that made it: no second try sends while the first may."""
    return job_timeout(settings) + MARGIN


def pending_set(client: Store, settings: Settings) -> Pending:
    """The mails' and digests' pending set."""
    return Pending(
        client,
        PENDING,
        lambda entry: decode(entry)[1],
        lambda: MAIL_RETRY.intervals,
        lambda: lease(settings),
    )


def _options(pending: Pending, settings: Settings, mail_id: str, what: str) -> dict[str, Any]:
    """RQ's options of a mail's or a digest's job."""
    return {
        "timeout": job_timeout(settings),
        "result_ttl": 0,
        "failure_ttl": FAILURE_TTL,
        "retry": pending.retry(),
        "description": f"notification {what} {mail_id}",
    }


def enqueue_mail(
    pending: Pending,
    queues: Queues,
    settings: Settings,
    player: str,
    game_id: str,
    batch: str,
    suffix: str = "",
) -> int:
    """Record the mail of ``batch`` as pending and enqueue its job (once: 1), unless it was
    sent (a projection run again: 0)."""
    if nt.was_sent(pending.client, batch):
        return 0
    pending.hold_for_lease(member(MAIL, player, game_id, batch))
    enqueue_once(
        queues,
        NOTIFY,
        DELIVER_MAIL,
        args=(player, game_id, batch),
        job_id=f"mail-{batch}{suffix}",
        **_options(pending, settings, batch, "mail"),
    )
    return 1


def schedule_digest(
    pending: Pending, queues: Queues, settings: Settings, player: str, game_id: str, ends: str
) -> int:
    """Record the digest of the window ending at ``ends`` as pending and schedule its job then
    (1), unless it was sent (0)."""
    mail_id = digest_id(player, game_id, ends)
    if nt.was_sent(pending.client, mail_id):
        return 0
    entry = member(DIGEST, player, game_id, ends)
    pending.hold(entry, int(ends) + 1000 * (lease(settings) + SCHEDULER_SLACK))
    # Scheduled by an earlier notice of this window: it is the same digest.
    with contextlib.suppress(DuplicateJobError):
        queues.queue(NOTIFY).enqueue_at(
            datetime.fromtimestamp(int(ends) / 1000, tz=UTC),
            SEND_DIGEST,
            args=(player, game_id, ends),
            job_id=f"maildigest-{mail_id}",
            unique=True,
            **_options(pending, settings, mail_id, "digest"),
        )
    return 1


def mail_id_of(entry: bytes) -> str:
    """The id of a member's mail (its delivery record)."""
    kind, player, game_id, ref = decode(entry)
    return ref if kind == MAIL else digest_id(player, game_id, ref)


def revive(pending: Pending, queues: Queues, settings: Settings, entry: bytes) -> None:
    """Enqueue again the job of a member nobody holds (the catch-up's)."""
    kind, player, game_id, ref = decode(entry)
    suffix = f"-catch-up-{now_ms()}"
    if kind == MAIL:
        enqueue_mail(pending, queues, settings, player, game_id, ref, suffix)
        return
    # Past its window's end: at once.
    mail_id = digest_id(player, game_id, ref)
    pending.hold_for_lease(entry)
    queues.enqueue(
        NOTIFY,
        SEND_DIGEST,
        args=(player, game_id, ref),
        job_id=f"maildigest-{mail_id}{suffix}",
        **_options(pending, settings, mail_id, "digest"),
    )
