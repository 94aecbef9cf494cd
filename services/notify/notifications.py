"""What to notify, to whom, and the once-only record of each sending.

``derive(before, after)`` compares two summaries of one game (the read model the projection
found stored, and the one it is about to write) and names the events owed to its players:

* ``your_turn``: a seat of theirs owes a decision it did not owe before (or owes it since a
  later time: their turn came round again), or owes one as the game starts (its last open
  seat is taken: the creator, who owed the first move while waiting, has usually left);
* ``game_ended``: the game was running and is finished (to every seated player);
* ``player_joined``: a seat that was open is taken (to the other seated players).

``time_low`` (a seat's deadline is near: ``services.games.clocks.low_time_at``) is not derived from
a change: ``workers.clocks.deadlines`` sends it from a job scheduled for that moment, once per
(game, version, seat) as every notice is (its delivery ids).

A seat's owner who did not hold it before counts as newly owing its decision: a joiner whose
seat was owed a decision since the deal is told it is their turn.

A game's first projection (nothing stored before) is compared with the game as created
(``as_created``): only the creator's seat taken, and only the creator's decisions owed. So
seats taken before that projection (within milliseconds of the creation) are announced, and a
joiner to act first is told, as they would be after a projection in between; the creator is
told nothing they did themselves (but their turn, as anybody's, when the last seat is taken).

Preferences: ``player:{<id>}:notify``, a hash ``<channel>.<event>`` -> ``1``/``0``; an unset
pair is on (a player who registers a webhook wants its calls).

Exactly once: every sending has a delivery id, derived from (player, game, version, event,
seat, channel, target), and a record ``notify:delivery:<id>`` claimed before sending
(``claim``: SET NX with a lease), then marked sent (``mark_sent``) or released on a failure
(``release``). A second try finds it sent (nothing to do) or claimed (a live sender, or one
that died: the lease expires and a retry claims it).
"""

from __future__ import annotations

import hashlib
import secrets
from enum import StrEnum
from typing import cast

import msgspec
from redis.typing import EncodableT

from services.eventstore.store import unavailable
from services.platform.config import Store
from services.readside.readmodels import SeatSummary, Summary


class Event(StrEnum):
    YOUR_TURN = "your_turn"
    GAME_ENDED = "game_ended"
    PLAYER_JOINED = "player_joined"
    TIME_LOW = (
        "time_low"  # not derived: the deadline's scheduled job sends it (workers.clocks.deadlines)
    )


EVENTS = tuple(e.value for e in Event)
CHANNELS = ("webhook", "email", "push")
SENT_TTL = 30 * 24 * 3600  # seconds a sent record is kept: far past any retry or re-projection


class Notice(msgspec.Struct, frozen=True):
    """One event for one player: ``seat`` is theirs (``your_turn``), the joiner's
    (``player_joined``) or theirs (``game_ended``)."""

    player: str
    event: str
    game_id: str
    game: str
    version: int
    seat: int


def as_created(after: Summary, creator: str | None) -> Summary:
    """``after``'s game as its creator made it: every seat of another player open, nothing owed
    but the creator's decisions (``creator`` None: not known yet, the creation is still being
    written, so nobody else can have joined: every seat as it is). The creator sits at the
    table from its creation and sees what they owe: only a turn of theirs that came round
    again before this projection goes untold (the store keeps no earlier summary to tell it
    from the first)."""
    seats = [
        s if s.kind != "player" or creator in (None, s.player) else SeatSummary(s.seat, "open")
        for s in after.seats
    ]
    theirs = {s.seat for s in seats if s.kind == "player"}
    due = {seat: since for seat, since in after.due.items() if seat in theirs}
    return msgspec.structs.replace(
        after, version=0, seats=seats, status="running", to_act=sorted(due), due=due, result=None
    )


def _owners(summary: Summary) -> dict[int, str]:
    return {s.seat: s.player for s in summary.seats if s.kind == "player" and s.player}


def _waiting(summary: Summary) -> bool:
    """Whether the game waits for a player to take a seat."""
    return any(s.kind in ("open", "reserved") for s in summary.seats)


