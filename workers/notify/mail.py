"""Notification mails: the ``email`` channel (``Mail``, ``workers.notify.channel``).

Who gets one: the notice's player, if their address is verified and they have not
unsubscribed (``services.identity.emails``) and their preference ``email.<event>`` is on; checked
when the fan-out routes the notice and again when the mail goes.

At most one mail per (player, game) per period (``OMERTA_MAIL_DIGEST_SECONDS``, 3600 s):

* ``route`` (from the fan-out) takes the notices of one projection for one player and
  game together. With no window open for (player, game), one opens for a period and they are
  mailed at once, in one mail. With a window open, they are collected, and a ``send_digest``
  job is scheduled with RQ (``enqueue_at``; the worker runs RQ's scheduler) at its end.
* ``send_digest``, at the window's end, mails what was collected in one digest, and a new window
  opens from then (what comes in it waits for the next digest). With nothing left to say the
  window closes: the next notice mails at once.

Stale notices, as a player of Board Game Arena expects (a mail about a turn already played is
noise): when a mail goes, at once or as a digest, a ``your_turn`` whose seat no longer owes a
decision (the player moved meanwhile, or the game ended) is left out; ``player_joined`` and
``game_ended`` stay news. A digest left with nothing is not sent, and closes the window.

Exactly once per (player, game, version, event, seat): routing marks each notice (its route
record, written in the same script as the window's change), so a projection run again or a
fan-out retried routes nothing twice; the record names where the notice went, and a retried
fan-out makes sure that mail or digest is still on its way. A mail is a batch of notices with
an id (one notice: its delivery id of ``services.notify.notifications``; a digest: made of player,
game and window end), kept until sent. Its job claims the id (``notifications.claim``, a lease
past the job's limit), sends, and marks the id and every notice's delivery id sent (a notice
folded into a digest is never mailed on its own). A worker killed mid-send leaves the claim to
expire, and the catch-up (``workers.notify.channel``, the pending set) enqueues the job
again. As with webhooks, exactly once holds up to SMTP itself: a worker killed after the server
took the mail but before it was marked sent mails it again (RFC 1047), with the same
``Message-ID``. A mail that fails every try (``workers.mailer``'s backoff) is given up, as a
webhook call is.

The mails' words: ``workers.notify.mail_text``; their jobs' enqueueing, pending set and
catch-up: ``workers.notify.mail_pending``.

Keys (one player's share the Redis Cluster hash tag; ``<id>`` a mail's id)::

    notify:mail:{<player>}:window:<game>    string  the window's end (ms); expires then,
                                                    unless notices are collected
    notify:mail:{<player>}:digest:<game>    zset    the collected notices (JSON), by arrival
    notify:mail:{<player>}:batch:<id>       string  a mail's notices (JSON) until it is sent
    notify:mail:{<player>}:route:<delivery> string  where the notice went: mail:<id>, digest:<end>
    notify:mail:pending:{<shard>}           zset    [kind, player, game, id or end] -> when
                                                    the catch-up looks again (ms); one per
                                                    shard (``services.eventstore.shards``), the
                                                    player's

Logs never name an address.
"""

from __future__ import annotations

import hashlib
import logging
from collections import defaultdict
from collections.abc import Sequence
from typing import cast

import msgspec

from services.eventstore.serversecret import ServerSecret
from services.eventstore.store import now_ms, unavailable
from services.identity.emails import Emails
from services.notify import mail
from services.notify import notifications as nt
from services.platform.config import Settings, Store
from services.readside.readmodels import ReadModels, Summary
from workers.context import Context
from workers.notify import mail_pending as queued
from workers.notify import mail_text as notify_mail_text
from workers.notify.mail_pending import CHANNEL, DIGEST, MAIL
from workers.queues import Queues, job

log = logging.getLogger(__name__)

TARGET = "mail"  # a notice's delivery id names the channel; the player has one address
KEEP_MS = 1000 * nt.SENT_TTL

_notices = msgspec.json.Decoder(list[nt.Notice])
_notice = msgspec.json.Decoder(nt.Notice)


