"""The browser push channel of the notifications (issue 14), beside ``workers.notify.notices``'s
webhooks and driven by its ``fan_out`` and ``catch_up``.

``fan_out`` enqueues a ``deliver_push`` job per (notice, subscription) the player wants, each
recorded in the pending set of its player's shard, ``notify:pending:push:{<shard tag>}``
(``workers.notify.pending``; member: the job's arguments, score: when it is due to be looked at
again,
ms). ``deliver_push`` claims the sending
(``services.notify.notifications``' delivery record, channel ``push``, target the subscription id),
pushes it (``services.notify.push.send``), and marks it sent; a failed push releases the claim and
RQ
retries it with ``OMERTA_WEBHOOK_BACKOFF``. A 404 or 410 from the push service deletes the
subscription and ends the sending. The catch-up re-enqueues a pending sending nobody holds past
its due time (a worker died with it), as ``workers.notify.notices`` does for webhooks.
"""

from __future__ import annotations

from collections.abc import Iterable

import redis

from services.eventstore import shards
from services.notify import notifications as nt
from services.notify import push
from services.platform import config
from workers.context import Context
from workers.notify import pending
from workers.queues import Queues, job

CHANNEL = "push"
PENDING = "notify:pending:push"
_pushes = pending.Pending(PENDING, CHANNEL, "workers.notify.push.deliver_push", "push")


def fan_out(client: redis.Redis, queues: Queues, notice: nt.Notice) -> int:
    """Enqueue the pushes of one notice to its player's browsers; how many."""
    if not nt.Preferences(client).wants(notice.player, CHANNEL, notice.event):
        return 0
    subs = push.Subscriptions(client).list(notice.player)
    for sub in subs:
        _pushes.enqueue(client, queues, notice.player, sub.id, notice)
    return len(subs)


@job
def deliver_push(context: Context, player: str, sub_id: str, member: str) -> str:
    """Push one notice to one browser, once: ``sent``, ``duplicate`` (sent before), ``gone``
    (unsubscribed, or the event no longer wanted) or ``dropped`` (the push service said the
    subscription is gone: deleted). Raises (RQ retries) on a failed push or a claim held
    elsewhere."""
    client = context.store
    notice = _pushes.decode(member)[2]
    subs = push.Subscriptions(client)
    sub = subs.get(player, sub_id)
    if sub is None or not nt.Preferences(client).wants(player, CHANNEL, notice.event):
        _pushes.done(client, member)
        return "gone"
    delivery = nt.delivery_id(notice, CHANNEL, sub_id)
    lease = pending.lease()
    token = nt.claim(client, delivery, lease)
    if token is None:
        _pushes.done(client, member)
        return "duplicate"
    _pushes.hold(client, member, lease)  # the catch-up leaves it alone while this try pushes
    try:
        push.send(sub, push.payload(notice, sub.lang), config.settings().webhook_timeout)
    except push.Gone:
        subs.delete(player, sub_id)
        nt.release(client, delivery, token)
        _pushes.done(client, member)
        return "dropped"
    except push.DeliveryFailed:
        nt.release(client, delivery, token)
        _pushes.after_failure(client, member)
        raise
    nt.mark_sent(client, delivery)
    _pushes.done(client, member)
    return "sent"


def catch_up(
    client: redis.Redis, queues: Queues, which: Iterable[int] = range(shards.SHARDS)
) -> int:
    """Re-enqueue the pending pushes of the shards ``which`` that a dead worker left; how
    many."""
    return _pushes.revive(client, queues, which)
