"""The notification jobs (issue 14), driven by the projection.

``Notifications.on_change`` (the projector's listener, given by ``bootstrap``) derives the notices
of a read-model change (``services.notify.notifications.derive``) and enqueues one ``fan_out`` job
for them, once per (game, version, seats taken): projections of one version that both tell it before
either writes make one job (``pending.enqueue_once``). ``fan_out`` enqueues a ``deliver_webhook``
job per (notice, hook) the player wants, and records each in the pending set of its player's shard,
``notify:pending:{<shard tag>}`` (``workers.notify.pending``; member: the job's arguments, score:
when it is due to be looked at again, ms).

``deliver_webhook`` claims the sending (``notifications.claim``, a lease longer than RQ's limit
for the try), POSTs it, and marks it sent (or releases the claim on a failure, and RQ retries
it with ``OMERTA_WEBHOOK_BACKOFF``). A second try of a sent one does nothing; a try that meets a
live claim fails and is retried later. Every failed try (``webhooks.DeliveryFailed``: no DNS,
refused, timeout, not 2xx) is logged in one line without a traceback (``workers.worker``) and
kept as the hook's last failure (``Webhooks.failed``); after the last try the sending is
given up: logged once as a warning, and the job ends without raising.

A worker killed mid-send leaves the claim to expire and the job in RQ's started registry (RQ
notices it only a minute later). The catch-up (``catch_up``, from the worker's maintenance)
re-enqueues any pending sending past its due time that nobody holds and that was not sent, so
it is sent once its lease is over. Exactly once holds up to the HTTP call itself: a receiver
whose answer was lost gets the body again, with the same ``X-Omerta-Delivery``
(``services.notify.webhooks``).

Known limits: two projections of one game at once may both read the same stored summary and
write different versions (v3 -> v5 and v3 -> v7): a turn both see begin is then notified at
each version (two delivery ids). A sending that waits in the queue longer than its lease is
enqueued again by the catch-up (its record makes the copy send nothing).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

import msgspec
import redis
from rq import Retry

from services.eventstore import shards
from services.eventstore.store import now_ms
from services.notify import notifications as nt
from services.notify import webhooks as wh
from services.platform import config
from services.readside.readmodels import Summary
from workers.context import Context
from workers.notify import mail as notify_mail
from workers.notify import mail_pending as notify_mail_pending
from workers.notify import pending
from workers.notify import push as notify_push
from workers.projection.projector import Listener
from workers.queues import NOTIFY, Queues, job

log = logging.getLogger(__name__)

PENDING = "notify:pending"
_webhooks = pending.Pending(PENDING, "webhook", "workers.notify.notices.deliver_webhook", "webhook")

_notices = msgspec.json.Decoder(list[nt.Notice])


class Notifications(Listener):
    """The projector's listener: enqueues the notices of a read-model change."""

    def __init__(self, queues: Queues) -> None:
        self.queues = queues

    def on_change(self, before: Summary, after: Summary) -> None:
        notices = nt.derive(before, after)
        if not notices:
            return
        seated = sum(1 for s in after.seats if s.kind in ("player", "ai"))
        # Two projections of one version may both get here before either writes: one job.
        pending.enqueue_once(
            self.queues,
            NOTIFY,
            "workers.notify.notices.fan_out",
            args=(msgspec.json.encode(notices).decode(),),
            job_id=f"notify-{after.game_id}-{after.version}-{seated}",
            timeout=60,
            result_ttl=0,
            failure_ttl=pending.FAILURE_TTL,
            retry=Retry(max=3, interval=[1, 5, 30]),
            description=f"notify {after.game_id} at {after.version}",
        )


@job
def fan_out(context: Context, notices_json: str) -> int:
    """Enqueue the sendings of these notices; how many."""
    client, queues = context.store, context.queues
    hooks, prefs = wh.Webhooks(client), nt.Preferences(client)
    notices = _notices.decode(notices_json)
    count = notify_mail.route(client, queues, notices)  # the email channel
    for notice in notices:
        count += notify_push.fan_out(client, queues, notice)
        if not prefs.wants(notice.player, "webhook", notice.event):
            continue
        for hook in hooks.list(notice.player):
            _webhooks.enqueue(client, queues, notice.player, hook.id, notice)
            count += 1
    return count


@job
def deliver_webhook(context: Context, player: str, hook_id: str, member: str) -> str:
    """Send one notice to one hook, once: ``sent``, ``duplicate`` (sent before), ``gone``
    (the hook was deleted, or the player no longer wants the event since it was queued) or
    ``given_up`` (the last try failed). Raises (RQ retries) on a failed call with tries left
    or a claim held elsewhere."""
    client = context.store
    notice = _webhooks.decode(member)[2]
    hooks = wh.Webhooks(client)
    hook = hooks.get(player, hook_id)
    delivery = nt.delivery_id(notice, "webhook", hook_id)
    if hook is None or not nt.Preferences(client).wants(player, "webhook", notice.event):
        _webhooks.done(client, member)
        return "gone"
    lease = pending.lease()
    token = nt.claim(client, delivery, lease)
    if token is None:
        _webhooks.done(client, member)
        return "duplicate"
    _webhooks.hold(client, member, lease)  # the catch-up leaves it alone while this try sends
    try:
        wh.post(
            hook,
            hooks.secret(hook_id),
            delivery,
            wh.payload(notice, delivery),
            config.settings().webhook_timeout,
        )
    except wh.DeliveryFailed as exc:
        nt.release(client, delivery, token)
        given_up = _webhooks.after_failure(client, member)
        hooks.failed(player, hook_id, wh.WebhookFailure(now_ms(), exc.reason, exc.status, given_up))
        log.info("webhook delivery failed: %s to hook %s (%s)", delivery, hook_id, exc)
        if not given_up:
            raise
        log.warning(
            "webhook delivery %s to hook %s of %s given up: %s", delivery, hook_id, player, exc
        )
        return "given_up"
    nt.mark_sent(client, delivery)
    hooks.delivered(player, hook_id)
    _webhooks.done(client, member)
    return "sent"


def catch_up(
    client: redis.Redis, queues: Queues, which: Iterable[int] = range(shards.SHARDS)
) -> int:
    """Re-enqueue the pending sendings of every channel in the shards ``which`` (a worker's:
    those it holds) that a dead worker left; how many."""
    held = list(which)  # read once per channel
    return (
        _webhooks.revive(client, queues, held)
        + notify_push.catch_up(client, queues, held)
        + notify_mail_pending.catch_up(client, queues, held)
    )
