"""What the store keeps: the event envelope, its hash chain, and the game's metadata record.

Every event is one entry of its game's stream (entry id ``<version>-0``) with a single field
``e``: the MessagePack encoding of an ``Envelope`` (an array, fields in the order below) whose
``data`` is the domain event, itself MessagePack (a map with its ``type`` tag).

Hash chain (tamper evidence), exactly::

    hash(entry) = SHA-256(e)              # the 32-byte digest of the exact stored bytes ``e``
    envelope(v).prev = hash(entry v-1)    # for v >= 2
    envelope(1).prev = 32 zero bytes      # GENESIS

Because ``prev`` is inside the bytes the next hash covers, changing, dropping, inserting or
reordering any stored event breaks the chain at that point (``services.eventstore.audit`` reports
where); only rewriting every later event too goes unnoticed by the chain alone, which is why the
head hash also travels to the read models (and can be published).
"""

from __future__ import annotations

import hashlib
from typing import Any

import msgspec

from services.games.clocks import Clock, OnTimeout

GENESIS = bytes(32)


class Envelope(msgspec.Struct, frozen=True, array_like=True):
    """One stored event. ``time`` is milliseconds since the Unix epoch on the appending
    process's clock; ``actor`` is the seat that sent the command (None: the game's creation);
    ``command_id`` is the client's idempotency key, unique per seat (``""`` for the
    creation); ``schema`` is the version of this event type's shape (see
    ``services.eventstore.upcasting``); ``prev`` is the hash of the previous entry (``GENESIS`` for
    version 1)."""

    game_id: str
    version: int
    type: str
    time: int
    actor: int | None
    command_id: str
    schema: int
    prev: bytes
    data: msgspec.Raw


class Entry(msgspec.Struct, frozen=True):
    """An envelope as read back, with the exact bytes it was stored as and their hash."""

    envelope: Envelope
    raw: bytes
    hash: bytes


class EventRecord(msgspec.Struct, frozen=True):
    """An event for readers (history, CLI, API): the envelope with the decoded (and, for a
    running game, redacted) domain event, and the chain hashes in hex."""

    game_id: str
    version: int
    type: str
    time: int
    actor: int | None
    command_id: str
    schema: int
    prev: str
    hash: str
    event: Any


class GameMeta(msgspec.Struct, frozen=True):
    """The game's metadata record (key ``game:{<id>}:meta``), written in the same atomic step
    as its creation events. ``options`` is the validated options as plain data; ``ai`` maps
    AI seats to their level; ``created`` is milliseconds since the Unix epoch. ``clock`` is the
    time control (None: none, ``services.games.clocks``), ``on_timeout`` what a seat's time-out
    does; ``takeover`` is the bot level that plays a seat that became a bot seat
    (``services.games.seating``; set from the time-out policy's level)."""

    game: str
    seats: int
    options: dict[str, Any]
    ai: dict[int, int | str]
    created: int
    clock: Clock | None = None
    on_timeout: OnTimeout = OnTimeout()
    takeover: int | str = "greedy"


class CommandRecord(msgspec.Struct, frozen=True, array_like=True):
    """The idempotency record of one command id: the versions its events got (``first`` >
    ``last`` when it produced none) and a digest of (seat, command) to catch a reused id."""

    first: int
    last: int
    digest: bytes


def chain_hash(raw: bytes) -> bytes:
    return hashlib.sha256(raw).digest()


_envelope_decoder = msgspec.msgpack.Decoder(Envelope)
_meta_decoder = msgspec.msgpack.Decoder(GameMeta)
_record_decoder = msgspec.msgpack.Decoder(CommandRecord)
encode = msgspec.msgpack.Encoder().encode


def decode_envelope(raw: bytes) -> Envelope:
    return _envelope_decoder.decode(raw)


def decode_meta(raw: bytes) -> GameMeta:
    return _meta_decoder.decode(raw)


def decode_record(raw: bytes) -> CommandRecord:
    return _record_decoder.decode(raw)


def to_record(entry: Entry, event: Any) -> EventRecord:
    env = entry.envelope
    return EventRecord(
        game_id=env.game_id,
        version=env.version,
        type=env.type,
        time=env.time,
        actor=env.actor,
        command_id=env.command_id,
        schema=env.schema,
        prev=env.prev.hex(),
        hash=entry.hash.hex(),
        event=event,
    )
