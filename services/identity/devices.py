"""Identity that follows the player: device sessions, the personal sign-in link and
the recovery code.

A **device** is one signed-in browser or client. Signing in with the player's sign-in link or
recovery code makes a device session: its own random token (256 bits), kept only as its SHA-256,
with a label (from the User-Agent) and its created and last-used times. The token that
``POST /players`` returns (``services.identity.players``) keeps working: it is the player's **first
device**, recorded the first time it is used, and can be signed out like any other.

The **sign-in link** ``<public URL>/signin#<secret>`` (256 bits) and the **recovery code**
(16 base32 characters, 80 bits, shown as four groups of four) are made together; only their
SHA-256 is kept. Making a new pair revokes the old one; revoking leaves none. Either one signs
in on another device as the same player, as often as needed until revoked (guessing is bounded
by the rate limits of ``POST /signin``, ``api.http.limits``).

Keys (``{...}`` keeps a player's keys in one slot):

``session:<sha256 hex>``            string  ``<player id> <device id>`` of a device token
``player:{<player id>}:devices``    hash    device id -> Device (JSON): label, created, hash
``player:{<player id>}:used``       hash    device id -> ms of its last use (written at most
                                            once a minute per device and process)
``player:{<player id>}:signin``     hash    ``link``/``code`` -> sha256 hex, ``created`` -> ms
``signin:<sha256 hex>``             string  player id of the sign-in link with this secret
``recovery:<sha256 hex>``           string  player id of the recovery code (normalised)

The index keys (``session:``, ``signin:``, ``recovery:``, and the player token's ``token:``) hash
on their whole name, anywhere on a Redis Cluster, so no write spans them and the player's keys
in one transaction; each is a sequence of single-slot steps ordered so that a process lost
between them leaves nothing that works and is not listed:

* ``add``: the device's record first, its session key last (a session that works is always a
  listed device, which can be signed out; a record without a session is a device that never
  got its token: listed until signed out).
* ``revoke``: the tokens' keys first (they stop working), the records after (revoking again
  finds what is left).
* ``make_signin``: the new secrets' index keys first, then the player's ``signin`` hash names
  them (one step: from then on only they sign in), then the old ones' index keys go. An index
  key counts only while the player's hash names its hash (``player_of`` checks), so a new one
  written by a request that stopped, or an old one not deleted yet, signs nobody in.
* ``revoke_signin``: the ``signin`` hash first (from then on nothing signs in), then the index
  keys.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
from typing import cast

import msgspec
from redis.typing import EncodableT

from services.errors import ServiceError
from services.eventstore.store import unavailable
from services.platform.config import Store

FIRST = "first"  # the device id of the token POST /players returned
TOUCH_MS = 60_000  # a device's last use is written at most once a minute
CODE_GROUPS = 4
GROUP = 4
BASE32 = set("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def token_key(token_hash: str) -> str:
    """The player token's key (``services.identity.players``): the first device's."""
    return f"token:{token_hash}"


def session_key(token_hash: str) -> str:
    return f"session:{token_hash}"


def devices_key(player_id: str) -> str:
    return f"player:{{{player_id}}}:devices"


def used_key(player_id: str) -> str:
    return f"player:{{{player_id}}}:used"


def signin_key(player_id: str) -> str:
    return f"player:{{{player_id}}}:signin"


def link_key(secret_hash: str) -> str:
    return f"signin:{secret_hash}"


def code_key(code_hash: str) -> str:
    return f"recovery:{code_hash}"


class Device(msgspec.Struct, frozen=True):
    label: str
    created: int
    hash: str  # the SHA-256 of its token: where ``revoke`` finds it


class DeviceOut(msgspec.Struct, frozen=True):
    id: str
    label: str
    created: int
    used: int


class SignInSecrets(msgspec.Struct, frozen=True):
    """Shown once, when made: the server keeps only their hashes."""

    secret: str
    code: str
    created: int


class BadSignIn(ServiceError):
    """A sign-in link or recovery code that is no player's (never made, or revoked)."""

    status = 401
    code = "bad_signin"


class UnknownDevice(ServiceError):
    status = 404
    code = "unknown_device"


def new_code() -> str:
    """16 random base32 characters (80 bits) in four groups: ``ABCD-EFGH-JKLM-NPQR``."""
    raw = base64.b32encode(secrets.token_bytes(10)).decode()
    return "-".join(raw[i : i + GROUP] for i in range(0, GROUP * CODE_GROUPS, GROUP))


def normal_code(code: str) -> str | None:
    """The code as typed (any case, spaces or dashes, 0/1 read as O/I) in its stored form, or
    None when it cannot be a code."""
    cleaned = "".join(code.split()).replace("-", "").upper().replace("0", "O").replace("1", "I")
    if len(cleaned) != GROUP * CODE_GROUPS or not set(cleaned) <= BASE32:
        return None
    return cleaned


def _decode(device: bytes) -> Device:
    return msgspec.json.decode(device, type=Device)


