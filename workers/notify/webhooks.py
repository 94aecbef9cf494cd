"""The webhook channel of the notifications (issue 14; ``workers.notify.channel``).

``enqueue`` (from the fan-out) enqueues a ``deliver_webhook`` job per (notice, hook) the player
wants, each recorded in the pending set of its player's shard, ``notify:pending:{<shard tag>}``
(``workers.notify.pending``; member: the job's arguments, score: when it is due to be looked at
again, ms).

``deliver_webhook`` claims the sending (``notifications.claim``, a lease longer than RQ's limit
for the try), POSTs it, and marks it sent (or releases the claim on a failure, and RQ retries
it with ``OMERTA_WEBHOOK_BACKOFF``). A second try of a sent one does nothing; a try that meets a
live claim fails and is retried later. Every failed try (``webhooks.DeliveryFailed``: no DNS,
refused, timeout, not 2xx) is logged in one line without a traceback (``workers.worker``) and
kept as the hook's last failure (``Webhooks.failed``); after the last try the sending is
given up: logged once as a warning, and the job ends without raising.

A worker killed mid-send leaves the claim to expire and the job in RQ's started registry (RQ
notices it only a minute later). The catch-up re-enqueues any pending sending past its due time
that nobody holds and that was not sent, so it is sent once its lease is over. Exactly once
holds up to the HTTP call itself: a receiver whose answer was lost gets the body again, with
the same ``X-Omerta-Delivery`` (``services.notify.webhooks``).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from services.eventstore.serversecret import ServerSecret
from services.eventstore.store import now_ms
from services.notify import webhooks as wh
from services.platform.config import Settings, Store
from workers.context import Context
from workers.notify import channel
from workers.queues import Queues, job

log = logging.getLogger(__name__)

PENDING = "notify:pending"


class Webhooks(channel.Targets):
    """Each notice to each of its player's hooks."""

    name = "webhook"
    job = "workers.notify.webhooks.deliver_webhook"

    def __init__(
        self, client: Store, queues: Queues, settings: Settings, secret: ServerSecret
    ) -> None:
        super().__init__(client, queues, PENDING, settings)
        self.hooks = wh.Webhooks(client, secret)

    def targets(self, player: str) -> Sequence[str]:
        return [hook.id for hook in self.hooks.list(player)]

    def deliver(self, player: str, hook_id: str, member: str) -> str:
        """See ``deliver_webhook``."""
        hook = self.hooks.get(player, hook_id)
        begun = self.begin(member, hook is not None)
        if isinstance(begun, str):
            return begun
        assert hook is not None  # begun
        notice, delivery, token = begun
        try:
            wh.post(
                hook,
                self.hooks.secret(hook_id),
                delivery,
                wh.payload(notice, delivery),
                self.settings.webhook_timeout,
                self.settings.webhooks_allow_private,
            )
        except wh.DeliveryFailed as exc:
            given_up = self.failed(member, delivery, token)
            failure = wh.WebhookFailure(now_ms(), exc.reason, exc.status, given_up)
            self.hooks.failed(player, hook_id, failure)
            log.info("webhook delivery failed: %s to hook %s (%s)", delivery, hook_id, exc)
            if not given_up:
                raise
            log.warning(
                "webhook delivery %s to hook %s of %s given up: %s", delivery, hook_id, player, exc
            )
            return "given_up"
        self.hooks.delivered(player, hook_id)  # before the sending is done: observers see both
        self.sent(member, delivery)
        return "sent"


@job
def deliver_webhook(context: Context, player: str, hook_id: str, member: str) -> str:
    """Send one notice to one hook, once: ``sent``, ``duplicate`` (sent before), ``gone``
    (the hook was deleted, or the player no longer wants the event since it was queued) or
    ``given_up`` (the last try failed). Raises (RQ retries) on a failed call with tries left
    or a claim held elsewhere."""
    webhooks = Webhooks(context.store, context.queues, context.settings, context.secret)
    return webhooks.deliver(player, hook_id, member)
