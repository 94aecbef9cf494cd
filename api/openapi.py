"""The OpenAPI 3.1 document, generated from the msgspec types that validate the requests and
shape the responses (``api.schemas``, the games' Options, Command, Event and View types).

``ROUTES`` describes each operation once: the API page (``api.docs``) is rendered from the same
document. ``tests/api`` checks that every Flask route is in it and runs schemathesis against it.
"""

from __future__ import annotations

import typing
from dataclasses import dataclass
from typing import Any

import msgspec

from api import schemas
from api.problems import API_CODES, Problem
from api.routes import mail, webhooks
from api.schemas import COMMAND_ID_HEADER
from domain import GAMES
from services.idempotency import MIN_PLAYER_KEY

JSON = "application/json"
REF = "#/components/schemas/{name}"


@dataclass(frozen=True)
class Route:
    method: str
    path: str
    summary: str
    ok: tuple[int, Any]  # status and response type (None: no JSON body)
    body: Any = None
    auth: str = "none"  # "none", "required", or "optional" (without: a spectator)
    params: tuple[dict[str, Any], ...] = ()
    errors: tuple[int, ...] = ()
    tag: str = "games"
    media: str = JSON
    description: str = ""


def _path_param(name: str, kind: str = "string", about: str = "") -> dict[str, Any]:
    return {
        "name": name,
        "in": "path",
        "required": True,
        "schema": {"type": kind},
        "description": about,
    }


def _query(name: str, about: str) -> dict[str, Any]:
    return {
        "name": name,
        "in": "query",
        "required": False,
        "schema": {"type": "integer", "minimum": 0},
        "description": about,
    }


GAME_ID = _path_param("game_id", about="the game's id (from POST /games)")
AFTER = _query("after", "only events after this version")
IDEMPOTENCY = {
    "name": COMMAND_ID_HEADER,
    "in": "header",
    "required": False,
    "schema": {"type": "string", "minLength": 1, "maxLength": schemas.MAX_IDEMPOTENCY_KEY},
    "description": "the command's id, unique per seat of the game: a retry with the same key "
    "appends nothing and answers as the first try did, the same key with another command is "
    "refused (409 command_id_reused); another seat's keys are its own; keys starting with ai- "
    "are the AI seats' (400 reserved_command_id); the server picks a random one when absent",
}


def _creation_key(scope: str, minimum: int = 1) -> dict[str, Any]:
    longest = schemas.MAX_IDEMPOTENCY_KEY
    return {
        "name": COMMAND_ID_HEADER,
        "in": "header",
        "required": False,
        "schema": {"type": "string", "minLength": minimum, "maxLength": longest},
        "description": f"makes a retry safe (a 503 after the write, a lost answer): {scope}; "
        "a retry with the same key and body, within 24 hours, creates nothing and gets the "
        "first answer again; the same key with another body is refused (409 "
        "idempotency_key_reused), as is a twin while the first is under way (409 "
        "idempotency_key_in_use: retry)",
    }


PLAYER_KEY = _creation_key(
    "the key alone names the request, so it must be random, of at least "
    f"{MIN_PLAYER_KEY} characters (a UUID; shorter: 400 weak_idempotency_key)",
    MIN_PLAYER_KEY,
)
GAME_KEY = _creation_key("each player's keys are their own")
JOIN_KEY = _creation_key("each player's keys are their own, per game")
LAST_EVENT_ID = {
    "name": "Last-Event-ID",
    "in": "header",
    "required": False,
    "schema": {"type": "string", "pattern": "^[0-9]{1,12}$"},
    "description": "reconnecting: the last version received (EventSource sends it itself)",
}

# Issue 14: notifications and webhooks (api.routes.webhooks).
HOOK_ID = _path_param("hook_id", about="the webhook's id (from POST /me/webhooks)")
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
        "player_joined), game_id, game, version, seat. Headers: X-Omerta-Timestamp, "
        'X-Omerta-Signature ("sha256=" and the hex HMAC-SHA256, keyed with the secret, of '
        'the timestamp, ".", and the body) and X-Omerta-Delivery, the same on every try: a '
        "call whose answer was lost is made again, so dedupe on it. A 2xx answer within the "
        "timeout is a delivery; anything else (redirects are not followed) is retried with "
        "backoff. The URL must be http(s) and not name a private or loopback address.",
    ),
    Route(
        "get",
        "/me/webhooks",
        "The caller's webhooks",
        (200, webhooks.WebhookList),
        auth="required",
        errors=(401,),
        tag="notifications",
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
)