def derive(before: Summary, after: Summary) -> list[Notice]:
    """The notices owed by the change from ``before`` to ``after`` (see the module docstring)."""
    owners, owned = _owners(after), _owners(before)
    found: list[Notice] = []

    def notice(player: str, event: Event, seat: int) -> None:
        found.append(Notice(player, event.value, after.game_id, after.game, after.version, seat))

    starts = _waiting(before) and not _waiting(after)
    for seat, since in sorted(after.due.items()):
        owner = owners.get(seat)
        if owner is not None and (
            starts or before.due.get(seat) != since or owned.get(seat) != owner
        ):
            notice(owner, Event.YOUR_TURN, seat)
    if before.status != "finished" and after.status == "finished":
        for seat, owner in sorted(owners.items()):
            notice(owner, Event.GAME_ENDED, seat)
    was_open = {s.seat for s in before.seats if s.kind in ("open", "reserved")}
    for joiner in sorted(seat for seat in owners if seat in was_open):
        for owner in sorted(set(owners.values()) - {owners[joiner]}):
            notice(owner, Event.PLAYER_JOINED, joiner)
    return found


def delivery_id(notice: Notice, channel: str, target: str) -> str:
    """The sending's id: the same for every try of it, different for anything else."""
    parts = (notice.player, notice.game_id, notice.version, notice.event, notice.seat)
    raw = "|".join(str(p) for p in (*parts, channel, target)).encode()
    return hashlib.sha256(raw).hexdigest()[:32]


def prefs_key(player_id: str) -> str:
    return f"player:{{{player_id}}}:notify"


class Preferences:
    def __init__(self, client: Store) -> None:
        self.redis = client

    def get(self, player_id: str) -> dict[str, dict[str, bool]]:
        """channel -> event -> on, every pair present."""
        with unavailable():
            stored = cast(dict[bytes, bytes], self.redis.hgetall(prefs_key(player_id)))
        flags = {k.decode(): v == b"1" for k, v in stored.items()}
        return {c: {e: flags.get(f"{c}.{e}", True) for e in EVENTS} for c in CHANNELS}

    def put(self, player_id: str, prefs: dict[str, dict[str, bool]]) -> None:
        """Set the pairs given (others unchanged); the caller checked the names."""
        mapping: dict[EncodableT, EncodableT] = {
            f"{c}.{e}": "1" if on else "0" for c, ev in prefs.items() for e, on in ev.items()
        }
        if mapping:
            with unavailable():
                self.redis.hset(prefs_key(player_id), mapping=mapping)

    def wants(self, player_id: str, channel: str, event: str) -> bool:
        with unavailable():
            flag = self.redis.hget(prefs_key(player_id), f"{channel}.{event}")
        return flag != b"0"


def record_key(delivery: str) -> str:
    return f"notify:delivery:{delivery}"


SENT = b"sent"

# KEYS[1] the record; ARGV[1] the claimant's token. Releases only its own claim.
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


class Claimed(Exception):
    """Another try holds the sending's claim (alive, or dead until its lease expires)."""


def claim(client: Store, delivery: str, lease_s: int) -> str | None:
    """Claim the sending for ``lease_s`` seconds: the claim's token, or None when it was sent
    already. Raises ``Claimed`` while another try holds it."""
    token = "claim:" + secrets.token_hex(8)
    with unavailable():
        earlier = client.set(record_key(delivery), token, nx=True, ex=lease_s, get=True)
    if earlier is None:
        return token
    if earlier == SENT:
        return None
    raise Claimed(delivery)


def mark_sent(client: Store, delivery: str) -> None:
    with unavailable():
        client.set(record_key(delivery), SENT, ex=SENT_TTL)


def release(client: Store, delivery: str, token: str) -> None:
    with unavailable():
        client.eval(_RELEASE, 1, record_key(delivery), token)


def was_sent(client: Store, delivery: str) -> bool:
    with unavailable():
        return client.get(record_key(delivery)) == SENT
