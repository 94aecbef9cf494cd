"""Passkeys (WebAuthn): a player's credentials, and the challenges of the ceremonies
that make and use them (the ``webauthn`` library checks the authenticators' answers).

A **passkey** is a discoverable credential (the authenticator keeps the player's id as its user
handle), so a new device needs nothing else: the browser offers the passkeys it has for this
site, and the one chosen says whose it is. Kept per credential: its public key (COSE), its
signature counter, a label, when it was made and last used.

A **challenge** (32 random bytes) is made by the server for each ceremony, kept for
``CHALLENGE_SECONDS`` with what it is for (registering a passkey for one player, or signing in)
and taken (deleted) by the first answer that names it, good or bad: one use, whatever comes
back. An answer names its challenge inside the signed client data, and the library checks that
the two agree; a challenge the server did not make, or made for something else, is refused
before anything is verified.

The **relying party** is the public URL's host (WebAuthn refuses IP addresses): a loopback
address becomes ``localhost`` on the same port (``make run``'s pages then offer passkeys at
``http://localhost:8000``), any other IP address has none.

Keys (``{...}`` keeps a player's keys in one slot):

``player:{<player id>}:passkeys``   hash    credential id (base64url) -> Passkey (JSON)
``passkey:<credential id>``         string  the player id of the credential
``webauthn:<challenge base64url>``  string  Challenge (JSON), expires after CHALLENGE_SECONDS

``passkey:`` keys hash on their whole name (anywhere on a Redis Cluster), so adding one is two
steps: the credential's owner first (``SET NX``: one player's), then the player's record of it.
A process lost between them leaves an owner without a record: it signs nobody in (``find`` reads
the record), and registering the same credential for that player again completes it. Deleting
goes the other way: the record first, then the owner.
"""

from __future__ import annotations

import ipaddress
import secrets
from dataclasses import dataclass
from typing import Literal, cast
from urllib.parse import urlsplit

import msgspec
from webauthn.helpers import bytes_to_base64url

from services.errors import ServiceError
from services.eventstore.store import unavailable
from services.platform.config import Store

CHALLENGE_SECONDS = 300  # what the pages' ceremonies need, with a person choosing a passkey
MAX_PASSKEYS = 20  # per player: the list stays a list
MAX_LABEL = 60

Purpose = Literal["register", "signin"]


def passkeys_key(player_id: str) -> str:
    return f"player:{{{player_id}}}:passkeys"


def owner_key(credential_id: str) -> str:
    return f"passkey:{credential_id}"


def challenge_key(challenge: str) -> str:
    return f"webauthn:{challenge}"


@dataclass(frozen=True)
class RelyingParty:
    id: str  # the host the passkeys belong to
    origin: str  # the only origin whose ceremonies count: scheme, host and port


def relying_party(public_url: str) -> RelyingParty | None:
    """The relying party of the service at ``public_url``; None when it is at an IP address
    that is not a loopback one (no passkeys there)."""
    parts = urlsplit(public_url)
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return RelyingParty(host, f"{parts.scheme}://{host}{port}")
    if address.is_loopback:
        return RelyingParty("localhost", f"{parts.scheme}://localhost{port}")
    return None


class Passkey(msgspec.Struct, frozen=True):
    public_key: str  # COSE, base64url
    sign_count: int
    label: str
    created: int
    used: int  # ms of the last sign-in with it; 0: never used


class PasskeyOut(msgspec.Struct, frozen=True):
    id: str
    label: str
    created: int
    used: int  # 0: never used to sign in


class Challenge(msgspec.Struct, frozen=True):
    purpose: Purpose
    player: str  # "" for a sign-in: nobody is known yet


class ChallengeGone(ServiceError):
    """An answer to a challenge the server did not make, made for something else, already
    answered, or expired."""

    status = 400
    code = "passkey_challenge"


class UnknownPasskey(ServiceError):
    status = 404
    code = "unknown_passkey"


class PasskeyExists(ServiceError):
    status = 409
    code = "passkey_exists"


class TooManyPasskeys(ServiceError):
    status = 409
    code = "too_many_passkeys"


def _decode(raw: bytes) -> Passkey:
    return msgspec.json.decode(raw, type=Passkey)