LINK_TOKEN = _path_param("token", about="the token of the mailed link")
FORM_TOO = (
    "Takes an empty body, JSON, or a form (`application/x-www-form-urlencoded`: the link's "
    "page posts one, and then the answer is a 303 to the next page)."
)
MAIL_ROUTES: tuple[Route, ...] = (
    Route(
        "post",
        "/me/email",
        "Set the caller's email address; a verification link is mailed to it (24 hours)",
        (202, mail.EmailOut),
        body=mail.NewEmail,
        auth="required",
        errors=(400, 401, 429),
        tag="players",
    ),
    Route(
        "get",
        "/me/email",
        "The caller's email address and its state",
        (200, mail.EmailOut),
        auth="required",
        errors=(401, 404),
        tag="players",
    ),
    Route(
        "post",
        "/email/verify/{token}",
        "Verify the address with the mailed link's token (once)",
        (200, None),
        params=(LINK_TOKEN,),
        errors=(410,),
        tag="players",
        description=FORM_TOO,
    ),
    Route(
        "post",
        "/signin/email",
        "Mail a one-time sign-in link (15 minutes) to a verified address",
        (202, None),
        body=mail.SignInByMail,
        errors=(400, 429),
        tag="players",
        description="The answer is the same whether or not the address is a player's.",
    ),
    Route(
        "post",
        "/signin/email/{token}",
        "Sign in with the mailed link's token (once): sets the cookie, returns a token",
        (200, schemas.SignedIn),
        params=(LINK_TOKEN,),
        errors=(410,),
        tag="players",
        description=FORM_TOO,
    ),
    Route(
        "post",
        "/mail/unsubscribe/{player_id}/{signature}",
        "One-click unsubscribe from notification mails (RFC 8058)",
        (200, None),
        params=(
            _path_param("player_id", about="the player"),
            _path_param("signature", about="the link's signature"),
        ),
        errors=(410,),
        tag="players",
        description="Mail clients post the form `List-Unsubscribe=One-Click`; " + FORM_TOO,
    ),
)

