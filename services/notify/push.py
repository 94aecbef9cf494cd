"""Browser push (Web Push, RFC 8030/8291/8292): the server's VAPID key, a player's
subscriptions, and one push of one notice.

VAPID key: one P-256 key pair, ``<var>/vapid_private.pem`` (mode 0600), made the first time any
process needs it. Two processes starting at once make one key: each writes its own to a temporary
file and links it into place (``os.link`` fails if the name exists); the loser reads the winner's.
Every web server and worker must read the same file: a browser subscribed with one public key
refuses pushes signed with another. Lost, it is made again, and every subscription has to be
made again in its browser.

Subscriptions: ``player:{<id>}:push``, a hash subscription id -> JSON ``Subscription`` (at most
``MAX_SUBSCRIPTIONS``). The id is derived from the endpoint: a browser that subscribes again
(the same endpoint) replaces its record. ``lang`` is the page's language when it subscribed:
the pushes' texts are in it.

Endpoints: https only, a public host (checked when subscribing and before each push: DNS may
change); with ``OMERTA_PUSH_ALLOW_PRIVATE`` (a local push service, the tests) also private
addresses, and plain http to a loopback one. Redirects are never followed.

A push carries JSON: ``event``, ``game_id``, ``game`` (its name), ``title``, ``body`` and ``url``
(the game's page, a path). Never anything a seat hides. The push service's 404 or 410 means the
browser dropped the subscription: ``Gone``, and it is deleted.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import ipaddress
import json
import os
import secrets
import time
from functools import cache
from importlib.resources import files
from pathlib import Path
from urllib.parse import urlsplit

import msgspec
import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from py_vapid import Vapid
from pywebpush import WebPushException, webpush

from services.eventstore.store import unavailable
from services.notify import webhooks as wh
from services.notify.notifications import Notice
from services.platform.config import Settings, Store

MAX_SUBSCRIPTIONS = 10
KEY_FILE = "vapid_private.pem"
TTL = 24 * 3600  # seconds the push service keeps a push for a browser that is offline
LANGUAGES = ("en", "ja")
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})


class Subscription(msgspec.Struct, frozen=True):
    id: str
    endpoint: str
    p256dh: str
    auth: str
    lang: str
    created: int


class BadEndpoint(ValueError):
    pass


class BadKeys(ValueError):
    pass


class TooMany(Exception):
    pass


class Gone(Exception):
    """The push service no longer knows the subscription (404 or 410)."""


class DeliveryFailed(Exception):
    pass


def key_path(var: Path) -> Path:
    return var / KEY_FILE


def load_or_create_key(path: Path) -> bytes:
    """The PEM of the key at ``path``, made there first if there is none (see the docstring)."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    key = ec.generate_private_key(ec.SECP256R1())
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(pem)
            out.flush()
            os.fsync(out.fileno())
        try:
            os.link(temporary, path)
        except FileExistsError:  # another process made it first: theirs is the key
            return path.read_bytes()
    finally:
        temporary.unlink(missing_ok=True)
    return pem


@cache
def _vapid(path: Path) -> Vapid:
    return Vapid.from_pem(load_or_create_key(path))


def vapid(var: Path) -> Vapid:
    """The deployment's VAPID key, in the data directory ``var``."""
    return _vapid(key_path(var))


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def public_key(signer: Vapid) -> str:
    """The applicationServerKey browsers subscribe with: the raw point, base64url."""
    point = signer.public_key.public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    return b64url(point)


