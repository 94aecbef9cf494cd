"""Players: their identity (a display name and a secret token), creating them, and telling
who a token is; with their seats (``services.games.seats``) in one ``Players`` service.

A player is a display name and a secret token. The token (``secrets.token_urlsafe(32)``: 256
random bits) is returned once, at creation; the server keeps only its SHA-256, so a copy of the
database does not let anyone act as a player. Every later request presents the token, or the
token of a device session the player signed in with elsewhere (``services.identity.devices``).

Keys (``{...}`` are Redis Cluster hash tags: a player's keys share one slot; the seats' keys
are in ``services.games.seats``):

``player:{<player id>}``        hash    ``name`` (UTF-8), ``created`` (ms since the epoch)
``token:<sha256 hex>``          string  player id of the token whose SHA-256 this is

Player ids are drawn by ``shards.new_id`` (``services.eventstore.shards``): a player's keys share
one slot with their shard's keys. The index keys (``token:``, ``idem:players:``) hash on their whole
name, anywhere; a game's keys on the game's id. On a Redis Cluster no script or transaction may span
two of them, so each write below is a sequence of single-slot steps, ordered so that losing the
process between two of them loses nothing acknowledged and the retry completes it:

* Creating a player: its hash (only if absent), then its token. A token is written last, so no
  token ever names a player that is not there. With an ``Idempotency-Key``
  (``services.eventstore.idempotency``) the key's record is claimed first (``SET NX`` naming the new
  player id): a retry that finds it writes the same player (only if absent) and the same token
  (derived from the key and the player id) again and answers them, so a creation lost midway is
  completed by its retry, and a twin request racing the first answers the same player.
"""

from __future__ import annotations

import secrets
import unicodedata
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import cast

import msgspec

from services.errors import ServiceError
from services.eventstore import idempotency, serversecret, shards
from services.eventstore.idempotency import Record
from services.eventstore.serversecret import ServerSecret
from services.eventstore.store import now_ms, unavailable
from services.games.seats import Seats
from services.identity.devices import FIRST, TOUCH_MS, Devices, digest, token_key
from services.platform.config import Store

MAX_NAME = 40
RECHECK_MS = 2000  # how long a signed-out device's token may still work in another process


def player_key(player_id: str) -> str:
    return f"player:{{{player_id}}}"


class Player(msgspec.Struct, frozen=True):
    id: str
    name: str
    created: int


@dataclass(frozen=True)
class _Session:
    player: Player
    device: str
    checked: int  # ms when the store last said the token is valid
    touched: int  # ms when its last use was last written


class Unauthorized(ServiceError):
    """No token, or a token that belongs to nobody."""

    status = 401
    code = "bad_token"


class BadName(ServiceError):
    status = 400
    code = "bad_name"