ROUTES: tuple[Route, ...] = (
    Route(
        "get",
        "/games",
        "The games on offer, with their option and command schemas",
        (200, list[schemas.GameKind]),
    ),
    Route(
        "post",
        "/games",
        "Create a game; the caller takes a seat, open seats get invites",
        (201, schemas.GameCreated),
        body=schemas.NewGame,
        auth="required",
        params=(GAME_KEY,),
        errors=(400, 401, 409, 429),
    ),
    Route(
        "get",
        "/games/{game_id}",
        "A game's table: seats, version, who is to act, result",
        (200, schemas.GameOut),
        auth="optional",
        params=(GAME_ID,),
        errors=(401, 404),
    ),
    Route(
        "post",
        "/games/{game_id}/join",
        "Take a seat with an invite (or in a public game)",
        (200, schemas.Joined),
        body=schemas.JoinGame,
        auth="required",
        params=(GAME_ID, JOIN_KEY),
        errors=(400, 401, 403, 404, 409, 429),
    ),
    Route(
        "get",
        "/games/{game_id}/view",
        "What the caller's seat (or a spectator) sees now",
        (200, schemas.ViewOut),
        auth="optional",
        params=(GAME_ID,),
        errors=(401, 404),
    ),
    Route(
        "get",
        "/games/{game_id}/legal",
        "Every command the caller may send now",
        (200, schemas.LegalOut),
        auth="required",
        params=(GAME_ID,),
        errors=(401, 403, 404),
    ),
    Route(
        "post",
        "/games/{game_id}/commands",
        "Send a command for the caller's seat",
        (200, schemas.Accepted),
        body=schemas.CommandIn,
        auth="required",
        params=(GAME_ID, IDEMPOTENCY),
        errors=(400, 401, 403, 404, 409, 413, 422, 429),
    ),
    Route(
        "get",
        "/games/{game_id}/history",
        "The events as the caller may see them (everything, seed too, once the game is over)",
        (200, schemas.HistoryOut),
        auth="optional",
        params=(GAME_ID, AFTER),
        errors=(400, 401, 404),
    ),
    Route(
        "get",
        "/games/{game_id}/replay/{version}",
        "The caller's view of the game as it stood at a version",
        (200, schemas.ViewOut),
        auth="optional",
        params=(GAME_ID, _path_param("version", "integer", "1 to the game's version")),
        errors=(401, 404),
    ),
    Route(
        "get",
        "/games/{game_id}/events",
        "Live events (server-sent events), redacted",
        (200, None),
        auth="optional",
        params=(GAME_ID, AFTER, LAST_EVENT_ID),
        errors=(400, 401, 404, 429),
        media="text/event-stream",
        description="Each message: `id` the version, `event` the type, `data` an EventOut. "
        "The response ends after a bounded time or when the game is over; reconnect with "
        "Last-Event-ID. A client (player, or address without a token) holds a limited number "
        "of streams open at once: one more is 429 `too_many_streams` with Retry-After.",
    ),
    Route(
        "get",
        "/lobby",
        "Public games with an open seat",
        (200, schemas.GameList),
        auth="optional",
        errors=(401,),
        tag="players",
    ),
    Route(
        "post",
        "/players",
        "Create a player; the answer holds its secret token (once)",
        (201, schemas.PlayerCreated),
        body=schemas.NewPlayer,
        params=(PLAYER_KEY,),
        errors=(400, 409, 429),
        tag="players",
        description="Also sets the token as an HttpOnly cookie for the web pages. When the "
        "request's cookie already names a player, the answer is 409 `player_exists` unless "
        'the body says `"replace": true`: that player lived only in the cookie, and a '
        "new one replaces it (the old one's seats are lost to this browser).",
    ),
    Route(
        "get",
        "/me",
        "The caller",
        (200, schemas.PlayerOut),
        auth="required",
        errors=(401,),
        tag="players",
    ),
    Route(
        "get",
        "/me/games",
        "The caller's games",
        (200, schemas.GameList),
        auth="required",
        errors=(401,),
        tag="players",
    ),
    Route(
        "get",
        "/me/inbox",
        "The caller's games waiting for the caller",
        (200, schemas.GameList),
        auth="required",
        errors=(401,),
        tag="players",
    ),
    Route(
        "post",
        "/signin",
        "Sign in on this device with the sign-in link or the recovery code",
        (200, schemas.SignedIn),
        body=schemas.SignIn,
        errors=(400, 401, 429),
        tag="devices",
        description="Send `link` (the sign-in link's part after `#`) or `code` (the recovery "
        "code). The answer holds a new device token for the same player (once; the server "
        "keeps its hash) and sets it as the pages' cookie. Attempts are rate-limited per "
        "address and per link or code: 429 `rate_limited`.",
    ),
    Route(
        "get",
        "/me/signin",
        "When the caller's sign-in link and recovery code were made (null: none)",
        (200, schemas.SignInState),
        auth="required",
        errors=(401,),
        tag="devices",
    ),
    Route(
        "post",
        "/me/signin",
        "Make a new sign-in link and recovery code (the old ones stop working)",
        (201, schemas.SignInLink),
        auth="required",
        errors=(401,),
        tag="devices",
        description="Both are shown only in this answer (the server keeps their hashes), the "
        "link as text and as a QR code (SVG).",
    ),
    Route(
        "delete",
        "/me/signin",
        "Revoke the sign-in link and recovery code",
        (204, None),
        auth="required",
        errors=(401,),
        tag="devices",
    ),
    Route(
        "get",
        "/me/devices",
        "The caller's signed-in devices, last used first",
        (200, schemas.DeviceList),
        auth="required",
        errors=(401,),
        tag="devices",
        description="The token POST /players returned is the first device. Last use is "
        "updated at most once a minute.",
    ),
    Route(
        "delete",
        "/me/devices/{device_id}",
        "Sign out one device (its token stops working)",
        (204, None),
        auth="required",
        params=(_path_param("device_id", about="a device's id from GET /me/devices"),),
        errors=(401, 404),
        tag="devices",
    ),
    Route(
        "post",
        "/me/devices/signout",
        "Sign out every other device, or every device",
        (200, schemas.SignedOut),
        body=schemas.SignOut,
        auth="required",
        errors=(400, 401),
        tag="devices",
    ),
    *NOTIFICATION_ROUTES,
    *MAIL_ROUTES,
    Route("get", "/healthz", "The process is up", (200, schemas.Health), tag="operations"),
    Route(
        "get",
        "/readyz",
        "The event store answers",
        (200, schemas.Health),
        errors=(503,),
        tag="operations",
    ),
    Route("get", "/openapi.json", "This document", (200, None), tag="operations"),
    Route("get", "/docs", "The API page (HTML)", (200, None), tag="operations", media="text/html"),
)


def _game_unions() -> dict[str, Any]:
    """Component name -> type for each game's own types."""
    out: dict[str, Any] = {}
    for name, game in sorted(GAMES.items()):
        out[f"{name}.Options"] = game.Options
        out[f"{name}.Command"] = game.Command
        out[f"{name}.Event"] = game.Event
        out[f"{name}.View"] = typing.get_type_hints(game.view)["return"]
    return out


