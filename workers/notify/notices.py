"""The notification jobs, driven by the projection.

``Notifications.on_change`` (the projector's listener, given by ``bootstrap``) derives the notices
of a read-model change (``services.notify.notifications.derive``), keeps them in the fan-outs'
pending set (``fan_outs``: a ``workers.notify.pending.Pending``, one set per shard, the game's)
and enqueues one ``fan_out_pending`` job for them, once per (game, version, seats taken):
projections of one version that both tell it before either writes make one job
(``pending.enqueue_once``) and one member (the same notices). The projector tells its listeners
before it writes the read model, and once that is written no projection derives these notices
again: the pending member, not the RQ job, is what keeps them. ``fan_out_pending`` hands each
channel of the registry (``channels``: mail, browser push, webhooks; ``workers.notify.channel``)
the notices its players want by it, the channel enqueues their sendings, each recorded in its
own pending set until done, and only then is the fan-out's member forgotten. ``catch_up`` (from
the worker's maintenance) enqueues again a fan-out past its lease whose job is gone (RQ's server
lost it) or failed for good (a worker killed in every try, an enqueue that failed after the
member was kept), then, for every channel, the pending sendings a dead worker left. A fan-out or
a sending run twice sends nothing twice: every sending has its delivery id
(``services.notify.notifications``).

Known limits: two projections of one game at once may both read the same stored summary and
write different versions (v3 -> v5 and v3 -> v7): a turn both see begin is then notified at
each version (two delivery ids). Two projections of one version that read different stored
summaries derive different notices under one job id: the second's member waits for its lease,
and the catch-up fans it out. A fan-out whose every try fails (the store down) is enqueued
again by the catch-up each lease (``FAN_OUT_LEASE``) until it succeeds, leaving its failed jobs
in RQ's failed registry. A sending that waits in the queue longer than its lease is enqueued
again by the catch-up (its record makes the copy send nothing).
"""

from __future__ import annotations

from collections.abc import Iterable
from types import MappingProxyType

import msgspec
from rq.job import JobStatus

from services.eventstore import shards
from services.eventstore.serversecret import ServerSecret
from services.eventstore.store import now_ms
from services.notify import notifications as nt
from services.platform.config import Settings, Store
from services.readside.readmodels import Summary
from workers.context import Context
from workers.notify import channel
from workers.notify.mail import Mail
from workers.notify.pending import FAILURE_TTL, Pending, enqueue_once
from workers.notify.push import Push
from workers.notify.webhooks import Webhooks
from workers.projection.projector import Listener
from workers.queues import NOTIFY, Queues, job

_notices = msgspec.json.Decoder(list[nt.Notice])
_fan_out = msgspec.json.Decoder(tuple[str, str, list[nt.Notice]])

FAN_OUTS = "notify:fanout:pending"
FAN_OUT_TIMEOUT = 60  # seconds: RQ's limit for one try of a fan-out
FAN_OUT_LEASE = FAN_OUT_TIMEOUT + channel.LEASE_MARGIN
FAN_OUT_BACKOFF = (1, 5, 30)  # seconds before each of RQ's next tries
# A fan-out's job, unless it failed for good (or was stopped): the catch-up leaves it to RQ.
_UNDER_WAY = frozenset({JobStatus.QUEUED, JobStatus.STARTED, JobStatus.SCHEDULED,
                        JobStatus.DEFERRED, JobStatus.CREATED})  # fmt: skip


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


def channels(
    client: Store, queues: Queues, settings: Settings, secret: ServerSecret
) -> tuple[channel.Channel, ...]:
    """The notification channels, in the order the fan-out hands them the notices."""
    return (
        Mail(client, queues, settings, secret),
        Push(client, queues, settings),
        Webhooks(client, queues, settings, secret),
    )


def fan_outs(client: Store) -> Pending:
    """The fan-outs under way: a member is ``(job id, game, notices)`` (JSON), kept in its
    game's shard's set."""
    return Pending(
        client, FAN_OUTS, lambda member: _fan_out.decode(member)[1],
        lambda: FAN_OUT_BACKOFF, lambda: FAN_OUT_LEASE,
    )  # fmt: skip


class Notifications(Listener):
    """The projector's listener: keeps the notices of a read-model change pending in the store
    (``store``) and enqueues their fan-out."""

    def __init__(self, store: Store, queues: Queues) -> None:
        self.fan_outs, self.queues = fan_outs(store), queues

    def on_change(self, before: Summary, after: Summary) -> None:
        notices = nt.derive(before, after)
        if not notices:
            return
        seated = sum(1 for s in after.seats if s.kind in ("player", "ai"))
        job_id = f"notify-{after.game_id}-{after.version}-{seated}"
        member = msgspec.json.encode((job_id, after.game_id, notices)).decode()
        # Told before the read model is written: kept before then, or a job lost after the
        # write would lose the notices (no later projection derives them again).
        self.fan_outs.hold_for_lease(member)
        # Two projections of one version may both get here before either writes: one job.
        _enqueue(self.queues, self.fan_outs, member, job_id)


def _enqueue(queues: Queues, kept: Pending, member: str, job_id: str) -> None:
    enqueue_once(
        queues,
        NOTIFY,
        "workers.notify.notices.fan_out_pending",
        args=(member,),
        job_id=job_id,
        timeout=FAN_OUT_TIMEOUT,
        result_ttl=0,
        failure_ttl=FAILURE_TTL,
        retry=kept.retry(),
        description=f"notify {job_id.removeprefix('notify-')}",
    )


@job
def fan_out_pending(context: Context, member: str) -> int:
    """Enqueue the sendings of a pending fan-out's notices, then forget it; how many."""
    kept = fan_outs(context.store)
    kept.hold_for_lease(member)  # the catch-up leaves it alone while this try runs
    count = _fan_out_to_channels(context, _fan_out.decode(member)[2])
    kept.done(member)  # the channels have recorded their sendings
    return count


@job
def fan_out(context: Context, notices_json: str) -> int:
    """Enqueue the sendings of these notices; how many. Called by a job that keeps them itself
    (``workers.clocks.deadlines.low_time``); also the fan-out job of versions before the
    fan-outs' pending set (an upgrade may find some queued)."""
    return _fan_out_to_channels(context, _notices.decode(notices_json))


def _fan_out_to_channels(context: Context, notices: list[nt.Notice]) -> int:
    client, queues = context.store, context.queues
    return channel.fan_out(
        client, channels(client, queues, context.settings, context.secret), notices
    )


def catch_up(
    client: Store,
    queues: Queues,
    settings: Settings,
    secret: ServerSecret,
    which: Iterable[int] = range(shards.SHARDS),
) -> int:
    """Re-enqueue, in the shards ``which`` (a worker's: those it holds), the fan-outs whose job
    is gone or failed for good, and every channel's pending sendings a dead worker left; how
    many."""
    held = list(which)
    kept, queue = fan_outs(client), queues.queue(NOTIFY)
    revived = 0
    for member in kept.due(held):
        job_id = _fan_out.decode(member)[0]
        kept.hold_for_lease(member)
        found = queue.fetch_job(job_id)
        if found is not None and found.get_status(refresh=False) in _UNDER_WAY:
            continue  # waiting in the queue, or for RQ's next try
        _enqueue(queues, kept, member.decode(), f"{job_id}-catch-up-{now_ms()}")
        revived += 1
    return revived + channel.catch_up(channels(client, queues, settings, secret), held)
