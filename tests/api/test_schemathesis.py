"""schemathesis against /openapi.json: generated requests (valid and invalid) against every
operation, as a player with a seat in a running game; no answer is a server error, and the
answers conform to the document. Then deep, huge and oddly typed values for every operation
with a JSON body: never a server error, every refusal a problem with a
code."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import redis
import schemathesis
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_schema_conformance,
    status_code_conformance,
)

from api.app import create_app
from services.games.commands import CommandService
from tests.api.helpers import Api, container_of

pytestmark = pytest.mark.server


@pytest.fixture
def quick_app(service: CommandService, real_redis: redis.Redis) -> Flask:
    return create_app(container_of(service), stream_seconds=0)


@dataclass(frozen=True)
class Seated:
    token: str
    game_id: str


@pytest.fixture
def seated(quick_app: Flask) -> Seated:
    api = Api(quick_app.test_client(use_cookies=False))
    me, other = api.player("Ann"), api.player("Bob")
    created = api.new_game(me, game="famiglia", seats=2)
    api.join(other, created["game_id"], created["invites"][0]["code"])
    return Seated(me.token, created["game_id"])


def operations(app: Flask) -> list[schemathesis.APIOperation]:
    schema = schemathesis.openapi.from_wsgi("/openapi.json", app)
    return [result.ok() for result in schema.get_all_operations()]


# Not "positive data accepted": what the games allow (seats, options, moves) depends on the game
# and its state, beyond what a schema can say; those refusals are 4xx problems like the others.
POSITIVE_CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]
NEGATIVE_CHECKS = [not_a_server_error, negative_data_rejection, content_type_conformance]
# A browser's PushSubscription.toJSON(): a P-256 public point and a 16-byte secret.
PUSH_SUBSCRIPTION = {
    "endpoint": "https://push.example.org/send/abc",
    "keys": {
        "p256dh": "BMIPv_AT0okAendCZrVOuQKSjXAI1c628F5bWqBGA8KvPQX"
        "c_jNxIFLatLz8Q4-Nl6Fqm2JZxgm6yXQcir7Wwro",
        "auth": "rcUcc6PBwj9KChq1WoKWMQ",
    },
}


def exercise(
    operation: schemathesis.APIOperation,
    mode: schemathesis.GenerationMode,
    path_parameters: dict[str, str] | None,
    headers: dict[str, str],
) -> bool:
    """Run generated cases; False when the mode has no case to make (nothing to break)."""
    positive = mode is schemathesis.GenerationMode.POSITIVE
    checks = POSITIVE_CHECKS if positive else NEGATIVE_CHECKS

    @given(case=operation.as_strategy(mode, path_parameters=path_parameters))
    @settings(max_examples=8, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))  # fmt: skip
    def check(case: schemathesis.Case) -> None:
        response = case.call(headers=headers)
        case.validate_response(response, checks=checks)

    try:
        check()
    except Unsatisfiable:
        if positive:
            raise
        return False
    return True


def test_no_server_errors_and_answers_match_the_document(quick_app: Flask, seated: Seated) -> None:
    """Positive cases follow the document (answers validated against it too); negative ones
    break it (wrong types, missing fields). schemathesis' own pytest plugin does not run under
    pytest 9, so its strategies are driven here."""
    headers = {"Authorization": f"Bearer {seated.token}"}
    runs = []
    for operation in operations(quick_app):
        in_game = {"game_id": seated.game_id} if "{game_id}" in operation.path else None
        for mode in schemathesis.GenerationMode:
            for path_parameters in (in_game, None) if in_game else (None,):
                runs.append(exercise(operation, mode, path_parameters, headers))
    assert len(runs) > 40 and sum(runs) > 30


# --- hostile values for every JSON-accepting operation -----------------------------------------
# schemathesis draws values that fit the document or break it by type; these go further: JSON
# nested far beyond any real body, strings and numbers far beyond any real value, tokens that
# look like numbers but are no JSON (NaN, Infinity), unicode that trips codecs, nulls in every
# field, and each field given every wrong type. The fields and the inner keys (commands'
# and options' fields, command types) are read from the document, so a new operation or field is
# covered without editing this test.


class Raw(bytes):
    """JSON text placed into a body as it is (not valid JSON, or too deep to build as a value)."""


def _walk(node: Any) -> Iterator[Any]:
    todo = [node]
    while todo:
        item = todo.pop()
        yield item
        if isinstance(item, dict):
            todo.extend(item.values())
        elif isinstance(item, list):
            todo.extend(item)


def json_operations(document: dict[str, Any]) -> list[tuple[str, str, list[str]]]:
    """(method, path, the body's top-level fields) of every operation with a JSON body."""
    schemas = document["components"]["schemas"]
    found = []
    for path, methods in document["paths"].items():
        for method, op in methods.items():
            content = op.get("requestBody", {}).get("content", {})
            if "application/json" not in content:
                continue
            schema = content["application/json"]["schema"]
            if "$ref" in schema:
                schema = schemas[schema["$ref"].rsplit("/", 1)[1]]
            if schema.get("properties"):  # not a mailed link's route: it reads no JSON field
                found.append((method.upper(), path, sorted(schema["properties"])))
    return found


def inner_words(*schemas: Any) -> tuple[list[str], list[str]]:
    """Every property name and every constant string the schemas name."""
    names: set[str] = set()
    constants: set[str] = set()
    for item in _walk(list(schemas)):
        if isinstance(item, dict):
            if isinstance(item.get("properties"), dict):
                names.update(item["properties"])
            if isinstance(item.get("const"), str):
                constants.add(item["const"])
            constants.update(v for v in item.get("enum", []) if isinstance(v, str))
    return sorted(names), sorted(constants)


Shape = tuple[dict[str, Any], list[str]]


def object_shapes(*schemas: Any) -> list[Shape]:
    """Each object schema's fixed fields (a one-value enum: a command's type) and free ones, so
    that hostile values reach the fields of real commands and options, past the type check."""
    shapes = []
    for item in _walk(list(schemas)):
        if isinstance(item, dict) and isinstance(item.get("properties"), dict):
            fixed, free = {}, []
            for name, field in item["properties"].items():
                one = field.get("enum") if isinstance(field, dict) else None
                if isinstance(one, list) and len(one) == 1:
                    fixed[name] = one[0]
                else:
                    free.append(name)
            shapes.append((fixed, free))
    return shapes


HOSTILE_DEPTH = (40, 200, 1000, 5000)
ODD_TOKENS = [b"NaN", b"-Infinity", b"Infinity", b"1e999", b"-1e999", b"-0", b"1E400",
              b"0.0000000000000000000000000001", b"123456789012345678901234567890.5",
              b"01", b"+1", b".5", b"0x10", b"True", b"None", b"undefined"]  # fmt: skip
ODD_TEXT = ["NaN", "Infinity", "-0", "1e999", "", " ", "\u0000", "\ud800", "\udfff", "\ufeff",
            "\u202etxet", "💣" * 50, "\uff46\uff55\uff4c\uff4c", "a\u0301", "\n\r\t",
            "<script>", "'; --", "%00", "../../etc/passwd"]  # fmt: skip


def encode(value: Any) -> bytes:
    """JSON text of ``value`` with ``Raw`` pieces as they are (a surrogate stays escaped)."""
    if isinstance(value, Raw):
        return bytes(value)
    if isinstance(value, dict):
        return b"{" + b",".join(encode(k) + b":" + encode(v) for k, v in value.items()) + b"}"
    if isinstance(value, list):
        return b"[" + b",".join(encode(v) for v in value) + b"]"
    return json.dumps(value).encode()  # ensure_ascii: lone surrogates as \\ud800 escapes


def deep_value(levels: int, kind: str, leaf: bytes) -> Raw:
    opener, closer = (b"[", b"]") if kind == "array" else (b'{"a":', b"}")
    return Raw(opener * levels + leaf + closer * levels)


def hostile_values(
    words: list[str], constants: list[str], shapes: list[Shape]
) -> st.SearchStrategy[Any]:
    scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-(2**64), max_value=2**64),
        st.integers(min_value=2**63 - 2, max_value=2**63 + 2),
        st.sampled_from([10**30, -(10**30), 2**200, -(2**1000), 10**4000]).map(
            lambda n: Raw(str(n).encode())
        ),
        st.floats(allow_nan=False, allow_infinity=False),
        st.sampled_from(ODD_TOKENS).map(Raw),
        st.text(max_size=30),
        st.sampled_from(ODD_TEXT),
        st.sampled_from(constants),
        st.integers(min_value=1_000, max_value=70_000).map(lambda n: "x" * n),
    )
    deep = st.builds(
        deep_value,
        st.sampled_from(HOSTILE_DEPTH),
        st.sampled_from(["array", "object"]),
        st.sampled_from([b"", b"1", b"null", b'"pass"']),
    )
    anything = st.recursive(
        scalars | deep,
        lambda inner: (
            st.lists(inner, max_size=4)
            | st.dictionaries(st.sampled_from(words) | st.text(max_size=8), inner, max_size=4)
        ),
        max_leaves=10,
    )

    @st.composite
    def shaped(draw: st.DrawFn) -> dict[str, Any]:
        fixed, free = draw(st.sampled_from(shapes))
        filled = draw(st.dictionaries(st.sampled_from(free), anything)) if free else {}
        return {**fixed, **filled}

    return anything | shaped() | shaped()  # shaped twice as often: they reach the rules


