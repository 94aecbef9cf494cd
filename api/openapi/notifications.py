"""The operations on notifications: preferences per channel and event, webhooks, browser push."""

from __future__ import annotations

from typing import Any

from api.openapi.games import WEBHOOK_KEY
from api.openapi.route import JSON, Route, path_param
from api.routes import push, webhooks
from services.notify import webhooks as calls

HOOK_ID = path_param("hook_id", about="the webhook's id (from POST /me/webhooks)")
NOTIFICATION_ROUTES: tuple[Route, ...] = (
    Route(
        "get",
        "/me/notifications",
        "The caller's notification preferences, per channel and event",
        (200, webhooks.NotificationPrefs),
        auth="required",
        codes=("store_unavailable",),
        tag="notifications",
    ),
    Route(
        "put",
        "/me/notifications",
        "Change the caller's notification preferences (the pairs sent; the rest stay)",
        (200, webhooks.NotificationPrefs),
        body=webhooks.NotificationPrefs,
        auth="required",
        codes=("store_unavailable",),
        tag="notifications",
    ),
    Route(
        "post",
        "/me/webhooks",
        "Register a webhook: each event the caller wants is POSTed to it, signed",
        (201, webhooks.WebhookCreated),
        body=webhooks.NewWebhook,
        auth="required",
        params=(WEBHOOK_KEY,),
        codes=(
            "bad_command_id",
            "bad_webhook_url",
            "idempotency_key_in_use",
            "idempotency_key_reused",
            "store_unavailable",
            "too_many_webhooks",
            "weak_idempotency_key",
        ),
        tag="notifications",
        description="Each call is the `notice` webhook of this document (its body and "
        "headers). A 2xx answer within the timeout is a delivery; anything else (redirects are "
        "not followed; a host that does not resolve, a refused connection, a timeout) is "
        "retried with backoff (OMERTA_WEBHOOK_BACKOFF), then given up; GET /me/webhooks shows "
        "the last failure. The URL must be http(s) and not name a private or loopback address.",
    ),
    Route(
        "get",
        "/me/webhooks",
        "The caller's webhooks",
        (200, webhooks.WebhookList),
        auth="required",
        codes=("store_unavailable",),
        tag="notifications",
        description="Each with its last failed delivery (last_failure; null once a delivery "
        "to it succeeds): when, why, and whether the sending was given up after the last try.",
    ),
    Route(
        "delete",
        "/me/webhooks/{hook_id}",
        "Delete one of the caller's webhooks; the webhooks left",
        (200, webhooks.WebhookList),
        auth="required",
        params=(HOOK_ID,),
        codes=("store_unavailable", "unknown_webhook"),
        tag="notifications",
    ),
    Route(
        "get",
        "/push/key",
        "The server's VAPID public key: applicationServerKey for pushManager.subscribe",
        (200, push.VapidKey),
        tag="notifications",
    ),
    Route(
        "post",
        "/me/push",
        "Subscribe a browser to pushes: the body is its PushSubscription.toJSON()",
        (201, push.SubscriptionOut),
        body=push.NewSubscription,
        auth="required",
        codes=(
            "bad_push_endpoint",
            "bad_push_keys",
            "store_unavailable",
            "too_many_push_subscriptions",
        ),
        tag="notifications",
        description="Each event the caller wants on the push channel is pushed to the "
        "endpoint, encrypted for the browser's keys (RFC 8291, aes128gcm) and signed with the "
        "server's VAPID key (RFC 8292). The decrypted push is JSON: event, game_id, game (its "
        "name), title and body (in the page's language when it subscribed) and url (the "
        "game's page). The endpoint must be https and not name a private address; the same "
        "endpoint again replaces its subscription. A push service's 404 or 410 deletes it.",
    ),
    Route(
        "get",
        "/me/push",
        "The caller's browsers that get pushes",
        (200, push.SubscriptionList),
        auth="required",
        codes=("store_unavailable",),
        tag="notifications",
    ),
    Route(
        "delete",
        "/me/push",
        "Unsubscribe a browser (by its endpoint); the subscriptions left",
        (200, push.SubscriptionList),
        body=push.Unsubscribe,
        auth="required",
        codes=("store_unavailable", "unknown_push_subscription"),
        tag="notifications",
    ),
)


def _header(name: str, kind: str, about: str) -> dict[str, Any]:
    return {"name": name, "in": "header", "required": True, "schema": {"type": kind},
            "description": about}  # fmt: skip


REF = "#/components/schemas/WebhookBody"
# The call the server makes to a webhook's URL (OpenAPI's top-level ``webhooks``).
WEBHOOK_CALL: dict[str, Any] = {
    "post": {
        "operationId": "webhook_notice",
        "summary": "One event for the webhook's player, POSTed to its URL",
        "description": "A 2xx answer within the timeout is a delivery; anything else "
        "(redirects are not followed) is retried with backoff, with the same "
        f"{calls.DELIVERY}: a call whose answer was lost is made again, so dedupe on it. "
        "Check the signature, and refuse a timestamp far from now (a replayed call).",
        "parameters": [
            _header(
                calls.TIMESTAMP,
                "integer",
                "when the call was signed: whole seconds since the Unix epoch (UTC)",
            ),
            _header(
                calls.SIGNATURE,
                "string",
                '"sha256=" and the hex HMAC-SHA256, keyed '
                "with the webhook's secret (UTF-8), of the timestamp's decimal digits, "
                '".", and the body\'s exact bytes',
            ),
            _header(
                calls.DELIVERY,
                "string",
                "the sending's id, the same on every try (the body's `delivery`)",
            ),
        ],
        "requestBody": {"required": True, "content": {JSON: {"schema": {"$ref": REF}}}},
        "responses": {"2XX": {"description": "delivered"}},
    }
}