# KEYS[1] window, KEYS[2] collected, KEYS[3] the batch if mailed now, KEYS[4..] the notices'
# route records; ARGV[1] the window's end if it opens now, ARGV[2] the period (ms), ARGV[3] how
# long records are kept (ms), ARGV[4] the batch's id, ARGV[5] now (ms), ARGV[6..] the notices
# (JSON), as KEYS[4..].
# Returns where each notice went (routed now or earlier): mail:<id> or digest:<window end>.
_ROUTE = """
local fresh, went = {}, {}
for i = 4, #KEYS do
  local earlier = redis.call('GET', KEYS[i])
  if earlier then table.insert(went, earlier) else table.insert(fresh, i) end
end
if #fresh == 0 then return went end
local ends = redis.call('GET', KEYS[1])
local dest
if not ends then
  dest = 'mail:' .. ARGV[4]
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  local batch = {}
  for _, i in ipairs(fresh) do table.insert(batch, ARGV[i + 2]) end
  redis.call('SET', KEYS[3], '[' .. table.concat(batch, ',') .. ']', 'PX', ARGV[3])
else
  dest = 'digest:' .. ends
  for _, i in ipairs(fresh) do redis.call('ZADD', KEYS[2], 'NX', ARGV[5], ARGV[i + 2]) end
  redis.call('PERSIST', KEYS[1])
end
for _, i in ipairs(fresh) do redis.call('SET', KEYS[i], dest, 'PX', ARGV[3]) end
table.insert(went, dest)
return went
"""

# KEYS[1] window, KEYS[2] collected, KEYS[3] the digest's batch; ARGV[1] the window's end this
# digest is for, ARGV[2] the next window's end, ARGV[3] the period (ms), ARGV[4] how long the
# batch is kept (ms), ARGV[5..] collected notices known stale. Returns the batch (JSON), '' when
# all was stale (the window closes), nil when this window's digest was made before.
_TAKE = """
local batch = redis.call('GET', KEYS[3])
if batch then return batch end
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return false end
local stale = {}
for i = 5, #ARGV do stale[ARGV[i]] = true end
local live = {}
for _, n in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do
  if not stale[n] then table.insert(live, n) end
end
redis.call('DEL', KEYS[2])
if #live == 0 then
  redis.call('DEL', KEYS[1])
  return ''
end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
batch = '[' .. table.concat(live, ',') .. ']'
redis.call('SET', KEYS[3], batch, 'PX', ARGV[4])
return batch
"""


def _key(player: str, part: str) -> str:
    return f"notify:mail:{{{player}}}:{part}"


def notice_id(notice: nt.Notice) -> str:
    return nt.delivery_id(notice, CHANNEL, TARGET)


def _batch_id(notices: list[nt.Notice]) -> str:
    ids = sorted(notice_id(n) for n in notices)
    if len(ids) == 1:
        return ids[0]
    return hashlib.sha256("|".join(ids).encode()).hexdigest()[:32]


def _period_ms(settings: Settings) -> int:
    return 1000 * settings.mail_digest_seconds


class Mail:
    """The notices of one projection to a mail now or a digest (``route``); a member of its
    pending set is a mail's or a digest's (``workers.notify.mail_pending``)."""

    name = CHANNEL

    def __init__(
        self, client: Store, queues: Queues, settings: Settings, secret: ServerSecret
    ) -> None:
        self.client, self.queues, self.settings, self.secret = client, queues, settings, secret
        self.pending = queued.pending_set(client, settings)

    def enqueue(self, notices: Sequence[nt.Notice]) -> int:
        return route(self.client, self.queues, self.settings, notices)

    def delivery_of(self, entry: bytes) -> str:
        return queued.mail_id_of(entry)

    def revive(self, entry: bytes) -> None:
        queued.revive(self.pending, self.queues, self.settings, entry)


def route(
    client: Store, queues: Queues, settings: Settings, notices: Sequence[nt.Notice]
) -> int:
    """Route the notices of one projection, each wanted by its player, to a mail now or the
    next digest (see the module docstring); how many mails or digests are on their way for
    them."""
    groups: dict[tuple[str, str], list[nt.Notice]] = defaultdict(list)
    emails, pending = Emails(client), queued.pending_set(client, settings)
    period = _period_ms(settings)
    for notice in notices:
        groups[(notice.player, notice.game_id)].append(notice)
    count = 0
    for (player, game_id), group in groups.items():
        if not emails.wants_notices(player):
            continue
        now = now_ms()
        batch = _batch_id(group)
        keys = [_key(player, f"window:{game_id}"), _key(player, f"digest:{game_id}")]
        keys += [_key(player, f"batch:{batch}")]
        keys += [_key(player, f"route:{notice_id(n)}") for n in group]
        args = [str(now + period), str(period), str(KEEP_MS), batch, str(now)]
        args += [msgspec.json.encode(n).decode() for n in group]
        with unavailable():
            went = client.eval(_ROUTE, len(keys), *keys, *args)
        for dest in {d.decode() for d in went}:
            kind, _, ref = dest.partition(":")
            if kind == MAIL:
                count += queued.enqueue_mail(pending, queues, settings, player, game_id, ref)
            if kind == DIGEST:
                count += queued.schedule_digest(pending, queues, settings, player, game_id, ref)
    return count


