"""The browser push channel of the notifications (issue 14), beside ``workers.notify``'s
webhooks and driven by its ``fan_out`` and ``catch_up``.

``fan_out`` enqueues a ``deliver_push`` job per (notice, subscription) the player wants, each
recorded in the pending set ``notify:pending:push`` (member: the job's arguments, score: when it
is due to be looked at again, ms). ``deliver_push`` claims the sending
(``services.notifications``' delivery record, channel ``push``, target the subscription id),
pushes it (``services.push.send``), and marks it sent; a failed push releases the claim and RQ
retries it with ``OMERTA_WEBHOOK_BACKOFF``. A 404 or 410 from the push service deletes the
subscription and ends the sending. The catch-up re-enqueues a pending sending nobody holds past
its due time (a worker died with it), as ``workers.notify`` does for webhooks.
"""

from __future__ import annotations

import msgspec
import redis
from rq import Retry, get_current_job

from services import config, push
from services import notifications as nt
from services.commands import service
from services.store import now_ms, unavailable
from workers import runtime

CHANNEL = "push"
PENDING = "notify:pending:push"
LEASE_MARGIN = 5  # seconds: a try's limit past the HTTP timeout, a claim's past the try's
FAILURE_TTL = 7 * 24 * 3600
CATCH_UP_BATCH = 100

_pending = msgspec.json.Decoder(tuple[str, str, nt.Notice])


def _job_timeout() -> int:
    return int(config.settings().webhook_timeout) + LEASE_MARGIN


def _lease() -> int:
    return _job_timeout() + LEASE_MARGIN


def fan_out(client: redis.Redis, notice: nt.Notice) -> int:
    """Enqueue the pushes of one notice to its player's browsers; how many."""
    if not nt.Preferences(client).wants(notice.player, CHANNEL, notice.event):
        return 0
    subs = push.Subscriptions(client).list(notice.player)
    for sub in subs:
        _enqueue_delivery(client, notice.player, sub.id, notice)
    return len(subs)


def _enqueue_delivery(
    client: redis.Redis, player: str, sub_id: str, notice: nt.Notice, suffix: str = ""
) -> None:
    member = msgspec.json.encode((player, sub_id, notice))
    delivery = nt.delivery_id(notice, CHANNEL, sub_id)
    with unavailable():
        client.zadd(PENDING, {member: now_ms() + 1000 * _lease()})
    backoff = list(config.settings().webhook_backoff)
    runtime.enqueue(
        runtime.NOTIFY,
        "workers.notify_push.deliver_push",
        args=(player, sub_id, member.decode()),
        job_id=f"push-{delivery}{suffix}",
        timeout=_job_timeout(),
        result_ttl=0,
        failure_ttl=FAILURE_TTL,
        retry=Retry(max=len(backoff), interval=backoff),
        description=f"push {delivery}",
    )


def deliver_push(player: str, sub_id: str, member: str) -> str:
    """Push one notice to one browser, once: ``sent``, ``duplicate`` (sent before), ``gone``
    (unsubscribed, or the event no longer wanted) or ``dropped`` (the push service said the
    subscription is gone: deleted). Raises (RQ retries) on a failed push or a claim held
    elsewhere."""
    client = _client()
    notice = _pending.decode(member)[2]
    subs = push.Subscriptions(client)
    sub = subs.get(player, sub_id)
    if sub is None or not nt.Preferences(client).wants(player, CHANNEL, notice.event):
        _done(client, member)
        return "gone"
    delivery = nt.delivery_id(notice, CHANNEL, sub_id)
    lease = _lease()
    token = nt.claim(client, delivery, lease)
    if token is None:
        _done(client, member)
        return "duplicate"
    with unavailable():  # the catch-up leaves it alone while this try may still be pushing
        client.zadd(PENDING, {member: now_ms() + 1000 * lease})
    try:
        push.send(sub, push.payload(notice, sub.lang), config.settings().webhook_timeout)
    except push.Gone:
        subs.delete(player, sub_id)
        nt.release(client, delivery, token)
        _done(client, member)
        return "dropped"
    except push.DeliveryFailed:
        nt.release(client, delivery, token)
        _after_failure(client, member)
        raise
    nt.mark_sent(client, delivery)
    _done(client, member)
    return "sent"


def _client() -> redis.Redis:
    return service().store.redis


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
    """Re-enqueue the pending pushes past their due time that nobody holds; how many."""
    with unavailable():
        due = client.zrangebyscore(PENDING, 0, now_ms(), start=0, num=CATCH_UP_BATCH)
    revived = 0
    for raw in due:
        player, sub_id, notice = _pending.decode(raw)
        delivery = nt.delivery_id(notice, CHANNEL, sub_id)
        with unavailable():
            held = client.exists(nt.record_key(delivery))
        if held:
            if nt.was_sent(client, delivery):
                _done(client, raw.decode())
            continue
        _enqueue_delivery(client, player, sub_id, notice, suffix=f"-catch-up-{now_ms()}")
        revived += 1
    return revived