WRONG_TYPES: list[Any] = [None, True, 0, -1, 1.5, "", "x", [], [None], {}, {"": None}]

# One of each kind of hostile value, as JSON text: each goes into every field in turn.
EACH_HOSTILE: list[bytes] = [
    *(encode(v) for v in WRONG_TYPES),
    *(bytes(deep_value(n, kind, b"1")) for n in (33, 1000) for kind in ("array", "object")),
    *(str(n).encode() for n in (2**63, -(2**63) - 1, 2**64, 10**30, -(10**400))),
    b"1e308", b"1e999", b"-0.0", b"1.0000000000000002", *ODD_TOKENS[:4],
    *(encode(t) for t in ["NaN", "Infinity", "\ud800", "\u0000", "\ud83d\udca3" * 20]),
    encode("x" * 10_000), encode("x" * 70_000),
]  # fmt: skip


@st.composite
def hostile_body(draw: st.DrawFn, fields: list[str], values: st.SearchStrategy[Any]) -> bytes:
    """A body of the operation's fields: hostile values, or every field null, or each field of
    one wrong type, sometimes with an unknown field or a body that is no object at all."""
    shape = draw(st.sampled_from(["values", "values", "values", "nulls", "wrong", "not object"]))
    if shape == "not object":
        return encode(draw(values))
    if shape == "nulls":
        return encode(dict.fromkeys(fields))
    if shape == "wrong":
        wrong = draw(st.sampled_from(WRONG_TYPES))
        return encode(dict.fromkeys(fields, wrong))
    chosen = draw(st.dictionaries(st.sampled_from(fields), values, max_size=len(fields)))
    if draw(st.booleans()) and fields:
        chosen[draw(st.sampled_from(fields))] = draw(values)
    return encode(chosen)


