"""Webhooks: a player's URLs, their signing keys, and one POST of one notice.

Registry: ``player:{<id>}:webhooks``, a hash hook id -> JSON ``Hook`` (at most ``MAX_HOOKS``).

Signing key: never stored. It is derived from the server's secret and the hook's id
(``serversecret.derive_token``), shown once when the hook is made, and derived again to sign.
Each POST carries ``X-Omerta-Timestamp`` (seconds), ``X-Omerta-Signature: sha256=<hex HMAC-SHA256
of "<timestamp>." + body, keyed with the secret>`` and ``X-Omerta-Delivery`` (the sending's id,
the same for every try).

URLs: http or https only; a host that resolves to a private, loopback, link-local or reserved
address is refused (at registration and again before each send: DNS may change), unless
``OMERTA_WEBHOOKS_ALLOW_PRIVATE`` is set. Redirects are never followed (a 3xx is a failure).

A failed try (the host does not resolve or resolves to an address webhooks may not call, the
connection is refused or breaks, the timeout passes, an answer other than 2xx) raises
``DeliveryFailed`` with its ``reason``; the jobs try again as ``OMERTA_WEBHOOK_BACKOFF`` says,
then give up (``workers.notify.notices``). The hook's last failure (``WebhookFailure``) is kept in
``player:{<id>}:webhook-failures`` (hook id -> JSON) until a delivery to it succeeds, for the
listing and the notifications page.

At-least-once at the edge: a receiver that got the body but whose answer never reached us (the
worker died, the connection broke, the answer came after the timeout) is sent it again by the
retry, with the same delivery id: receivers dedupe on ``X-Omerta-Delivery``. Everywhere else
the sending is once only (``services.notify.notifications``).
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import secrets
import socket
import time
from typing import Literal, cast
from urllib.parse import urlsplit

import msgspec
import requests
from urllib3.exceptions import NameResolutionError

from services.eventstore import idempotency, serversecret
from services.eventstore.serversecret import ServerSecret
from services.eventstore.store import unavailable
from services.notify.notifications import Notice
from services.platform.config import Store

MAX_HOOKS = 5
MAX_URL = 2000
SIGNATURE = "X-Omerta-Signature"
DELIVERY = "X-Omerta-Delivery"
TIMESTAMP = "X-Omerta-Timestamp"


class Hook(msgspec.Struct, frozen=True):
    id: str
    url: str
    created: int


class BadUrl(ValueError):
    """The URL is no http(s) URL, or names an address webhooks may not call."""


class Unresolved(BadUrl):
    """The URL's host name does not resolve."""


Reason = Literal["dns", "address", "connection", "timeout", "status"]


class WebhookFailure(msgspec.Struct, frozen=True):
    """A hook's last failed try: when (ms since the epoch); why (``reason``: ``dns`` the host
    does not resolve, ``address`` it resolves to an address webhooks may not call,
    ``connection`` refused or broken, ``timeout``, ``status`` an answer other than 2xx, whose
    ``status`` it is); whether its sending was given up (it was the last try)."""

    at: int
    reason: Reason
    status: int | None = None
    given_up: bool = False


class TooMany(Exception):
    pass


def hooks_key(player_id: str) -> str:
    return f"player:{{{player_id}}}:webhooks"


def failures_key(player_id: str) -> str:
    return f"player:{{{player_id}}}:webhook-failures"


_hook = msgspec.json.Decoder(Hook)
_failure = msgspec.json.Decoder(WebhookFailure)


def check_url(url: str, allow_private: bool, resolve: bool = True) -> None:
    """Raise ``BadUrl`` unless webhooks may call ``url`` (``allow_private``:
    ``OMERTA_WEBHOOKS_ALLOW_PRIVATE``); without ``resolve``, a host name other than
    ``localhost`` is not looked up (its addresses are checked before each call)."""
    if len(url) > MAX_URL:
        raise BadUrl("the URL is too long")
    try:
        parts = urlsplit(url)
        host, port = parts.hostname, parts.port
    except ValueError as exc:
        raise BadUrl("the URL is malformed") from exc
    if parts.scheme not in ("http", "https") or not host:
        raise BadUrl("only http and https URLs with a host")
    if parts.username or parts.password:
        raise BadUrl("no credentials in the URL")
    if allow_private:
        return
    if host == "localhost" or host.endswith(".localhost"):
        raise BadUrl(PRIVATE)
    try:
        addresses = [ipaddress.ip_address(host)]
    except ValueError:
        if not resolve:
            return
        try:
            infos = socket.getaddrinfo(host, port or 443, proto=socket.IPPROTO_TCP)
        except (OSError, UnicodeError, ValueError) as exc:
            raise Unresolved("the host does not resolve") from exc
        addresses = [ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in infos]
    if not all(address.is_global for address in addresses):
        raise BadUrl(PRIVATE)


PRIVATE = "the host is a private, loopback or reserved address"


