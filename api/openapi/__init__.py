"""The OpenAPI 3.1 document, generated from the msgspec types that validate the requests and
shape the responses (``api.schemas``, the games' Options, Command, Event and View types).

``ROUTES`` describes each operation once (the modules ``games``, ``identity``, ``notifications``,
``ratings``):
the API page (``api.http.docs``) is rendered from the same document. ``tests/api`` checks that every
Flask route is in it and runs schemathesis against it.
"""

from __future__ import annotations

import typing
from typing import Any

import msgspec

from api.http.problems import Problem
from api.openapi.clocks import CLOCK_ROUTES
from api.openapi.games import GAME_ROUTES
from api.openapi.identity import IDENTITY_ROUTES
from api.openapi.notifications import NOTIFICATION_ROUTES, WEBHOOK_CALL
from api.openapi.ratings import RATING_ROUTES
from api.openapi.refusals import codes_of
from api.openapi.reviews import DESCRIPTIONS, REVIEW_ROUTES
from api.openapi.route import FORM, JSON, Route
from api.openapi.social import SOCIAL_ROUTES
from api.schemas.inbox import InboxEvent
from domain import GAMES
from services.games.rematch import Offer
from services.notify.webhooks import WebhookBody

REF = "#/components/schemas/{name}"
ROUTES: tuple[Route, ...] = (
    *GAME_ROUTES,
    *IDENTITY_ROUTES,
    *NOTIFICATION_ROUTES,
    *CLOCK_ROUTES,
    *RATING_ROUTES,
    *SOCIAL_ROUTES,
    *REVIEW_ROUTES,
)


def _game_unions() -> dict[str, Any]:
    """Component name -> type for each game's own types."""
    out: dict[str, Any] = {}
    for name, game in sorted(GAMES.items()):
        out[f"{name}.Options"] = game.Options
        out[f"{name}.Command"] = game.Command
        out[f"{name}.Event"] = game.Event
        # The game's own view: a game at the table (domain.table) shows it unchanged.
        out[f"{name}.View"] = typing.get_type_hints(getattr(game, "inner", game).view)["return"]
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
    ("Decision", "played"): _any_of("Command"),
    ("Decision", "best"): _any_of("Command"),
}

# What no route's JSON body names: the data of a stream's messages, a webhook call's body.
UNROUTED = (InboxEvent, Offer, WebhookBody)


def _components() -> dict[str, Any]:
    api_types = [r.body for r in ROUTES if r.body] + [r.ok[1] for r in ROUTES if r.ok[1]]
    named = _game_unions()
    shown, components = msgspec.json.schema_components(
        [*api_types, Problem, *UNROUTED, *named.values()], ref_template=REF
    )
    first = len(api_types) + 1 + len(UNROUTED)
    for name, schema in zip(named, shown[first:], strict=True):
        components[name] = schema  # a union inline, or an alias of a struct's own component
    for (struct, prop), schema in GAME_FIELDS.items():
        components[struct]["properties"][prop] = schema
    for struct, text in DESCRIPTIONS.items():
        components[struct]["description"] = text
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
    by_status: dict[int, list[str]] = {}
    for code, code_status in sorted(codes_of(route).items()):
        by_status.setdefault(code_status, []).append(code)
    for code_status, codes in sorted(by_status.items()):
        responses[str(code_status)] = _problem_response(codes)
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
    if route.form:
        # The body is not read but for its type: any JSON, or a form (of any fields).
        form = {FORM: {"schema": {"type": "object"}}, JSON: {"schema": {}}}
        op["requestBody"] = {"required": False, "content": form}
        responses["303"] = {
            "description": "the answer to a form: the next page (Location)",
            "headers": {"Location": {"schema": {"type": "string"}}},
        }
    if route.auth == "required":
        op["security"] = [{"bearer": []}, {"cookie": []}]
    elif route.auth == "optional":
        op["security"] = [{}, {"bearer": []}, {"cookie": []}]
    return op


def _problem_response(codes: list[str]) -> dict[str, Any]:
    """A refusal with one of ``codes``; ``type`` links each code's entry on the API page."""
    return {
        "description": "problem details; code: " + ", ".join(codes),
        "content": {
            "application/problem+json": {
                "schema": {
                    "allOf": [
                        {"$ref": REF.format(name="Problem")},
                        {"properties": {"code": {"enum": codes}}},
                    ]
                }
            }
        },
    }


def _short_names(doc: dict[str, Any]) -> dict[str, Any]:
    """``<game>.<Name>`` for the schemas msgspec names after their module (two games' types of
    one name): a client has no module to look at. A game's alias of one (``famiglia.Options``)
    becomes the schema itself."""
    renames = {
        name: f"{name.split('.')[1]}.{name.split('.')[-1]}"
        for name in doc["components"]["schemas"]
        if name.startswith("domain.")
    }
    assert len(set(renames.values())) == len(renames), "two schemas would get one name"
    text = msgspec.json.encode(doc).decode()
    for old, new in renames.items():
        text = text.replace(f'"{REF.format(name=old)}"', f'"{REF.format(name=new)}"')
    out: dict[str, Any] = msgspec.json.decode(text)
    schemas = out["components"]["schemas"]
    for old, new in renames.items():
        assert schemas.get(new, {"$ref": REF.format(name=new)}) == {"$ref": REF.format(name=new)}
        schemas[new] = schemas.pop(old)
    return out


def document() -> dict[str, Any]:
    paths: dict[str, dict[str, Any]] = {}
    for route in ROUTES:
        paths.setdefault(route.path, {})[route.method] = _operation(route)
    return _short_names(
        {
            "openapi": "3.1.0",
            "info": {
                "title": "Omerta",
                "version": "1",
                "description": "Play Famiglia and Gangsta! by web. Create a player (POST /players) "
                "to get a token; send it as `Authorization: Bearer <token>`. Errors are RFC 9457 "
                "problem+json with a stable `code` and `params`, the values its `detail` names "
                "(`case` tells apart the messages of one code). `detail` is English, or Japanese "
                "when the request sends `Accept-Language: ja`. A request's body is JSON "
                "(`Content-Type: application/json`, else 415 `json_required`; the mailed links' "
                "routes also take a form). A write sent without a bearer token (the web "
                "pages' cookie) must come from this site's own pages (`Sec-Fetch-Site` / "
                "`Origin`, else 403 `cross_origin`).",
            },
            "paths": paths,
            "webhooks": {"notice": WEBHOOK_CALL},
            "components": {
                "schemas": _components(),
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
    )