@job
def deliver_mail(context: Context, player: str, game_id: str, batch: str) -> str:
    """Send one mail of notices, once: ``sent``, ``duplicate`` (sent before), ``nothing``
    (nothing live or wanted left in it) or ``gone`` (its batch expired). Raises (RQ retries)
    on a failed sending or a claim held elsewhere."""
    mail = Mail(context.store, context.queues, context.settings, context.secret)
    member = queued.member(MAIL, player, game_id, batch)
    outcome = _send(mail, member, player, game_id, batch)
    mail.pending.done(member)
    return outcome


@job
def send_digest(context: Context, player: str, game_id: str, ends: str) -> str:
    """At the window's end: mail what was collected in it, once (as ``deliver_mail``);
    ``stale`` when nothing was left to say, ``made`` when this digest was dealt with before."""
    mail = Mail(context.store, context.queues, context.settings, context.secret)
    client, period = mail.client, _period_ms(context.settings)
    member = queued.member(DIGEST, player, game_id, ends)
    mail_id = queued.digest_id(player, game_id, ends)
    collected = _key(player, f"digest:{game_id}")
    with unavailable():
        waiting = cast(list[bytes], client.zrange(collected, 0, -1))
    summary = ReadModels(client).summary(game_id)
    stale = [raw for raw in waiting if not live(_notice.decode(raw), summary)]
    keys = (_key(player, f"window:{game_id}"), collected, _key(player, f"batch:{mail_id}"))
    args = (ends, str(now_ms() + period), str(period), str(KEEP_MS))
    with unavailable():
        taken = client.eval(_TAKE, len(keys), *keys, *args, *stale)
    if taken is None:
        outcome = "made"
    else:
        for raw in stale:  # taken and never to be mailed: done with
            nt.mark_sent(client, notice_id(_notice.decode(raw)))
        if taken == b"":
            nt.mark_sent(client, mail_id)
            outcome = "stale"
        else:
            outcome = _send(mail, member, player, game_id, mail_id)
    mail.pending.done(member)
    return outcome


def live(notice: nt.Notice, summary: Summary | None) -> bool:
    """Whether the notice is still news: a turn is, while its seat owes a decision; time
    running low, while the game is at its version. A read model older than the notice (the
    projection that made it is still writing: the fan-out is enqueued before its write) cannot tell:
    news."""
    if summary is None:
        return False
    if summary.version < notice.version:
        return True
    if notice.event == nt.Event.TIME_LOW:  # only at its version: a move stopped that clock
        return summary.status == "running" and summary.version == notice.version
    if notice.event != nt.Event.YOUR_TURN:
        return True
    return summary.status == "running" and notice.seat in summary.due


def _send(mail_channel: Mail, member: bytes, player: str, game_id: str, mail_id: str) -> str:
    client, pending, settings = mail_channel.client, mail_channel.pending, mail_channel.settings
    if nt.was_sent(client, mail_id):
        return "duplicate"
    batch_key = _key(player, f"batch:{mail_id}")
    with unavailable():
        raw = client.get(batch_key)
    if raw is None:
        return "gone"
    notices = _notices.decode(raw)
    email = Emails(client).get(player)
    summary = ReadModels(client).summary(game_id)
    prefs = nt.Preferences(client)
    news = [n for n in notices if live(n, summary) and prefs.wants(player, CHANNEL, n.event)]
    if email is None or not email.verified or email.unsubscribed or not news:
        _finish(client, batch_key, mail_id, notices)
        return "nothing"
    assert summary is not None  # news are live
    message = notify_mail_text.compose(
        client, player, email, summary, news, mail_id, settings, mail_channel.secret
    )
    token = nt.claim(client, mail_id, queued.lease(settings))
    if token is None:
        return "duplicate"
    # The catch-up leaves it alone while this try may still be sending.
    pending.hold_for_lease(member)
    try:
        mail.deliver(message, settings)
    except Exception:
        nt.release(client, mail_id, token)
        pending.after_failure(member)
        raise
    _finish(client, batch_key, mail_id, notices)
    log.info("notification mail %s to player %s (%d notices)", mail_id, player, len(news))
    return "sent"


def _finish(client: Store, batch_key: str, mail_id: str, notices: list[nt.Notice]) -> None:
    nt.mark_sent(client, mail_id)
    for notice in notices:
        nt.mark_sent(client, notice_id(notice))
    with unavailable():
        client.delete(batch_key)