class Webhooks:
    def __init__(self, client: Store, secret: ServerSecret | None = None) -> None:
        self.redis = client
        # The process's (``bootstrap``); without one, the store's: no configured secret.
        self.server_secret = secret if secret is not None else ServerSecret(client)

    def add(
        self, player_id: str, url: str, key: str | None = None, fingerprint: str = ""
    ) -> tuple[Hook, str]:
        """Register ``url`` (checked by the caller): the hook and its signing secret; with an
        idempotency key, the key's first hook again if there was one (written if missing, as
        after a request lost between the key's record and the hook)."""
        hook = Hook("wh_" + secrets.token_hex(8), url, int(time.time() * 1000))
        if key is not None:
            record = idempotency.encode(idempotency.Record(fingerprint, hook=hook.id))
            name = idempotency.webhooks_key(player_id, key)
            with unavailable():
                earlier = cast(
                    bytes | None,
                    self.redis.set(name, record, nx=True, px=idempotency.TTL_MS, get=True),
                )
            if earlier is not None:
                first = idempotency.replayed(earlier, fingerprint).hook
                assert first is not None
                found = self.get(player_id, first)
                if found is not None:
                    return found, self.secret(found.id)
                hook = msgspec.structs.replace(hook, id=first)
        with unavailable():
            if self.redis.hlen(hooks_key(player_id)) >= MAX_HOOKS:
                raise TooMany()
            self.redis.hset(hooks_key(player_id), hook.id, msgspec.json.encode(hook))
        return hook, self.secret(hook.id)

    def list(self, player_id: str) -> list[Hook]:
        with unavailable():
            stored = self.redis.hvals(hooks_key(player_id))
        return sorted((_hook.decode(raw) for raw in stored), key=lambda h: (h.created, h.id))

    def get(self, player_id: str, hook_id: str) -> Hook | None:
        with unavailable():
            raw = self.redis.hget(hooks_key(player_id), hook_id)
        return None if raw is None else _hook.decode(raw)

    def delete(self, player_id: str, hook_id: str) -> bool:
        pipe = self.redis.pipeline(transaction=True)
        pipe.hdel(hooks_key(player_id), hook_id)
        pipe.hdel(failures_key(player_id), hook_id)
        with unavailable():
            return bool(pipe.execute()[0])

    def failed(self, player_id: str, hook_id: str, failure: WebhookFailure) -> None:
        """Keep ``failure`` as the hook's last, unless the hook was deleted meanwhile."""
        with unavailable():
            if self.redis.hexists(hooks_key(player_id), hook_id):
                self.redis.hset(failures_key(player_id), hook_id, msgspec.json.encode(failure))

    def delivered(self, player_id: str, hook_id: str) -> None:
        """A delivery succeeded: the hook's last failure is over."""
        with unavailable():
            self.redis.hdel(failures_key(player_id), hook_id)

    def failures(self, player_id: str) -> dict[str, WebhookFailure]:
        """hook id -> its last failure, for the hooks whose last delivery failed."""
        with unavailable():
            stored = cast(dict[bytes, bytes], self.redis.hgetall(failures_key(player_id)))
        return {hook_id.decode(): _failure.decode(raw) for hook_id, raw in stored.items()}

    def secret(self, hook_id: str) -> str:
        return serversecret.derive_token(self.server_secret.key(), "webhook", hook_id)


def sign(secret: str, timestamp: int, body: bytes) -> str:
    mac = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256)
    return "sha256=" + mac.hexdigest()


class WebhookBody(msgspec.Struct, frozen=True):
    """The JSON body of a webhook call: ``delivery`` the sending's id (the same on every try),
    ``event`` what happened, the game (``game_id``, ``game``: its name) at ``version``, and
    ``seat``: the receiver's own (your_turn, game_ended, time_low) or the joiner's
    (player_joined)."""

    delivery: str
    event: Literal["your_turn", "game_ended", "player_joined", "time_low"]
    game_id: str
    game: str
    version: int
    seat: int


def payload(notice: Notice, delivery: str) -> bytes:
    return msgspec.json.encode(
        WebhookBody(
            delivery=delivery,
            event=notice.event,  # type: ignore[arg-type]  # a notifications.Event
            game_id=notice.game_id,
            game=notice.game,
            version=notice.version,
            seat=notice.seat,
        )
    )


class DeliveryFailed(Exception):
    """A try failed: ``reason`` and ``status`` as in ``WebhookFailure``."""

    def __init__(self, reason: Reason, status: int | None = None) -> None:
        super().__init__(reason if status is None else f"{reason} {status}")
        self.reason, self.status = reason, status


def post(
    hook: Hook, secret: str, delivery: str, body: bytes, timeout: float, allow_private: bool
) -> int:
    """POST ``body`` to the hook once; its status. Raises ``DeliveryFailed`` unless 2xx."""
    try:
        check_url(hook.url, allow_private)
    except Unresolved as exc:
        raise DeliveryFailed("dns") from exc
    except BadUrl as exc:
        raise DeliveryFailed("address") from exc
    timestamp = int(time.time())
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "Omerta-Webhooks/1",
        SIGNATURE: sign(secret, timestamp, body),
        DELIVERY: delivery,
        TIMESTAMP: str(timestamp),
    }
    try:
        # stream: the answer's body is never read (a receiver could send gigabytes)
        with requests.post(
            hook.url,
            data=body,
            headers=headers,
            timeout=timeout,
            allow_redirects=False,
            stream=True,
        ) as response:
            status = response.status_code
    except requests.Timeout as exc:
        raise DeliveryFailed("timeout") from exc
    except requests.ConnectionError as exc:
        # requests wraps urllib3's MaxRetryError, whose reason is the cause
        cause = getattr(exc.args[0] if exc.args else None, "reason", None)
        unresolved = isinstance(cause, NameResolutionError)
        raise DeliveryFailed("dns" if unresolved else "connection") from exc
    except requests.RequestException as exc:
        raise DeliveryFailed("connection") from exc
    if not 200 <= status < 300:
        raise DeliveryFailed("status", status)
    return status
