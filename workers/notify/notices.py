"""The notification jobs, driven by the projection.

``Notifications.on_change`` (the projector's listener, given by ``bootstrap``) derives the notices
of a read-model change (``services.notify.notifications.derive``) and enqueues one ``fan_out``
job for them, once per (game, version, seats taken): projections of one version that both tell it
before either writes make one job (``pending.enqueue_once``). ``fan_out`` hands each channel of
the registry (``channels``: mail, browser push, webhooks; ``workers.notify.channel``) the
notices its players want by it, and the channel enqueues their sendings, each recorded in its
pending set until done. ``catch_up`` (from the worker's maintenance) enqueues again, for every
channel, the pending sendings a dead worker left.

Known limits: two projections of one game at once may both read the same stored summary and
write different versions (v3 -> v5 and v3 -> v7): a turn both see begin is then notified at
each version (two delivery ids). A sending that waits in the queue longer than its lease is
enqueued again by the catch-up (its record makes the copy send nothing).
"""

from __future__ import annotations

from collections.abc import Iterable
from types import MappingProxyType

import msgspec
import redis
from rq import Retry

from services.eventstore import shards
from services.notify import notifications as nt
from services.readside.readmodels import Summary
from workers.context import Context
from workers.notify import channel, pending
from workers.notify.mail import Mail
from workers.notify.push import Push
from workers.notify.webhooks import Webhooks
from workers.projection.projector import Listener
from workers.queues import NOTIFY, Queues, job

_notices = msgspec.json.Decoder(list[nt.Notice])


# The jobs that deliver notices (their function paths) and their channels: the worker counts
# their outcomes (``workers.worker``: sent, or a try failed).
DELIVERIES = MappingProxyType(
    {
        Webhooks.job: Webhooks.name,
        Push.job: Push.name,
        "workers.notify.mail.deliver_mail": Mail.name,
        "workers.notify.mail.send_digest": Mail.name,
    }
)


def channels(client: redis.Redis, queues: Queues) -> tuple[channel.Channel, ...]:
    """The notification channels, in the order the fan-out hands them the notices."""
    return (Mail(client, queues), Push(client, queues), Webhooks(client, queues))


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
    return channel.fan_out(client, channels(client, queues), _notices.decode(notices_json))


def catch_up(
    client: redis.Redis, queues: Queues, which: Iterable[int] = range(shards.SHARDS)
) -> int:
    """Re-enqueue the pending sendings of every channel in the shards ``which`` (a worker's:
    those it holds) that a dead worker left; how many."""
    return channel.catch_up(channels(client, queues), which)
