"""The caller's notification preferences and webhooks: ``GET/PUT
/me/notifications``, ``POST/GET /me/webhooks``, ``DELETE /me/webhooks/{hook_id}``.

A URL is checked here for its form (http or https, a host, no credentials) and, when its host
is an address or ``localhost``, for being public; a host name is resolved, and its addresses
checked, before every call (``services.notify.webhooks.post``): DNS may point it elsewhere later,
and a
request here does not wait on a resolver."""

from __future__ import annotations

from typing import Annotated

import msgspec
from flask import Blueprint, Response, request

from api.context import caller, deps
from api.http.jsonio import body, reply
from api.http.problems import ApiError
from api.schemas.common import COMMAND_ID_HEADER, In
from services.eventstore import idempotency
from services.notify import notifications as nt
from services.notify import webhooks as wh

bp = Blueprint("webhooks", __name__)

Url = Annotated[str, msgspec.Meta(min_length=1, max_length=wh.MAX_URL)]


class EventFlags(In, frozen=True):
    """Which events a channel carries (``true``: sent); a field left out is left as it is."""

    your_turn: bool | None = None
    game_ended: bool | None = None
    player_joined: bool | None = None
    time_low: bool | None = None


class NotificationPrefs(In, frozen=True):
    """Per channel (webhook; email and push once they exist), which events are sent."""

    webhook: EventFlags | None = None
    email: EventFlags | None = None
    push: EventFlags | None = None


class NewWebhook(In, frozen=True):
    url: Url


class WebhookOut(msgspec.Struct, frozen=True):
    """``last_failure``: the hook's last failed try (null once a delivery to it succeeds):
    its time (ms), reason (``dns``: the host does not resolve, ``address``: it resolves to an
    address webhooks may not call, ``connection``: refused or broken, ``timeout``, ``status``:
    an answer other than 2xx, ``status`` the answer's), and whether its sending was given up
    (the last try the backoff allows)."""

    id: str
    url: str
    created: int
    last_failure: wh.WebhookFailure | None = None


class WebhookCreated(msgspec.Struct, frozen=True):
    """The signing secret is shown only here (the server derives it again to sign, and stores
    nothing of it). Each call: ``X-Omerta-Signature: sha256=<hex HMAC-SHA256 of
    "<X-Omerta-Timestamp>." + body>``, ``X-Omerta-Delivery``: the same id on every try (an
    answer lost on the way makes a second try: dedupe on it)."""

    id: str
    url: str
    created: int
    secret: str


class WebhookList(msgspec.Struct, frozen=True):
    webhooks: list[WebhookOut]


def _prefs_out(prefs: dict[str, dict[str, bool]]) -> NotificationPrefs:
    return NotificationPrefs(**{c: EventFlags(**events) for c, events in prefs.items()})


def _preferences() -> nt.Preferences:
    return nt.Preferences(deps().store)


def _hooks() -> wh.Webhooks:
    return wh.Webhooks(deps().store, deps().secret)


@bp.get("/me/notifications")
def get_notifications() -> Response:
    return reply(_prefs_out(_preferences().get(caller().id)))


@bp.put("/me/notifications")
def put_notifications() -> Response:
    player, sent = caller(), body(NotificationPrefs)
    changes = {
        channel: {e: on for e, on in msgspec.structs.asdict(flags).items() if on is not None}
        for channel in nt.CHANNELS
        if (flags := getattr(sent, channel)) is not None
    }
    prefs = _preferences()
    prefs.put(player.id, changes)
    return reply(_prefs_out(prefs.get(player.id)))


@bp.post("/me/webhooks")
def add_webhook() -> Response:
    player, new = caller(), body(NewWebhook)
    key = idempotency.check_key(request.headers.get(COMMAND_ID_HEADER))
    try:
        wh.check_url(new.url, deps().settings.webhooks_allow_private, resolve=False)
    except wh.BadUrl as exc:
        raise ApiError(400, "bad_webhook_url", str(exc)) from exc
    try:
        hook, secret = _hooks().add(player.id, new.url, key, idempotency.fingerprint(new))
    except wh.TooMany as exc:
        raise ApiError(
            409, "too_many_webhooks", f"at most {wh.MAX_HOOKS} webhooks", max=wh.MAX_HOOKS
        ) from exc
    return reply(WebhookCreated(hook.id, hook.url, hook.created, secret), 201)


@bp.get("/me/webhooks")
def list_webhooks() -> Response:
    return _listed(caller().id)


@bp.delete("/me/webhooks/<hook_id>")
def delete_webhook(hook_id: str) -> Response:
    """Delete the hook; the caller's webhooks left. Sendings already queued for it are dropped."""
    player = caller()
    if not _hooks().delete(player.id, hook_id):
        raise ApiError(404, "unknown_webhook", "the caller has no webhook with this id")
    return _listed(player.id)


def _listed(player_id: str) -> Response:
    hooks = _hooks()
    failures = hooks.failures(player_id)
    listed = [WebhookOut(h.id, h.url, h.created, failures.get(h.id)) for h in hooks.list(player_id)]
    return reply(WebhookList(listed))
