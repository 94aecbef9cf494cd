"""A notification channel (issue 24): how the notices of a game reach a player one way
(webhooks, browser push, mail). ``workers.notify.notices`` fans the notices out to the channels
it is given (``notices.channels``, the registry) and catches up on them; a channel is one class
implementing ``Channel``, and one line in that registry.

What every channel shares is here and in ``workers.notify.pending``: which notices a channel
takes (the player's preference ``<channel>.<event>``), its pending set and backoff, and the
catch-up, which enqueues again a sending nobody holds past its due time (a worker died with it)
unless it was sent. A channel says how it enqueues the sendings of the notices it takes, what
delivery record a member of its pending set has, and how that member's job is enqueued again.

``Targets`` is the base of the channels sending each notice to each of its player's targets
(their hooks, their browsers), one job per (notice, target), tried again with
``OMERTA_WEBHOOK_BACKOFF``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

import msgspec

from services.eventstore import shards
from services.eventstore.store import now_ms, unavailable
from services.notify import notifications as nt
from services.platform.config import Settings, Store
from workers.notify.pending import FAILURE_TTL, Pending, enqueue_once
from workers.queues import NOTIFY, Queues

LEASE_MARGIN = 5  # seconds: a try's limit past the HTTP timeout, a claim's past the try's


class Channel(Protocol):
    name: str  # the preferences' (``<name>.<event>``) and the delivery records'
    pending: Pending

    def enqueue(self, notices: Sequence[nt.Notice]) -> int:
        """Enqueue the sendings of these notices, each wanted by its player; how many."""
        ...

    def delivery_of(self, entry: bytes) -> str:
        """The delivery record (``notifications.claim``) of a member of the pending set."""
        ...

    def revive(self, entry: bytes) -> None:
        """Enqueue again the job of a member of the pending set nobody holds."""
        ...


def fan_out(client: Store, channels: Iterable[Channel], notices: Sequence[nt.Notice]) -> int:
    """Enqueue the sendings of the notices each channel's player wants by it; how many."""
    prefs = nt.Preferences(client)
    count = 0
    for channel in channels:
        wanted = [n for n in notices if prefs.wants(n.player, channel.name, n.event)]
        count += channel.enqueue(wanted) if wanted else 0
    return count


def catch_up(channels: Iterable[Channel], which: Iterable[int] = range(shards.SHARDS)) -> int:
    """Enqueue again the pending sendings of the channels in the shards ``which`` (a worker's:
    those it holds) that a dead worker left; how many."""
    held = list(which)  # read once per channel
    return sum(_catch_up(channel, held) for channel in channels)


def _catch_up(channel: Channel, which: list[int]) -> int:
    client = channel.pending.client
    revived = 0
    for raw in channel.pending.due(which):
        delivery = channel.delivery_of(raw)
        if nt.was_sent(client, delivery):  # its try died before forgetting it
            channel.pending.done(raw)
            continue
        with unavailable():
            claimed = client.exists(nt.record_key(delivery))
        if claimed:  # the try decides
            continue
        channel.revive(raw)
        revived += 1
    return revived


def job_timeout(settings: Settings) -> int:
    """RQ's limit for one try of a ``Targets`` channel: the HTTP call's, and a margin."""
    return int(settings.webhook_timeout) + LEASE_MARGIN


def lease(settings: Settings) -> int:
    """How long a claim (and a pending entry) outlives the try that holds it."""
    return job_timeout(settings) + LEASE_MARGIN


_member = msgspec.json.Decoder(tuple[str, str, nt.Notice])


class Targets:
    """A channel sending each notice to each of its player's targets; a member of its pending
    set is ``(player, target, notice)``, the arguments of its job (``job``, whose ids begin
    with ``name``)."""

    name: str
    job: str

    def __init__(
        self, client: Store, queues: Queues, pending: str, settings: Settings
    ) -> None:
        self.client, self.queues, self.settings = client, queues, settings
        self.pending = Pending(
            client, pending, self.player_of, lambda: settings.webhook_backoff, self.lease
        )

    def lease(self) -> int:
        return lease(self.settings)

    def targets(self, player: str) -> Sequence[str]:
        """The ids of the player's targets."""
        raise NotImplementedError

    def enqueue(self, notices: Sequence[nt.Notice]) -> int:
        count = 0
        for notice in notices:
            for target in self.targets(notice.player):
                self.send(notice.player, target, notice)
                count += 1
        return count

    def send(self, player: str, target: str, notice: nt.Notice, suffix: str = "") -> None:
        """Record the sending as pending, then enqueue its first try (RQ retries it)."""
        entry = msgspec.json.encode((player, target, notice)).decode()
        delivery = nt.delivery_id(notice, self.name, target)
        self.pending.hold_for_lease(entry)
        enqueue_once(
            self.queues,
            NOTIFY,
            self.job,
            args=(player, target, entry),
            job_id=f"{self.name}-{delivery}{suffix}",
            timeout=job_timeout(self.settings),
            result_ttl=0,
            failure_ttl=FAILURE_TTL,
            retry=self.pending.retry(),
            description=f"{self.name} {delivery}",
        )

    @staticmethod
    def decode(entry: str | bytes) -> tuple[str, str, nt.Notice]:
        return _member.decode(entry)

    @staticmethod
    def player_of(entry: str | bytes) -> str:
        return _member.decode(entry)[0]

    def delivery_of(self, entry: bytes) -> str:
        _, target, notice = self.decode(entry)
        return nt.delivery_id(notice, self.name, target)

    def revive(self, entry: bytes) -> None:
        player, target, notice = self.decode(entry)
        self.send(player, target, notice, f"-catch-up-{now_ms()}")

    def begin(self, member: str, there: bool) -> tuple[nt.Notice, str, str] | str:
        """Begin a try of a sending whose target is ``there`` or not: its notice, delivery id
        and claim token, or what there is to say without sending: ``gone`` (no target, or the
        player no longer wants the event), ``duplicate`` (sent, or claimed elsewhere)."""
        player, target, notice = self.decode(member)
        if not there or not nt.Preferences(self.client).wants(player, self.name, notice.event):
            self.pending.done(member)
            return "gone"
        delivery = nt.delivery_id(notice, self.name, target)
        token = nt.claim(self.client, delivery, self.lease())
        if token is None:
            self.pending.done(member)
            return "duplicate"
        self.pending.hold_for_lease(member)  # the catch-up leaves it alone while this try sends
        return notice, delivery, token

    def failed(self, member: str, delivery: str, token: str) -> bool:
        """A try failed: whether it was the last (the sending is given up)."""
        nt.release(self.client, delivery, token)
        return self.pending.after_failure(member)

    def ended(self, member: str, delivery: str, token: str) -> None:
        """The sending is over without being sent (its target said it is gone)."""
        nt.release(self.client, delivery, token)
        self.pending.done(member)

    def sent(self, member: str, delivery: str) -> None:
        nt.mark_sent(self.client, delivery)
        self.pending.done(member)