def test_hostile_values_in_every_json_operation(quick_app: Flask) -> None:
    """Never a server error; every refusal is problem+json with a code."""
    client = quick_app.test_client(use_cookies=False)
    document = client.get("/openapi.json").json
    operations = json_operations(document)
    assert {path for _, path, _ in operations} >= {
        "/players", "/games", "/games/{game_id}/join", "/games/{game_id}/commands"
    }  # fmt: skip
    # The document's schemas, and the games' own (GET /games: each game's options and commands,
    # and the presets, which options take as "preset" beside the schema's fields).
    kinds = client.get("/games").json
    words, constants = inner_words(document["components"], kinds)
    words.append("preset")
    constants += sorted({name for kind in kinds for name in kind["presets"]})
    assert {"type", "card", "gangster"} <= set(words) and {"hire", "published"} <= set(constants)
    values = hostile_values(words, constants, object_shapes(kinds))

    # A game of each kind, both seats taken, sent to as either seat: whoever is to act, some
    # commands get past the turn check to the game's own fields.
    api = Api(client)
    ann, bob = api.player("Ann"), api.player("Bob")
    games = []
    for kind in kinds:
        made = api.new_game(ann, game=kind["name"], seats=2)
        api.join(bob, made["game_id"], made["invites"][0]["code"])
        games.append(made["game_id"])
    callers = [{**who.auth, "Content-Type": "application/json"} for who in (ann, bob)]
    for method, path, fields in operations:
        for game_id in games if "{game_id}" in path else [""]:
            target = path.replace("{game_id}", game_id)
            fuzz(client, method, target, callers, hostile_body(fields, values))


def fuzz(
    client: FlaskClient, method: str, path: str, callers: list[dict[str, str]],
    bodies: st.SearchStrategy[bytes],
) -> None:  # fmt: skip
    @given(raw=bodies, headers=st.sampled_from(callers))
    @settings(max_examples=150, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))  # fmt: skip
    def check(raw: bytes, headers: dict[str, str]) -> None:
        response = client.open(path, method=method, data=raw, headers=headers)
        assert response.status_code < 500, (path, raw[:300], response.data[:300])
        if response.status_code >= 400:
            assert response.mimetype == "application/problem+json", (path, raw[:300])
            code = response.json["code"]
            assert isinstance(code, str) and code, (path, raw[:300])

    check()


