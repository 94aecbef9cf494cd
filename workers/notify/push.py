"""The browser push channel of the notifications (``workers.notify.channel``).

``enqueue`` (from the fan-out) enqueues a ``deliver_push`` job per (notice, subscription) the
player wants, each recorded in the pending set of its player's shard,
``notify:pending:push:{<shard tag>}`` (``workers.notify.pending``; member: the job's arguments,
score: when it is due to be looked at again, ms). ``deliver_push`` claims the sending
(``services.notify.notifications``' delivery record, channel ``push``, target the subscription
id), pushes it (``services.notify.push.send``), and marks it sent; a failed push releases the
claim and RQ retries it with ``OMERTA_WEBHOOK_BACKOFF``. A 404 or 410 from the push service
deletes the subscription and ends the sending. The catch-up re-enqueues a pending sending
nobody holds past its due time (a worker died with it), as for every channel.
"""

from __future__ import annotations

from collections.abc import Sequence

from services.notify import push
from services.platform.config import Settings, Store
from workers.context import Context
from workers.notify import channel
from workers.queues import Queues, job

PENDING = "notify:pending:push"


class Push(channel.Targets):
    """Each notice to each of its player's browsers."""

    name = "push"
    job = "workers.notify.push.deliver_push"

    def __init__(self, client: Store, queues: Queues, settings: Settings) -> None:
        super().__init__(client, queues, PENDING, settings)
        self.subs = push.Subscriptions(client)

    def targets(self, player: str) -> Sequence[str]:
        return [sub.id for sub in self.subs.list(player)]

    def deliver(self, player: str, sub_id: str, member: str) -> str:
        """See ``deliver_push``."""
        sub = self.subs.get(player, sub_id)
        begun = self.begin(member, sub is not None)
        if isinstance(begun, str):
            return begun
        assert sub is not None  # begun
        notice, delivery, token = begun
        try:
            push.send(sub, push.payload(notice, sub.lang), self.settings)
        except push.Gone:
            self.subs.delete(player, sub_id)
            self.ended(member, delivery, token)
            return "dropped"
        except push.DeliveryFailed:
            self.failed(member, delivery, token)
            raise
        self.sent(member, delivery)
        return "sent"


@job
def deliver_push(context: Context, player: str, sub_id: str, member: str) -> str:
    """Push one notice to one browser, once: ``sent``, ``duplicate`` (sent before), ``gone``
    (unsubscribed, or the event no longer wanted) or ``dropped`` (the push service said the
    subscription is gone: deleted). Raises (RQ retries) on a failed push or a claim held
    elsewhere."""
    pushes = Push(context.store, context.queues, context.settings)
    return pushes.deliver(player, sub_id, member)
