"""A player's email address: adding it, verifying it by a mailed link, one-time sign-in links,
and the signed one-click unsubscribe.

Keys (apart from the player's own record, which ``services.identity.players`` keeps):

``player:{<player id>}:email``  hash    ``address``, ``lang`` (the mails' language),
                                        ``verified`` (``1``: the player proved the address),
                                        ``unsubscribed`` (``1``)
``email:<sha256 hex>``          string  the player whose *verified* address has this SHA-256
                                        (of the address lower-cased): sign-in by mail finds them
``mailtoken:<sha256 hex>``      string  ``<purpose>|<player id>|<address sha256>`` of a mailed
                                        link's token, expiring with the link

A mailed link's token (256 random bits) is kept only as its hash. Redeeming a sign-in link
deletes it (``GETDEL``): of two redeemers racing, one gets it. A verification link is bound to
the address it was mailed to: changing the address first makes it void. The address verified
last wins: verifying an address that another player had verified moves it (whoever reads that
mailbox proved it twice), and the other player's address is no longer verified.

An address is verified while both say so: the player's record (``verified``) and the index
(``email:<sha256>`` naming the player). They are in different slots of a Redis Cluster, so a
verification is two single-key steps: the record's mark, then the index, which is the step that
makes the address the player's (and no longer another's: their mark alone does not count). A
process lost between the two leaves the address as it was, and the verification link, deleted
only after both, completes it when clicked again. An index key left naming a player whose
address changed since (``set_address`` lost before releasing it) finds nobody.

The unsubscribe link is the player id and an HMAC of it under the server's secret
(``services.eventstore.serversecret``): no state, and it works for as long as the secret stays.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from typing import cast

import msgspec

from services.errors import ServiceError
from services.eventstore import serversecret
from services.eventstore.store import unavailable
from services.platform.config import Store

VERIFY = "verify"
SIGNIN = "signin"
TTL_SECONDS = {VERIFY: 24 * 3600, SIGNIN: 15 * 60}
MAX_ADDRESS = 254  # RFC 5321's limit of a path
_ADDRESS = re.compile(r"[^@\s<>()\[\],;:\"\\]{1,64}@[^@\s<>()\[\],;:\"\\]+\.[^@\s<>()\[\],;:\"\\]+")


class BadAddress(ServiceError):
    status = 400
    code = "bad_email"


class NoAddress(ServiceError):
    status = 409
    code = "no_email"


def email_key(player_id: str) -> str:
    return f"player:{{{player_id}}}:email"


def owner_key(address_hash: str) -> str:
    return f"email:{address_hash}"


def link_key(token_hash: str) -> str:
    return f"mailtoken:{token_hash}"


def normalize(address: str) -> str:
    """The address as sent, trimmed; refused (without repeating it) unless it looks like one."""
    address = address.strip()
    if len(address) > MAX_ADDRESS or not _ADDRESS.fullmatch(address):
        raise BadAddress("that is not an email address")
    return address


def address_hash(address: str) -> str:
    return hashlib.sha256(address.strip().lower().encode()).hexdigest()


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class Email(msgspec.Struct, frozen=True):
    address: str
    lang: str
    verified: bool
    unsubscribed: bool


class Link(msgspec.Struct, frozen=True):
    """A redeemed link: whose it was."""

    player_id: str
    address: str


class Emails:
    def __init__(self, client: Store) -> None:
        self.redis = client

    def get(self, player_id: str) -> Email | None:
        with unavailable():
            found = cast(dict[bytes, bytes], self.redis.hgetall(email_key(player_id)))
            if b"address" not in found:
                return None
            address = found[b"address"].decode()
            verified = (
                found.get(b"verified") == b"1"
                and self.redis.get(owner_key(address_hash(address))) == player_id.encode()
            )
        return Email(
            address=address,
            lang=found.get(b"lang", b"en").decode(),
            verified=verified,
            unsubscribed=found.get(b"unsubscribed") == b"1",
        )

    def set_address(self, player_id: str, address: str, lang: str) -> None:
        """The player's address, not verified yet (a verified one it replaces stops signing in)."""
        address = normalize(address)
        earlier = self.get(player_id)
        with unavailable():
            pipe = self.redis.pipeline()
            pipe.delete(email_key(player_id))
            pipe.hset(email_key(player_id), mapping={"address": address, "lang": lang})
            pipe.execute()
            if earlier is not None and earlier.verified:
                self._release(earlier.address, player_id)

    def set_language(self, player_id: str, lang: str) -> None:
        with unavailable():
            if self.redis.exists(email_key(player_id)):
                self.redis.hset(email_key(player_id), "lang", lang)

    def _release(self, address: str, player_id: str) -> None:
        key = owner_key(address_hash(address))
        if self.redis.get(key) == player_id.encode():
            self.redis.delete(key)

    def owner(self, address: str) -> str | None:
        """The player whose verified address this is; BadAddress for what is no address."""
        return self.owner_of(address_hash(normalize(address)))

    def owner_of(self, hashed: str) -> str | None:
        """The player whose verified address has this hash (``address_hash``)."""
        with unavailable():
            found = cast(bytes | None, self.redis.get(owner_key(hashed)))
        if found is None:
            return None
        email = self.get(found.decode())
        if email is None or not email.verified or address_hash(email.address) != hashed:
            return None
        return found.decode()

    def new_link(self, purpose: str, player_id: str) -> str:
        """A fresh token for a link of ``purpose`` to the player's current address."""
        email = self.get(player_id)
        if email is None:
            raise NoAddress("this player has no email address")
        token = secrets.token_urlsafe(32)
        value = f"{purpose}|{player_id}|{address_hash(email.address)}"
        with unavailable():
            self.redis.set(link_key(_digest(token)), value, ex=TTL_SECONDS[purpose])
        return token

    def redeem(self, purpose: str, token: str) -> Link | None:
        """The link's player, once: None for an unknown, used, expired or void token."""
        key = link_key(_digest(token))
        with unavailable():
            # A verification link goes once its steps ran: a redeemer lost midway may click it
            # again (and two racing do the same steps twice).
            found = cast(
                bytes | None, self.redis.get(key) if purpose == VERIFY else self.redis.getdel(key)
            )
        if found is None:
            return None
        link = self._redeemed(purpose, found.decode())
        if purpose == VERIFY:
            with unavailable():
                self.redis.delete(key)
        return link

    def usable(self, purpose: str, token: str) -> bool:
        """Whether the link would work now; nothing is used up (a mail scanner's fetch)."""
        with unavailable():
            found = cast(bytes | None, self.redis.get(link_key(_digest(token))))
        return found is not None and self._valid(purpose, found.decode()) is not None

    def _valid(self, purpose: str, found: str) -> Link | None:
        """The link a stored value names, if it is of ``purpose`` and still holds."""
        kind, player_id, hashed = found.split("|")
        email = self.get(player_id)
        if kind != purpose or email is None or address_hash(email.address) != hashed:
            return None
        if purpose != VERIFY and not email.verified:
            return None
        return Link(player_id, email.address)

    def _redeemed(self, purpose: str, found: str) -> Link | None:
        link = self._valid(purpose, found)
        if link is not None and purpose == VERIFY:
            self._verify(link.player_id, link.address)
        return link

    def _verify(self, player_id: str, address: str) -> None:
        """The record's mark, then the index (see the module docstring): the mark alone changes
        nothing a reader sees, the index completes it, and both again change nothing."""
        with unavailable():
            self.redis.hset(email_key(player_id), "verified", "1")
            self.redis.set(owner_key(address_hash(address)), player_id)

    def unsubscribe(self, player_id: str) -> None:
        with unavailable():
            if self.redis.exists(email_key(player_id)):
                self.redis.hset(email_key(player_id), "unsubscribed", "1")

    def resubscribe(self, player_id: str) -> None:
        with unavailable():
            self.redis.hdel(email_key(player_id), "unsubscribed")

    def wants_notices(self, player_id: str) -> bool:
        """Whether notification mails may go to the player (verified, not unsubscribed)."""
        email = self.get(player_id)
        return email is not None and email.verified and not email.unsubscribed


def unsubscribe_signature(secret: bytes, player_id: str) -> str:
    return serversecret.derive_token(secret, "unsubscribe", player_id)


def unsubscribe_valid(secret: bytes, player_id: str, signature: str) -> bool:
    # As bytes: compare_digest refuses str with characters beyond ASCII (a forged URL may have).
    return hmac.compare_digest(
        unsubscribe_signature(secret, player_id).encode(), signature.encode()
    )
