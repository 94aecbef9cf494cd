"""Browser push: ``GET /push/key`` (the server's VAPID public key, which browsers
subscribe with), ``POST/GET/DELETE /me/push`` (the caller's subscriptions,
``services.notify.push``).

A subscription is the browser's ``PushSubscription.toJSON()``; the page's language (its cookie,
else Accept-Language) is the pushes' language. The endpoint is checked here for its form and,
when its host is an address or ``localhost``, for being public; a host name is resolved before
every push."""

from __future__ import annotations

from typing import Annotated
from urllib.parse import urlsplit

import msgspec
from flask import Blueprint, Response

from api.context import caller, deps
from api.http.jsonio import body, reply
from api.http.problems import ApiError
from api.web import i18n
from services.notify import push

bp = Blueprint("push", __name__)
# The VAPID key is made when the web server first starts (``services.notify.push``): an operator
# finds it in <var>/ from then on, to keep with the store's backups.
bp.record_once(lambda state: push.vapid(state.app.extensions["omerta"].settings.var))

Endpoint = Annotated[str, msgspec.Meta(min_length=1, max_length=2000)]
Key = Annotated[str, msgspec.Meta(min_length=1, max_length=200)]


class SubscriptionKeys(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """RFC 8291's keys, base64url: the browser's P-256 public key and its 16-byte secret."""

    p256dh: Key
    auth: Key


class NewSubscription(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """What ``PushSubscription.toJSON()`` gives."""

    endpoint: Endpoint
    keys: SubscriptionKeys
    expirationTime: int | float | None = None


class Unsubscribe(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    endpoint: Endpoint


class VapidKey(msgspec.Struct, frozen=True):
    """``applicationServerKey`` for ``pushManager.subscribe``: the raw P-256 point, base64url."""

    key: str


class SubscriptionOut(msgspec.Struct, frozen=True):
    """One of the caller's browsers: the push service's host (the endpoint itself is the
    browser's to know), the language of its pushes, when it subscribed (ms)."""

    id: str
    host: str
    lang: str
    created: int


class SubscriptionList(msgspec.Struct, frozen=True):
    subscriptions: list[SubscriptionOut]


def _subs() -> push.Subscriptions:
    return push.Subscriptions(deps().store)


def _out(sub: push.Subscription) -> SubscriptionOut:
    return SubscriptionOut(sub.id, urlsplit(sub.endpoint).hostname or "", sub.lang, sub.created)


@bp.get("/push/key")
def vapid_key() -> Response:
    return reply(VapidKey(push.public_key(push.vapid(deps().settings.var))))


@bp.post("/me/push")
def subscribe() -> Response:
    player, new = caller(), body(NewSubscription)
    try:
        push.check_endpoint(new.endpoint, deps().settings.push_allow_private, resolve=False)
    except push.BadEndpoint as exc:
        raise ApiError(400, "bad_push_endpoint", str(exc)) from exc
    try:
        push.check_keys(new.keys.p256dh, new.keys.auth)
    except push.BadKeys as exc:
        raise ApiError(400, "bad_push_keys", str(exc)) from exc
    try:
        sub = _subs().add(player.id, new.endpoint, new.keys.p256dh, new.keys.auth, i18n.language())
    except push.TooMany as exc:
        raise ApiError(
            409,
            "too_many_push_subscriptions",
            f"at most {push.MAX_SUBSCRIPTIONS} browsers get pushes",
            max=push.MAX_SUBSCRIPTIONS,
        ) from exc
    return reply(_out(sub), 201)


@bp.get("/me/push")
def list_subscriptions() -> Response:
    return _listed(caller().id)


@bp.delete("/me/push")
def unsubscribe() -> Response:
    """Delete the subscription of this endpoint; the caller's left. Pushes queued for it are
    dropped."""
    player, gone = caller(), body(Unsubscribe)
    if not _subs().delete(player.id, push.subscription_id(gone.endpoint)):
        raise ApiError(
            404, "unknown_push_subscription", "the caller has no subscription with this endpoint"
        )
    return _listed(player.id)


def _listed(player_id: str) -> Response:
    return reply(SubscriptionList([_out(s) for s in _subs().list(player_id)]))