def _fields(schema: dict[str, Any]) -> list[str]:
    """The properties of a game's options schema (``{"$ref": ..., "$defs": ...}``)."""
    return sorted(next(iter(schema["$defs"].values()))["properties"])


def placed(base: dict[str, Any], path: list[str], value: bytes) -> bytes:
    """``base`` as JSON text with ``value`` at ``path`` (keys of nested objects)."""
    marker = "\u0001hostile\u0001"
    body = json.loads(json.dumps(base))
    target = body
    for key in path[:-1]:
        target = target.setdefault(key, {})
    target[path[-1]] = marker
    return json.dumps(body).encode().replace(json.dumps(marker).encode(), value)


def test_each_hostile_value_in_each_field_of_each_game(quick_app: Flask) -> None:
    """Every top-level field of every JSON operation, every field of each game's options and of
    each of its commands (sent by the seat to act, in an otherwise good body), gets each kind of
    hostile value in turn: never a server error, every refusal a problem with a code."""
    client = quick_app.test_client(use_cookies=False)
    api = Api(client)
    operations = json_operations(client.get("/openapi.json").json)
    ann, bob = api.player("Ann"), api.player("Bob")
    cases: list[tuple[str, str, dict[str, str], bytes]] = []
    for kind in client.get("/games").json:
        made = api.new_game(ann, game=kind["name"], seats=2)
        game_id = made["game_id"]
        api.join(bob, game_id, made["invites"][0]["code"])
        to_act = api.ok("GET", f"/games/{game_id}")["to_act"][0]
        mover = ann if api.ok("GET", f"/games/{game_id}", ann)["your_seat"] == to_act else bob
        move = api.ok("GET", f"/games/{game_id}/legal", mover)["commands"][0]
        good = {
            "/players": {"name": "Ann"},
            "/games": {"game": kind["name"], "seats": 2},
            "/games/{game_id}/join": {},
            "/games/{game_id}/commands": {"command": move},
            "/games/{game_id}/seen": {"version": 1},
            "/games/{game_id}/chat": {"text": "good luck"},
            "/signin": {},
            "/me/devices/signout": {"devices": "others"},
            "/me/notifications": {"webhook": {"your_turn": True}},
            "/me/webhooks": {"url": "https://hooks.example.org/omerta"},
            "/me/email": {"address": "ann@example.org"},
            "/me/email/subscription": {"subscribed": True},
            "/signin/email": {"address": "ann@example.org"},
            "/me/push": PUSH_SUBSCRIPTION,
            "/me/passkeys": {"credential": {}},
            "/me/passkeys/{passkey_id}": {"label": "Laptop"},
            "/signin/passkey": {"credential": {}},
            "/me/vacation": {"days": 3},
        }
        good_for = {("DELETE", "/me/push"): {"endpoint": PUSH_SUBSCRIPTION["endpoint"]}}
        paths: list[tuple[str, str, list[str], dict[str, Any]]] = [
            (method, path, [field], good_for.get((method, path), good[path]))
            for method, path, fields in operations
            for field in fields
        ]
        paths += [
            ("POST", "/games", ["options", o], good["/games"]) for o in _fields(kind["options"])
        ]
        paths.append(("POST", "/games", ["options", "preset"], good["/games"]))
        banked = {**good["/games"], "clock": {"type": "bank", "initial": 60}}
        paths += [("POST", "/games", ["clock", f], banked) for f in ("initial", "increment", "cap")]
        paths += [("POST", "/games", ["on_timeout", f], banked) for f in ("policy", "level")]
        for fixed, free in object_shapes(kind["commands"]):
            command = {"command": fixed}
            paths += [("POST", "/games/{game_id}/commands", ["command", f], command) for f in free]
        for method, path, where, base in paths:
            target = path.replace("{game_id}", game_id)
            who = mover if "{game_id}" in path else ann
            headers = {**who.auth, "Content-Type": "application/json"}
            cases += [(method, target, headers, placed(base, where, v)) for v in EACH_HOSTILE]
    assert len(cases) > 1000
    for method, target, headers, raw in cases:
        response = client.open(target, method=method, data=raw, headers=headers)
        assert response.status_code < 500, (target, raw[:300], response.data[:300])
        if response.status_code >= 400:
            assert response.mimetype == "application/problem+json", (target, raw[:300])
            assert response.json["code"], (target, raw[:300])
