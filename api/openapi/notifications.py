"""The operations on notifications: preferences per channel and event, webhooks, browser push."""

from __future__ import annotations

from api.openapi.route import Route, path_param
from api.routes import push, webhooks

HOOK_ID = path_param("hook_id", about="the webhook's id (from POST /me/webhooks)")
NOTIFICATION_ROUTES: tuple[Route, ...] = (
    Route(
        "get",
        "/me/notifications",
        "The caller's notification preferences, per channel and event",
        (200, webhooks.NotificationPrefs),
        auth="required",
        errors=(401,),
        tag="notifications",
    ),
    Route(
        "put",
        "/me/notifications",
        "Change the caller's notification preferences (the pairs sent; the rest stay)",
        (200, webhooks.NotificationPrefs),
        body=webhooks.NotificationPrefs,
        auth="required",
        errors=(400, 401),
        tag="notifications",
    ),
    Route(
        "post",
        "/me/webhooks",
        "Register a webhook: each event the caller wants is POSTed to it, signed",
        (201, webhooks.WebhookCreated),
        body=webhooks.NewWebhook,
        auth="required",
        errors=(400, 401, 409),
        tag="notifications",
        description="The body is JSON: delivery, event (your_turn, game_ended, "
        "player_joined, time_low), game_id, game, version, seat. Headers: X-Omerta-Timestamp, "
        'X-Omerta-Signature ("sha256=" and the hex HMAC-SHA256, keyed with the secret, of '
        'the timestamp, ".", and the body) and X-Omerta-Delivery, the same on every try: a '
        "call whose answer was lost is made again, so dedupe on it. A 2xx answer within the "
        "timeout is a delivery; anything else (redirects are not followed; a host that does "
        "not resolve, a refused connection, a timeout) is retried with backoff "
        "(OMERTA_WEBHOOK_BACKOFF), then given up; GET /me/webhooks shows the last failure. "
        "The URL must be http(s) and not name a private or loopback address.",
    ),
    Route(
        "get",
        "/me/webhooks",
        "The caller's webhooks",
        (200, webhooks.WebhookList),
        auth="required",
        errors=(401,),
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
        errors=(401, 404),
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
        errors=(400, 401, 409),
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
        errors=(401,),
        tag="notifications",
    ),
    Route(
        "delete",
        "/me/push",
        "Unsubscribe a browser (by its endpoint); the subscriptions left",
        (200, push.SubscriptionList),
        body=push.Unsubscribe,
        auth="required",
        errors=(400, 401, 404),
        tag="notifications",
    ),
)