class Passkeys:
    """Players' passkeys and the ceremonies' challenges on one Redis client."""

    def __init__(self, client: Store) -> None:
        self.redis = client

    def challenge(self, purpose: Purpose, player_id: str = "") -> bytes:
        """A new challenge for one ceremony, kept for CHALLENGE_SECONDS."""
        made = secrets.token_bytes(32)
        record = msgspec.json.encode(Challenge(purpose, player_id))
        with unavailable():
            self.redis.set(challenge_key(bytes_to_base64url(made)), record, ex=CHALLENGE_SECONDS)
        return made

    def take_challenge(self, challenge: bytes, purpose: Purpose, player_id: str = "") -> bytes:
        """The challenge an answer names, if the server made it for this (and it is gone now:
        one answer per challenge, good or bad)."""
        with unavailable():
            found = self.redis.getdel(challenge_key(bytes_to_base64url(challenge)))
        if found is None or msgspec.json.decode(found, type=Challenge) != Challenge(
            purpose, player_id
        ):
            raise ChallengeGone(
                "that passkey request is over (expired, already answered, or not this one's):"
                " start again"
            )
        return challenge

    def add(
        self, player_id: str, credential_id: str, public_key: bytes, sign_count: int,
        label: str, when: int,
    ) -> PasskeyOut:  # fmt: skip
        if len(self.ids(player_id)) >= MAX_PASSKEYS:
            raise TooManyPasskeys(
                f"you have {MAX_PASSKEYS} passkeys, the most there may be: delete one first",
                params={"max": MAX_PASSKEYS},
            )
        with unavailable():
            if not self.redis.set(owner_key(credential_id), player_id, nx=True) and (
                self.redis.get(owner_key(credential_id)) != player_id.encode()
                or self.redis.hexists(passkeys_key(player_id), credential_id)
            ):
                raise PasskeyExists("that passkey is registered already")
            passkey = Passkey(bytes_to_base64url(public_key), sign_count, label, when, 0)
            self.redis.hset(passkeys_key(player_id), credential_id, msgspec.json.encode(passkey))
        return PasskeyOut(credential_id, label, when, 0)

    def find(self, credential_id: str) -> tuple[str, Passkey] | None:
        """(player id, passkey) of a credential id; None if it is nobody's."""
        with unavailable():
            player_id = cast(bytes | None, self.redis.get(owner_key(credential_id)))
            if player_id is None:
                return None
            raw = self._stored(player_id.decode(), credential_id)
        return None if raw is None else (player_id.decode(), _decode(raw))

    def _stored(self, player_id: str, credential_id: str) -> bytes | None:
        """The player's passkey ``credential_id`` as stored (JSON), if they have it."""
        return cast(bytes | None, self.redis.hget(passkeys_key(player_id), credential_id))

    def used(self, player_id: str, credential_id: str, sign_count: int, when: int) -> None:
        """A sign-in with it: its new counter and time (a deleted one stays deleted)."""
        with unavailable():
            raw = self._stored(player_id, credential_id)
            if raw is not None:
                now = msgspec.structs.replace(_decode(raw), sign_count=sign_count, used=when)
                self.redis.hset(passkeys_key(player_id), credential_id, msgspec.json.encode(now))

    def ids(self, player_id: str) -> list[str]:
        with unavailable():
            return [
                c.decode() for c in cast(list[bytes], self.redis.hkeys(passkeys_key(player_id)))
            ]

    def listing(self, player_id: str) -> list[PasskeyOut]:
        """The player's passkeys, newest first."""
        with unavailable():
            found = cast(dict[bytes, bytes], self.redis.hgetall(passkeys_key(player_id)))
        out = [
            PasskeyOut(raw_id.decode(), p.label, p.created, p.used)
            for raw_id, p in ((i, _decode(raw)) for i, raw in found.items())
        ]
        return sorted(out, key=lambda p: (-p.created, p.id))

    def rename(self, player_id: str, credential_id: str, label: str) -> PasskeyOut:
        with unavailable():
            raw = self._stored(player_id, credential_id)
            if raw is None:
                raise _unknown(credential_id)
            now = msgspec.structs.replace(_decode(raw), label=label)
            self.redis.hset(passkeys_key(player_id), credential_id, msgspec.json.encode(now))
        return PasskeyOut(credential_id, now.label, now.created, now.used)

    def delete(self, player_id: str, credential_id: str) -> None:
        """The passkey signs nobody in any more (the authenticator may still offer it)."""
        with unavailable():
            if not self.redis.hdel(passkeys_key(player_id), credential_id):
                raise _unknown(credential_id)
            self.redis.delete(owner_key(credential_id))


def _unknown(credential_id: str) -> UnknownPasskey:
    return UnknownPasskey("you have no passkey with that id", params={"passkey": credential_id})