# KEYS: the player.  ARGV: name, created.  Writes the player unless it is there (a retry
# completing a creation never changes a player made before).
CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'name', ARGV[1], 'created', ARGV[2])
return 1
"""


class Players(Seats):
    """Player identity and (``Seats``) seats on one Redis client. Thread-safe (gthread workers
    share it)."""

    def __init__(
        self,
        client: Store,
        clock: Callable[[], int] = now_ms,
        cache_size: int = 65536,
        secret: ServerSecret | None = None,
    ) -> None:
        super().__init__(client, clock, cache_size, secret)
        self._create = client.register_script(CREATE)
        self.devices = Devices(client)
        # A token's session is checked again now and then.
        self._tokens: OrderedDict[str, _Session] = OrderedDict()

    def create(
        self, name: object, key: str | None = None, fingerprint: str = ""
    ) -> tuple[Player, str]:
        """A new player and their secret token (shown once: only its hash is kept); with an
        idempotency key, the key's first player and token again if there was one."""
        player = Player(id=shards.new_id(12), name=_clean_name(name), created=self.clock())
        if key is None:
            token = secrets.token_urlsafe(32)
            self._write(player, token)
            return player, token
        record = idempotency.encode(Record(fingerprint, player=player.id))
        with unavailable():
            earlier = cast(  # GET: the key's value before, if it had one
                bytes | None,
                self.redis.set(
                    idempotency.players_key(key), record, nx=True, px=idempotency.TTL_MS, get=True
                ),
            )
        if earlier is not None:  # a retry (or its twin): the key's player, completed if need be
            first = idempotency.replayed(earlier, fingerprint).player
            assert first is not None
            player = msgspec.structs.replace(player, id=first)
        token = self._keyed_token(key, player.id)
        self._write(player, token)
        made = self.get(player.id)
        assert made is not None
        return made, token

    def made_with(self, key: str) -> str | None:
        """The player a creation with ``key`` made (None: none, or its record expired)."""
        with unavailable():
            raw = self.redis.get(idempotency.players_key(key))
        return None if raw is None else msgspec.json.decode(raw, type=Record).player

    def _write(self, player: Player, token: str) -> None:
        """The player (unless there) and then its token (see the module docstring)."""
        with unavailable():
            self._create(keys=[player_key(player.id)], args=[player.name, player.created])
            self.redis.set(token_key(digest(token)), player.id)

    def _keyed_token(self, key: str, player_id: str) -> str:
        """A keyed creation's token: made again by its retry, known to nobody without the key;
        of this player only (a key used again once its record expired makes another token)."""
        return serversecret.derive_token(self.secret.key(), "player-token", key, player_id)

    def get(self, player_id: str) -> Player | None:
        with unavailable():
            fields = cast(dict[bytes, bytes], self.redis.hgetall(player_key(player_id)))
        if not fields:
            return None
        return Player(player_id, fields[b"name"].decode(), int(fields[b"created"]))

    def authenticate(self, token: str | None, label: str = "") -> Player:
        """The player whose token this is; ``Unauthorized`` otherwise (nothing says why)."""
        return self.session(token, label)[0]

    def session(self, token: str | None, label: str = "") -> tuple[Player, str]:
        """The player and the device (``services.identity.devices``) of a token: the player token,
        or a device session's. ``label`` names the device the first time the player token is used. A
        cached answer is checked again after ``RECHECK_MS``, so a device signed out in another
        process stops working within that time; its last use is written then, at most once a
        minute."""
        if not token:
            raise Unauthorized(
                "this needs your player token: 'Authorization: Bearer <token>'",
                code="missing_token",
            )
        hashed = digest(token)
        now = self.clock()
        with self._lock:
            cached = self._tokens.get(hashed)
        if cached is not None and now - cached.checked < RECHECK_MS:
            return cached.player, cached.device
        with unavailable():
            player_id = cast(bytes | None, self.redis.get(token_key(hashed)))
        found = (player_id.decode(), FIRST) if player_id is not None else None
        found = found or self.devices.find(hashed)
        player = None
        if found is not None:
            same = cached is not None and cached.player.id == found[0]
            player = cached.player if cached is not None and same else self.get(found[0])
        if found is None or player is None:
            self.forget([hashed])
            raise Unauthorized("that token belongs to no player")
        device = found[1]
        touched = cached.touched if cached is not None else 0
        if now - touched >= TOUCH_MS:
            if device == FIRST:
                self.devices.record_first(player.id, hashed, label, player.created)
            self.devices.touch(player.id, device, now)
            touched = now
        with self._lock:
            self._tokens[hashed] = _Session(player, device, now, touched)
            while len(self._tokens) > self.cache_size:
                self._tokens.popitem(last=False)
        return player, device

    def forget(self, token_hashes: Iterable[str]) -> None:
        """Drop signed-out tokens from this process's cache at once."""
        with self._lock:
            for hashed in token_hashes:
                self._tokens.pop(hashed, None)

    def names(self, player_ids: Iterable[str]) -> dict[str, str]:
        ids = sorted(set(player_ids))
        pipe = self.redis.pipeline(transaction=False)
        for player_id in ids:
            pipe.hget(player_key(player_id), "name")
        with unavailable():
            found = pipe.execute()
        return {i: n.decode() for i, n in zip(ids, found, strict=True) if n is not None}


def _clean_name(name: object) -> str:
    if not isinstance(name, str):
        raise BadName("a name is a string", params={"case": "not_text"})
    cleaned = " ".join(name.split())
    if not 1 <= len(cleaned) <= MAX_NAME:
        raise BadName(
            f"a name has 1 to {MAX_NAME} characters", params={"case": "length", "max": MAX_NAME}
        )
    if any(unicodedata.category(ch).startswith("C") for ch in cleaned):
        raise BadName("a name may not contain control characters", params={"case": "control"})
    return cleaned