class Devices:
    """A player's device sessions and sign-in secrets on one Redis client."""

    def __init__(self, client: Store) -> None:
        self.redis = client
        self._swap = client.register_script(SWAP)

    def find(self, token_hash: str) -> tuple[str, str] | None:
        """(player id, device id) of a device token's hash, None for no device session."""
        with unavailable():
            found = cast(bytes | None, self.redis.get(session_key(token_hash)))
        if found is None:
            return None
        player_id, _, device_id = found.decode().partition(" ")
        return player_id, device_id

    def record_first(self, player_id: str, token_hash: str, label: str, when: int) -> None:
        """The player token's device, recorded at its first use (older players have none)."""
        record = msgspec.json.encode(Device(label, when, token_hash))
        with unavailable():
            self.redis.hsetnx(devices_key(player_id), FIRST, record)

    def touch(self, player_id: str, device_id: str, when: int) -> None:
        with unavailable():
            self.redis.hset(used_key(player_id), device_id, when)

    def add(self, player_id: str, label: str, when: int) -> tuple[str, str]:
        """A new device session: (device id, its token, shown once)."""
        device_id = secrets.token_urlsafe(9)
        token = secrets.token_urlsafe(32)
        hashed = digest(token)
        record = msgspec.json.encode(Device(label, when, hashed))
        pipe = self.redis.pipeline(transaction=True)
        pipe.hset(devices_key(player_id), device_id, record)
        pipe.hset(used_key(player_id), device_id, when)
        with unavailable():
            pipe.execute()
            self.redis.set(session_key(hashed), f"{player_id} {device_id}")
        return device_id, token

    def listing(self, player_id: str) -> list[DeviceOut]:
        """The player's devices, last used first."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.hgetall(devices_key(player_id))
        pipe.hgetall(used_key(player_id))
        with unavailable():
            devices, used = pipe.execute()
        out = []
        for raw_id, raw in devices.items():
            device = _decode(raw)
            last = int(used.get(raw_id, device.created))
            out.append(DeviceOut(raw_id.decode(), device.label, device.created, last))
        return sorted(out, key=lambda d: (-d.used, d.id))

    def revoke(self, player_id: str, device_ids: list[str]) -> list[str]:
        """Sign these devices out (their tokens stop working); the hashes of their tokens."""
        with unavailable():
            found = (
                cast(list[bytes | None], self.redis.hmget(devices_key(player_id), device_ids))
                if device_ids
                else []
            )
        gone = [(i, _decode(raw)) for i, raw in zip(device_ids, found, strict=True) if raw]
        if not gone:
            return []
        tokens = [
            token_key(device.hash) if device_id == FIRST else session_key(device.hash)
            for device_id, device in gone
        ]
        pipe = self.redis.pipeline(transaction=True)
        pipe.hdel(devices_key(player_id), *(device_id for device_id, _ in gone))
        pipe.hdel(used_key(player_id), *(device_id for device_id, _ in gone))
        with unavailable():
            for key in tokens:
                self.redis.delete(key)
            pipe.execute()
        return [device.hash for _, device in gone]

    def device_ids(self, player_id: str) -> list[str]:
        with unavailable():
            return [d.decode() for d in cast(list[bytes], self.redis.hkeys(devices_key(player_id)))]

    # -- the sign-in link and the recovery code ---------------------------------------------

    def make_signin(self, player_id: str, when: int) -> SignInSecrets:
        """A new sign-in link secret and recovery code; the old ones stop working."""
        made = SignInSecrets(secrets.token_urlsafe(32), new_code(), when)
        code = normal_code(made.code)
        assert code is not None
        link, code_digest = digest(made.secret), digest(code)
        fields: dict[str, EncodableT] = {"link": link, "code": code_digest, "created": when}
        with unavailable():
            self.redis.set(link_key(link), player_id)
            self.redis.set(code_key(code_digest), player_id)
            old = self._swap(keys=[signin_key(player_id)], args=_flat(fields))
            _drop(self.redis, _pairs(old))
        return made

    def signin_made(self, player_id: str) -> int | None:
        """When the player's sign-in link and code were made; None when there are none."""
        with unavailable():
            created = self.redis.hget(signin_key(player_id), "created")
        return int(created) if created is not None else None

    def revoke_signin(self, player_id: str) -> None:
        with unavailable():
            old = self._swap(keys=[signin_key(player_id)], args=[])
            _drop(self.redis, _pairs(old))

    def player_of(self, link: str | None, code: str | None) -> str:
        """The player whose sign-in link secret or recovery code this is."""
        normal = normal_code(code) if code and not link else None
        sent = ("link", digest(link)) if link else ("code", digest(normal)) if normal else None
        found = None
        if sent is not None:
            field, hashed = sent
            key = link_key(hashed) if field == "link" else code_key(hashed)
            with unavailable():
                found = cast(bytes | None, self.redis.get(key))
                # Only while the player's own record names it (see the module docstring).
                if (
                    found is not None
                    and self.redis.hget(signin_key(found.decode()), field) != hashed.encode()
                ):
                    found = None
        if found is None:
            raise BadSignIn(
                "that sign-in link or recovery code signs nobody in (revoked, or mistyped)"
            )
        return found.decode()


# KEYS: the player's signin hash.  ARGV: its new field, value pairs (none: deleted).  Returns
# the fields it had.
SWAP = """
local old = redis.call('HGETALL', KEYS[1])
redis.call('DEL', KEYS[1])
if #ARGV > 0 then redis.call('HSET', KEYS[1], unpack(ARGV)) end
return old
"""


def _flat(fields: dict[str, EncodableT]) -> list[EncodableT]:
    return [item for pair in fields.items() for item in pair]


def _pairs(flat: list[bytes]) -> dict[bytes, bytes]:
    return dict(zip(flat[::2], flat[1::2], strict=True))


def _drop(client: Store, old: dict[bytes, bytes]) -> None:
    """The index keys of sign-in secrets the player's hash no longer names."""
    if b"link" in old:
        client.delete(link_key(old[b"link"].decode()))
    if b"code" in old:
        client.delete(code_key(old[b"code"].decode()))