def _any_of(kind: str) -> dict[str, Any]:
    """anyOf, not oneOf: the games share some shapes ({"type": "pass"} is a move of both)."""
    return {"anyOf": [{"$ref": REF.format(name=f"{g}.{kind}")} for g in sorted(GAMES)]}


# Properties typed Any in api.schemas: which game types they hold.
GAME_FIELDS = {
    ("CommandIn", "command"): _any_of("Command"),
    ("ViewOut", "view"): _any_of("View"),
    ("LegalOut", "commands"): {"type": "array", "items": _any_of("Command")},
    ("Accepted", "legal"): {
        "anyOf": [{"type": "array", "items": _any_of("Command")}, {"type": "null"}]
    },
    ("EventOut", "event"): _any_of("Event"),
}


def _components() -> dict[str, Any]:
    api_types = [r.body for r in ROUTES if r.body] + [r.ok[1] for r in ROUTES if r.ok[1]]
    named = _game_unions()
    shown, components = msgspec.json.schema_components(
        [*api_types, Problem, *named.values()], ref_template=REF
    )
    for name, schema in zip(named, shown[len(api_types) + 1 :], strict=True):
        components[name] = schema  # a union inline, or an alias of a struct's own component
    for (struct, prop), schema in GAME_FIELDS.items():
        components[struct]["properties"][prop] = schema
    return components


def _schema_of(kind: Any) -> dict[str, Any]:
    schema, _ = msgspec.json.schema_components([kind], ref_template=REF)
    return schema[0]


def _operation(route: Route) -> dict[str, Any]:
    status, kind = route.ok
    content = {route.media: {"schema": _schema_of(kind)}} if kind else {route.media: {}}
    responses: dict[str, Any] = {str(status): {"description": "OK", "content": content}}
    if status == 204:
        responses[str(status)] = {"description": "Done (no body)"}
    # Every write: 415 json_required, 403 cross_origin (api.security).
    writes = {403, 415} if route.method in ("post", "put", "patch", "delete") else set()
    for code in sorted(set(route.errors) | writes | {500}):
        responses[str(code)] = {"$ref": f"#/components/responses/Problem{code}"}
    op: dict[str, Any] = {
        "operationId": f"{route.method}_{route.path}".replace("/", "_")
        .replace("{", "")
        .replace("}", "")
        .replace(".", "_")
        .strip("_"),
        "summary": route.summary,
        "tags": [route.tag],
        "parameters": list(route.params),
        "responses": responses,
    }
    if route.description:
        op["description"] = route.description
    if route.body is not None:
        op["requestBody"] = {
            "required": True,
            "content": {JSON: {"schema": _schema_of(route.body)}},
        }
    if route.auth == "required":
        op["security"] = [{"bearer": []}, {"cookie": []}]
    elif route.auth == "optional":
        op["security"] = [{}, {"bearer": []}, {"cookie": []}]
    return op


def _problem_responses() -> dict[str, Any]:
    statuses = sorted({status for status, _ in API_CODES.values()} | {500})
    out = {}
    for status in statuses:
        codes = sorted(c for c, (s, _) in API_CODES.items() if s == status)
        out[f"Problem{status}"] = {
            "description": "problem details; code: " + ", ".join(codes),
            "content": {
                "application/problem+json": {"schema": {"$ref": REF.format(name="Problem")}}
            },
        }
    return out


def document() -> dict[str, Any]:
    paths: dict[str, dict[str, Any]] = {}
    for route in ROUTES:
        paths.setdefault(route.path, {})[route.method] = _operation(route)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Omerta",
            "version": "1",
            "description": "Play Famiglia and Gangsta! by web. Create a player (POST /players) "
            "to get a token; send it as `Authorization: Bearer <token>`. Errors are RFC 9457 "
            "problem+json with a stable `code` and `params`, the values its `detail` names "
            "(`case` tells apart the messages of one code). `detail` is English, or Japanese "
            "when the request sends `Accept-Language: ja`. Every POST takes a JSON body "
            "(`Content-Type: application/json`, else 415 `json_required`); one sent without a "
            "bearer token (the web pages' cookie) must come from this site's own pages "
            "(`Sec-Fetch-Site` / `Origin`, else 403 `cross_origin`).",
        },
        "paths": paths,
        "components": {
            "schemas": _components(),
            "responses": _problem_responses(),
            "securitySchemes": {
                "bearer": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "the token from POST /players",
                },
                "cookie": {"type": "apiKey", "in": "cookie", "name": "omerta_token"},
            },
        },
    }