def check_endpoint(url: str, allow_private: bool, resolve: bool = True) -> None:
    """Raise ``BadEndpoint`` unless pushes may be sent to ``url`` (see the docstring;
    ``allow_private``: ``OMERTA_PUSH_ALLOW_PRIVATE``)."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
    except ValueError as exc:
        raise BadEndpoint("the endpoint is malformed") from exc
    loopback = host in LOOPBACK_NAMES or _is_loopback(host)
    if parts.scheme != "https" and not (parts.scheme == "http" and allow_private and loopback):
        raise BadEndpoint("a push endpoint must be an https URL")
    try:
        wh.check_url(url, allow_private=allow_private, resolve=resolve)
    except wh.BadUrl as exc:
        raise BadEndpoint(str(exc)) from exc


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_keys(p256dh: str, auth: str) -> None:
    """Raise ``BadKeys`` unless ``p256dh`` is a P-256 public point and ``auth`` 16 bytes, both
    base64url (RFC 8291)."""
    try:
        point, secret = _unb64url(p256dh), _unb64url(auth)
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    except (ValueError, binascii.Error) as exc:
        raise BadKeys("p256dh is not a P-256 public key in base64url") from exc
    if len(point) != 65 or len(secret) != 16:
        raise BadKeys("p256dh must be 65 bytes and auth 16, in base64url")


def subscription_id(endpoint: str) -> str:
    return "ps_" + hashlib.sha256(endpoint.encode()).hexdigest()[:16]


def subs_key(player_id: str) -> str:
    return f"player:{{{player_id}}}:push"


_subscription = msgspec.json.Decoder(Subscription)


class Subscriptions:
    def __init__(self, client: Store) -> None:
        self.redis = client

    def add(self, player_id: str, endpoint: str, p256dh: str, auth: str, lang: str) -> Subscription:
        """Store the subscription (checked by the caller), replacing one of the same endpoint."""
        sub = Subscription(
            subscription_id(endpoint), endpoint, p256dh, auth, lang, int(time.time() * 1000)
        )
        key = subs_key(player_id)
        with unavailable():
            if not self.redis.hexists(key, sub.id) and self.redis.hlen(key) >= MAX_SUBSCRIPTIONS:
                raise TooMany()
            self.redis.hset(key, sub.id, msgspec.json.encode(sub))
        return sub

    def list(self, player_id: str) -> list[Subscription]:
        with unavailable():
            stored = self.redis.hvals(subs_key(player_id))
        return sorted((_subscription.decode(r) for r in stored), key=lambda s: (s.created, s.id))

    def get(self, player_id: str, sub_id: str) -> Subscription | None:
        with unavailable():
            raw = self.redis.hget(subs_key(player_id), sub_id)
        return None if raw is None else _subscription.decode(raw)

    def delete(self, player_id: str, sub_id: str) -> bool:
        with unavailable():
            return bool(self.redis.hdel(subs_key(player_id), sub_id))


@cache
def texts() -> dict[str, dict[str, str]]:
    """The pushes' texts (``pushtexts.json``): each language the same keys."""
    raw = files(__package__).joinpath("pushtexts.json").read_text(encoding="utf-8")
    table: dict[str, dict[str, str]] = json.loads(raw)
    if any(set(table[lang]) != set(table["en"]) for lang in LANGUAGES):
        raise ValueError("pushtexts.json: keys not in every language")
    return table


def payload(notice: Notice, lang: str) -> bytes:
    table = texts()[lang if lang in LANGUAGES else "en"]
    name = table[f"game.{notice.game}"]
    return msgspec.json.encode(
        {
            "event": notice.event,
            "game_id": notice.game_id,
            "game": name,
            "title": table[f"{notice.event}.title"].format(game=name),
            "body": table[f"{notice.event}.body"].format(game=name),
            "url": f"/play/{notice.game_id}",
        }
    )


class _NoRedirects(requests.Session):
    def __init__(self) -> None:
        super().__init__()
        self.max_redirects = 0  # a redirect raises: a 3xx is a failure


def send(sub: Subscription, body: bytes, settings: Settings) -> int:
    """Encrypt ``body`` for the subscription (aes128gcm), sign with VAPID and POST it once,
    within the webhooks' timeout; the status. Raises ``Gone`` on 404/410, ``DeliveryFailed`` on
    anything else but 2xx."""
    try:
        check_endpoint(sub.endpoint, settings.push_allow_private)
    except BadEndpoint as exc:
        raise DeliveryFailed(str(exc)) from exc
    info = {"endpoint": sub.endpoint, "keys": {"p256dh": sub.p256dh, "auth": sub.auth}}
    claims = {"sub": "mailto:" + settings.mail_from}
    with _NoRedirects() as session:
        try:
            response = webpush(
                info,
                data=body,
                vapid_private_key=vapid(settings.var),
                vapid_claims=claims,
                ttl=TTL,
                timeout=settings.webhook_timeout,
                requests_session=session,
            )
        except WebPushException as exc:
            status = exc.response.status_code if exc.response is not None else None
            if status in (404, 410):
                raise Gone(sub.id) from exc
            raise DeliveryFailed(f"HTTP {status}") from exc
        except requests.RequestException as exc:
            raise DeliveryFailed(type(exc).__name__) from exc
    return response.status_code
