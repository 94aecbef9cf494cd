"""Shards: how the global structures split so that every script and transaction touches one slot.

A Redis/Valkey Cluster runs a script (or a MULTI) only when all its keys hash to one slot. A
game's keys share the game id as their hash tag (``services.eventstore.keys``); the structures that
span games (the feed, the changed set, the lobby, the status lists, the due sets) are split into
``SHARDS`` shards, each a set of keys sharing the shard's tag (``key(name, shard)``:
``feed:{s07}``). A game belongs to one shard, and its id is drawn (``new_id``) so that it hashes to
the very slot of its shard's tag: an append can then write the game's stream and its shard's feed in
one script, and a projection its read model and its shard's lobby.

Players are drawn the same way (``new_id``): a player's keys and the shard structures of players
(pending notifications, mail queues) meet in one slot too.

Ids made before shards (a single server's older games and players) hash anywhere; ``of`` gives
them the shard ``slot % SHARDS``. On one server that is all they need (a single server has no
slots to respect); on a cluster they would be refused by every script, so a cluster starts from
a store whose ids were all drawn by ``new_id`` (``services.platform.storecheck`` says which are
not).

The number of shards is fixed: changing it would move every game to another shard. 64 shards
spread over the masters as their slots do (a 3-master cluster holds about 21 each); capacity is
added by moving slots, and with them whole shards, to new masters (``deploy/README.md``,
"Scaling out").
"""

from __future__ import annotations

import base64
import hashlib
import secrets

from redis.crc import key_slot

SHARDS = 64

TAGS: tuple[str, ...] = tuple(f"s{shard:02d}" for shard in range(SHARDS))
"""The hash tag of each shard's keys."""

HOME: dict[int, int] = {key_slot(tag.encode()): shard for shard, tag in enumerate(TAGS)}
"""Slot -> the shard whose tag hashes to it (its home slot)."""

assert len(HOME) == SHARDS, "two shard tags share a slot"


def key(name: str, shard: int) -> str:
    """The key ``name`` of ``shard``: ``name:{<tag>}``."""
    return f"{name}:{{{TAGS[shard]}}}"


def keys(name: str) -> list[str]:
    """The key ``name`` of every shard, in shard order (readers across shards)."""
    return [key(name, shard) for shard in range(SHARDS)]


def slot(entity_id: str) -> int:
    """The cluster slot of a game's or player's keys (their hash tag is the id)."""
    return key_slot(entity_id.encode())


def of(entity_id: str) -> int:
    """The shard of a game or player: the one whose home slot the id hashes to (ids made before
    shards: ``slot % SHARDS``)."""
    found = slot(entity_id)
    return HOME.get(found, found % SHARDS)


def in_home_slot(entity_id: str) -> bool:
    """Whether the id shares its shard's slot (every id ``new_id`` draws does)."""
    return slot(entity_id) in HOME


def new_id(nbytes: int) -> str:
    """A random id like ``secrets.token_urlsafe(nbytes)`` that hashes to a shard's home slot
    (about 1 draw in 256 does; a draw costs a microsecond). Which shard is itself random: games
    and players spread evenly over the shards."""
    while True:
        drawn = secrets.token_urlsafe(nbytes)
        if slot(drawn) in HOME:
            return drawn


def derived_id(seed: bytes, nbytes: int) -> str:
    """An id shaped like ``new_id``'s, in a shard's home slot too, but the same every time for
    one ``seed``: what a retried creation computes to find the first try's game. Only who knows
    the seed can compute it, so it is as unguessable as the seed."""
    counter = 0
    while True:  # about 1 try in 256 hashes to a home slot, as in new_id
        drawn = hashlib.sha256(seed + counter.to_bytes(8, "big")).digest()[:nbytes]
        derived = base64.urlsafe_b64encode(drawn).rstrip(b"=").decode()
        if slot(derived) in HOME:
            return derived
        counter += 1
