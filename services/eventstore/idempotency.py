"""Idempotency-Keys for creating a player, creating a game, joining, adding a webhook and
writing in a game's chat.

A client that got no answer (a 503 after the write, a lost connection) retries with the same
``Idempotency-Key`` and gets the first answer again; nothing new is created. The same key with
another body is refused (409 ``idempotency_key_reused``). A key names one request of one client:
of the same player for a game's creation, a join and a webhook (joins also of one game), of
the same seat of one game for a chat message; for a player's creation, where there is no player
yet, the key alone, which must then be long enough to be unguessable (``MIN_PLAYER_KEY``: a
random UUID is).

Records (JSON ``Record``), each expiring after ``TTL_MS`` (a retry comes within seconds; a day
covers a client that was offline). Only the key's SHA-256 is kept:

``idem:players:<sha256 of key>``                     the player made
``idem:{<player id>}:games:<sha256 of key>``         the game made, the creator's seat, the
                                                     version and the seats with an invite
``idem:{<game id>}:join:<sha256 of player id|key>``  the seat taken
``idem:{<player id>}:webhooks:<sha256 of key>``      the webhook added (its secret is derived
                                                     from its id: ``services.notify.webhooks``)
``idem:{<game id>}:chat:<sha256 of seat|key>``       the chat message written, and when (one
                                                     script with the message,
                                                     ``services.games.chat``)

A first answer's secrets (a player's token, invite codes) are not kept either: with a key they
are derived from the server's secret and the key (``services.eventstore.serversecret``), so a replay
makes them again, and a copy of the store without the keys does not give them.

Order of the steps (``services.identity.players``, ``services.games.seats``: on a Redis Cluster the
record, the player's keys and a game's keys are in different slots, so none is written in one script
with another): a player's creation claims its record first (``SET NX``, naming the new player), then
writes the player and its token, and a retry finding the record writes them again where missing. A
join and its record are one script (both in the game's slot). A game's creation takes its key first
(a pending record, ``PENDING_MS``: a twin request meanwhile gets 409 ``idempotency_key_in_use``),
appends the game, writes the final record, then seats the creator (the seats, invites and public
flag once, in one script on the game's keys): a retry finding the final record seats the creator
where the first stopped before. A keyed creation's game id is derived from the server's secret, the
player, the key and the body (``game_id``), so a retry after any failure, even one after the append
whose answer was lost, appends to that same id, finds the first try's game there and completes it; a
failed creation gives its pending record back at once (``release_game``), and a process lost midway
leaves it to expire.
"""

from __future__ import annotations

import hashlib
from typing import Any, cast

import msgspec

from services.errors import BadRequest, ServiceError
from services.eventstore import serversecret, shards
from services.eventstore.store import unavailable
from services.games.commandinput import MAX_COMMAND_ID
from services.platform.config import Store

TTL_MS = 24 * 3600 * 1000
PENDING_MS = 30_000  # far longer than a creation takes
MIN_PLAYER_KEY = 16

# KEYS: a game's creation record.  ARGV: its pending value.  Deletes it only while pending.
RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


class Record(msgspec.Struct, omit_defaults=True):
    fingerprint: str  # of the request's body
    player: str | None = None  # a player's creation: the player
    game: str | None = None  # a game's creation: the game
    seat: int | None = None  # the creator's seat; a join's seat
    version: int | None = None  # a game's creation: the version its answer named
    invited: list[int] = []  # a game's creation: the seats given an invite code
    public: bool = False  # a game's creation: listed in the lobby
    pending: bool = False  # a game's creation under way
    hook: str | None = None  # a webhook's creation: the webhook
    message: int | None = None  # a chat message's: its number
    time: int | None = None  # a chat message's: when it was written (ms since the epoch)


class KeyReused(ServiceError):
    status = 409
    code = "idempotency_key_reused"


class KeyInUse(ServiceError):
    status = 409
    code = "idempotency_key_in_use"


def check_key(sent: str | None, minimum: int = 1) -> str | None:
    """The request's key (None: no header); 400 for one that is empty, too long or too short."""
    if sent is None:
        return None
    if not 1 <= len(sent) <= MAX_COMMAND_ID:
        raise BadRequest(
            f"an Idempotency-Key has 1 to {MAX_COMMAND_ID} characters",
            code="bad_command_id",
            params={"max": MAX_COMMAND_ID},
        )
    if len(sent) < minimum:
        raise BadRequest(
            f"this Idempotency-Key needs at least {minimum} characters (a random UUID)",
            code="weak_idempotency_key",
            params={"min": minimum},
        )
    return sent


def fingerprint(body: Any) -> str:
    """What tells a retry (the same body) from another request with the key."""
    return hashlib.sha256(msgspec.json.encode(body)).hexdigest()


def _hash(*parts: str) -> str:
    return hashlib.sha256("|".join(parts).encode()).hexdigest()


def players_key(key: str) -> str:
    return f"idem:players:{_hash(key)}"


def games_key(player_id: str, key: str) -> str:
    return f"idem:{{{player_id}}}:games:{_hash(key)}"


def join_key(game_id: str, player_id: str, key: str) -> str:
    return f"idem:{{{game_id}}}:join:{_hash(player_id, key)}"


def webhooks_key(player_id: str, key: str) -> str:
    return f"idem:{{{player_id}}}:webhooks:{_hash(key)}"


def chat_key(game_id: str, seat: int, key: str) -> str:
    return f"idem:{{{game_id}}}:chat:{_hash(str(seat), key)}"


def encode(record: Record) -> bytes:
    return msgspec.json.encode(record)


def replayed(raw: bytes, body_fingerprint: str) -> Record:
    """The first request's record, if this one is its retry; 409 otherwise."""
    record = msgspec.json.decode(raw, type=Record)
    if record.fingerprint != body_fingerprint:
        raise KeyReused("this Idempotency-Key was used for another request")
    if record.pending:
        raise KeyInUse("a request with this Idempotency-Key is under way: retry in a moment")
    return record


def game_id(secret: bytes, creator: str, key: str, body_fingerprint: str) -> str:
    """The id of the game that ``creator``'s request with ``key`` and this body makes: every
    retry computes the same one, nobody without the server's ``secret`` can."""
    seed = serversecret.derive(secret, "game", creator, _hash(key), body_fingerprint)
    return shards.derived_id(seed, 16)


def _pending(body_fingerprint: str) -> bytes:
    return encode(Record(body_fingerprint, pending=True))


def begin_game(client: Store, creator: str, key: str, body_fingerprint: str) -> Record | None:
    """Take ``key`` for a game's creation by ``creator``: None to go ahead (the creation then
    writes its record, ``Players.open_table``), else the record of the game it already made
    (409 while that creation is under way, or for another body)."""
    name = games_key(creator, key)
    with unavailable():
        if client.set(name, _pending(body_fingerprint), nx=True, px=PENDING_MS):
            return None
        earlier = cast(bytes | None, client.get(name))
    if earlier is None:  # it expired a moment ago: that creation failed
        raise KeyInUse("a request with this Idempotency-Key just failed: retry")
    return replayed(earlier, body_fingerprint)


def release_game(client: Store, creator: str, key: str, body_fingerprint: str) -> None:
    """Give ``key`` back after a failed creation: a retry makes the game, or finds the one this
    try appended (``game_id``). A final record already written stays: it answers the retry."""
    with unavailable():
        client.eval(RELEASE, 1, games_key(creator, key), _pending(body_fingerprint))
