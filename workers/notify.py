"""The notification jobs (issue 14), driven by the projection.

``on_change`` (the projector's hook, installed by ``runtime.projector``) derives the notices of a
read-model change (``services.notifications.derive``) and enqueues one ``fan_out`` job for
them. ``fan_out`` enqueues a ``deliver_webhook`` job per (notice, hook) the player wants, and
records each in the pending set ``notify:pending`` (member: the job's arguments, score: when it
is due to be looked at again, ms).

``deliver_webhook`` claims the sending (``notifications.claim``, a lease longer than RQ's limit
for the try), POSTs it, and marks it sent (or releases the claim on a failure, and RQ retries
it with ``OMERTA_WEBHOOK_BACKOFF``). A second try of a sent one does nothing; a try that meets a
live claim fails and is retried later.

A worker killed mid-send leaves the claim to expire and the job in RQ's started registry (RQ
notices it only a minute later). The catch-up (``catch_up``, from the worker's maintenance)
re-enqueues any pending sending past its due time that nobody holds and that was not sent, so
it is sent once its lease is over. Exactly once holds up to the HTTP call itself: a receiver
whose answer was lost gets the body again, with the same ``X-Omerta-Delivery``
(``services.webhooks``).

Known limits: two projections of one game at once may both read the same stored summary and
write different versions (v3 -> v5 and v3 -> v7): a turn both see begin is then notified at
each version (two delivery ids). A sending that waits in the queue longer than its lease is
enqueued again by the catch-up (its record makes the copy send nothing).
"""

from __future__ import annotations

import logging

import msgspec
import redis
from rq import Retry, get_current_job

from services import config
from services import notifications as nt
from services import webhooks as wh
from services.commands import service
from services.readmodels import Summary
from services.store import now_ms, unavailable
from workers import notify_mail, notify_push, runtime

log = logging.getLogger(__name__)

PENDING = "notify:pending"
LEASE_MARGIN = 5  # seconds: a try's limit past the HTTP timeout, a claim's past the try's
FAILURE_TTL = 7 * 24 * 3600
CATCH_UP_BATCH = 100

_notices = msgspec.json.Decoder(list[nt.Notice])
_pending = msgspec.json.Decoder(tuple[str, str, nt.Notice])


def on_change(before: Summary | None, after: Summary) -> None:
    notices = nt.derive(before, after)
    if not notices:
        return
    seated = sum(1 for s in after.seats if s.kind != "open")
    runtime.enqueue(
        runtime.NOTIFY,
        "workers.notify.fan_out",
        args=(msgspec.json.encode(notices).decode(),),
        job_id=f"notify-{after.game_id}-{after.version}-{seated}",
        timeout=60,
        result_ttl=0,
        failure_ttl=FAILURE_TTL,
        retry=Retry(max=3, interval=[1, 5, 30]),
        description=f"notify {after.game_id} at {after.version}",
    )


def _client() -> redis.Redis:
    return service().store.redis


def _job_timeout() -> int:
    """RQ's limit for one try: the HTTP timeout bounds each read, not a receiver that trickles."""
    return int(config.settings().webhook_timeout) + LEASE_MARGIN


def _lease() -> int:
    """A claim outlives the try that made it: no second try sends while the first may."""
    return _job_timeout() + LEASE_MARGIN


def fan_out(notices_json: str) -> int:
    """Enqueue the sendings of these notices; how many."""
    client = _client()
    hooks, prefs = wh.Webhooks(client), nt.Preferences(client)
    notices = _notices.decode(notices_json)
    count = notify_mail.route(client, notices)  # the email channel
    for notice in notices:
        count += notify_push.fan_out(client, notice)
        if not prefs.wants(notice.player, "webhook", notice.event):
            continue
        for hook in hooks.list(notice.player):
            _enqueue_delivery(client, notice.player, hook.id, notice)
            count += 1
    return count


def _enqueue_delivery(
    client: redis.Redis, player: str, hook_id: str, notice: nt.Notice, suffix: str = ""
) -> None:
    member = msgspec.json.encode((player, hook_id, notice))
    delivery = nt.delivery_id(notice, "webhook", hook_id)
    with unavailable():
        client.zadd(PENDING, {member: now_ms() + 1000 * _lease()})
    backoff = list(config.settings().webhook_backoff)
    runtime.enqueue(
        runtime.NOTIFY,
        "workers.notify.deliver_webhook",
        args=(player, hook_id, member.decode()),
        job_id=f"webhook-{delivery}{suffix}",
        timeout=_job_timeout(),
        result_ttl=0,
        failure_ttl=FAILURE_TTL,
        retry=Retry(max=len(backoff), interval=backoff),
        description=f"webhook {delivery}",
    )


def deliver_webhook(player: str, hook_id: str, member: str) -> str:
    """Send one notice to one hook, once: ``sent``, ``duplicate`` (sent before) or ``gone``
    (the hook was deleted, or the player no longer wants the event since it was queued).
    Raises (RQ retries) on a failed call or a claim held elsewhere."""
    client = _client()
    notice = _pending.decode(member)[2]
    hooks = wh.Webhooks(client)
    hook = hooks.get(player, hook_id)
    delivery = nt.delivery_id(notice, "webhook", hook_id)
    if hook is None or not nt.Preferences(client).wants(player, "webhook", notice.event):
        _done(client, member)
        return "gone"
    lease = _lease()
    token = nt.claim(client, delivery, lease)
    if token is None:
        _done(client, member)
        return "duplicate"
    with unavailable():  # the catch-up leaves it alone while this try may still be sending
        client.zadd(PENDING, {member: now_ms() + 1000 * lease})
    try:
        wh.post(
            hook,
            hooks.secret(hook_id),
            delivery,
            wh.payload(notice, delivery),
            config.settings().webhook_timeout,
        )
    except wh.DeliveryFailed:
        nt.release(client, delivery, token)
        _after_failure(client, member)
        raise
    nt.mark_sent(client, delivery)
    _done(client, member)
    return "sent"


def _after_failure(client: redis.Redis, member: str) -> None:
    """Keep the catch-up off this sending until RQ's next try is due (or forget it: the last)."""
    job = get_current_job()
    left = job.retries_left if job is not None else None
    if not left:
        _done(client, member)
        return
    backoff = config.settings().webhook_backoff
    wait = backoff[min(len(backoff) - left, len(backoff) - 1)]
    with unavailable():
        client.zadd(PENDING, {member: now_ms() + 1000 * (wait + _lease())})


def _done(client: redis.Redis, member: str) -> None:
    with unavailable():
        client.zrem(PENDING, member)


def catch_up(client: redis.Redis) -> int:
    """Re-enqueue the pending sendings past their due time that nobody holds (a worker died
    with them); how many."""
    with unavailable():
        due = client.zrangebyscore(PENDING, 0, now_ms(), start=0, num=CATCH_UP_BATCH)
    revived = 0
    for raw in due:
        player, hook_id, notice = _pending.decode(raw)
        delivery = nt.delivery_id(notice, "webhook", hook_id)
        with unavailable():
            held = client.exists(nt.record_key(delivery))
        if held:  # sent (its try died before forgetting it) or claimed: the try decides
            if nt.was_sent(client, delivery):
                _done(client, raw.decode())
            continue
        _enqueue_delivery(client, player, hook_id, notice, suffix=f"-catch-up-{now_ms()}")
        revived += 1
    return revived + notify_push.catch_up(client) + notify_mail.catch_up(client)
