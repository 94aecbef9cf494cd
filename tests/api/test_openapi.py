"""The OpenAPI document matches the app's routes, and the API page shows it all."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from flask import Flask

from api.http import security
from api.http.problems import API_CODES
from api.routes import ratings
from domain.table import messages as table_messages
from services.notify import notifications, webhooks
from tests.api.helpers import Api

pytestmark = pytest.mark.server


def test_every_route_is_documented_and_every_documented_route_exists(app: Flask, api: Api) -> None:
    document = api.ok("GET", "/openapi.json")
    assert document["openapi"].startswith("3.1")
    documented = {
        (method.upper(), path) for path, ops in document["paths"].items() for method in ops
    }
    served = {
        (method, re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule.rule))
        for rule in app.url_map.iter_rules()
        if rule.endpoint != "static"
        for method in rule.methods or ()
        if method not in ("HEAD", "OPTIONS")
    }
    assert documented == served


def test_request_bodies_are_the_validating_types(api: Api) -> None:
    document = api.ok("GET", "/openapi.json")
    schemas = document["components"]["schemas"]
    new_game = schemas["NewGame"]
    assert new_game["required"] == ["game", "seats"]
    assert new_game["additionalProperties"] is False  # forbid_unknown_fields
    command = schemas["CommandIn"]["properties"]["command"]
    assert command == {
        "anyOf": [
            {"$ref": "#/components/schemas/famiglia.Command"},
            {"$ref": "#/components/schemas/gangsta.Command"},
        ]
    }
    tags = schemas["famiglia.Command"]["discriminator"]["mapping"]
    assert {"recruit", "pass", "refresh"} <= set(tags)


def test_the_api_page_lists_operations_and_codes(api: Api) -> None:
    page = api.call("GET", "/docs")
    assert page.mimetype == "text/html"
    html = page.data.decode()
    assert "<script" not in html and "http" not in html.split("</style>")[0]
    assert "/games/{game_id}/commands" in html
    for code in API_CODES:
        assert f'id="problem-{code}"' in html


def test_game_kinds_carry_their_schemas(api: Api) -> None:
    kinds = {k["name"]: k for k in api.ok("GET", "/games")}
    assert set(kinds) == {"famiglia", "gangsta"}
    assert kinds["famiglia"]["min_seats"] == kinds["famiglia"]["max_seats"] == 2
    assert (kinds["gangsta"]["min_seats"], kinds["gangsta"]["max_seats"]) == (2, 4)
    famiglia_options = kinds["famiglia"]["options"]
    options = famiglia_options["$defs"][famiglia_options["$ref"].rsplit("/", 1)[-1]]
    assert "double_pass_ends" in options["properties"]


def test_game_kinds_carry_their_presets_and_what_is_not_available(api: Api) -> None:
    kinds = {k["name"]: k for k in api.ok("GET", "/games")}
    gangsta = kinds["gangsta"]["presets"]
    assert gangsta["published"]["domination_snitches"] == [3, 3, 3, 4, 4]
    assert gangsta["description"]["domination_snitches"] == [2, 3, 3, 4, 4]
    assert kinds["famiglia"]["presets"]["description"]["double_pass_ends"] is True
    # The rules refuse to switch these on (not implemented): a page must not offer them.
    assert "action1_strict_order" in kinds["famiglia"]["unavailable"]
    assert "double_pass_ends" not in kinds["famiglia"]["unavailable"]


def test_legal_says_it_lists_no_table_command(api: Api) -> None:
    """GET .../legal lists the game's own moves, never the table's (concede, offer_draw, ...):
    the document says so and names them, and where a client learns which of them apply."""
    document = api.ok("GET", "/openapi.json")
    op = document["paths"]["/games/{game_id}/legal"]["get"]
    about = op["summary"] + " " + op["description"]
    tags = [kind.__struct_config__.tag for kind in table_messages.COMMANDS]
    assert "every command" not in op["summary"].lower()
    for tag in tags:
        assert f"`{tag}`" in about
    assert "can_offer_draw" in about and "can_undo" in about
    assert "table" in document["components"]["schemas"]["LegalOut"]["description"]
    ann, bob = api.player("Ann"), api.player("Bob")
    created = api.new_game(ann, game="famiglia", seats=2)
    api.join(bob, created["game_id"], created["invites"][0]["code"])
    for player in (ann, bob):
        moves = api.ok("GET", f"/games/{created['game_id']}/legal", player)["commands"]
        assert not {m["type"] for m in moves} & set(tags)


def test_the_webhook_call_is_documented_as_sent(api: Api) -> None:
    document = api.ok("GET", "/openapi.json")
    call = document["webhooks"]["notice"]["post"]
    headers = {p["name"]: p for p in call["parameters"] if p["in"] == "header"}
    assert set(headers) == {webhooks.TIMESTAMP, webhooks.SIGNATURE, webhooks.DELIVERY}
    stamp = headers[webhooks.TIMESTAMP]
    assert stamp["schema"]["type"] == "integer" and "seconds since" in stamp["description"]
    ref = call["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    body = document["components"]["schemas"][ref.rsplit("/", 1)[-1]]
    assert sorted(body["properties"]["event"]["enum"]) == sorted(notifications.EVENTS)
    notice = notifications.Notice("p1", "your_turn", "g1", "famiglia", 7, 1)
    sent = json.loads(webhooks.payload(notice, "d1"))
    assert set(sent) == set(body["properties"]) == set(body["required"])
    page = api.call("GET", "/docs").data.decode()
    assert 'id="webhook_notice"' in page and webhooks.TIMESTAMP in page


def test_the_clocks_bounds_are_in_the_document(api: Api) -> None:
    schemas = api.ok("GET", "/openapi.json")["components"]["schemas"]
    per_move, bank = schemas["PerMoveIn"]["properties"], schemas["BankIn"]["properties"]
    day = 86_400
    assert (per_move["seconds"]["minimum"], per_move["seconds"]["maximum"]) == (60, 30 * day)
    assert (bank["initial"]["minimum"], bank["initial"]["maximum"]) == (60, 60 * day)
    assert (bank["increment"]["minimum"], bank["increment"]["maximum"]) == (0, 7 * day)


def test_limit_bounds_are_the_ones_refused(api: Api) -> None:
    document = api.ok("GET", "/openapi.json")
    for path in ("/leaderboard/{game}", "/players/{player_id}"):
        params = {p["name"]: p for p in document["paths"][path]["get"]["parameters"]}
        limit = params["limit"]["schema"]
        assert (limit["minimum"], limit["maximum"]) == (1, ratings.MAX_LIMIT)
    assert api.call("GET", "/leaderboard/famiglia?limit=1").status_code == 200
    assert api.call("GET", "/leaderboard/famiglia?limit=0").json["code"] == "bad_parameter"
    too_many = f"/leaderboard/famiglia?limit={ratings.MAX_LIMIT + 1}"
    assert api.call("GET", too_many).json["code"] == "bad_parameter"


def _endpoint_paths(app: Flask, endpoints: frozenset[str]) -> set[str]:
    return {
        re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule.rule)
        for rule in app.url_map.iter_rules()
        if rule.endpoint in endpoints
    }


def test_every_answer_with_a_body_has_its_schema(api: Api) -> None:
    paths = api.ok("GET", "/openapi.json")["paths"]
    for path, status in (
        ("/signin/email", "202"),
        ("/email/verify/{token}", "200"),
        ("/mail/unsubscribe/{player_id}/{signature}", "200"),
    ):
        content = paths[path]["post"]["responses"][status]["content"]
        assert "$ref" in content["application/json"]["schema"], path


def test_form_routes_list_their_303_and_only_they_take_a_form(app: Flask, api: Api) -> None:
    paths = api.ok("GET", "/openapi.json")["paths"]
    forms = _endpoint_paths(app, security.FORM_ENDPOINTS)
    any_origin = _endpoint_paths(app, security.ANY_ORIGIN_ENDPOINTS)
    assert forms
    for path, ops in paths.items():
        for method, op in ops.items():
            content = op.get("requestBody", {}).get("content", {})
            form = path in forms and method == "post"
            assert ("303" in op["responses"]) == form, path
            assert (security.FORM in content) == form, path
            assert ("415" in op["responses"]) == bool(content), path  # a body of another type
            if method != "get":
                assert ("403" in op["responses"]) == (path not in any_origin), path
    assert "form" not in paths["/email/verify/{token}"]["post"].get("description", "")


def test_text_fields_are_typed(api: Api) -> None:
    schemas = api.ok("GET", "/openapi.json")["components"]["schemas"]
    text = schemas["ChatIn"]["properties"]["text"]
    assert (text["type"], text["minLength"]) == ("string", 1)
    for name in ("NewEmail", "SignInByMail"):
        address = schemas[name]["properties"]["address"]
        assert (address["type"], address["format"]) == ("string", "email")


SOURCE_NAMES = re.compile(r"\w\.py\b|\bdocs/\w|\b(?:api|services|domain|workers)\.\w")


def test_the_prose_names_no_source_file(api: Api) -> None:
    """A client reads the document, not the server's source."""
    document = api.ok("GET", "/openapi.json")
    found = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("description", "summary") and isinstance(value, str):
                    found.extend(SOURCE_NAMES.findall(value) and [value[:80]])
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(document)
    assert found == []


def test_no_schema_is_named_after_a_module(api: Api) -> None:
    document = api.ok("GET", "/openapi.json")
    named = [k for k in document["components"]["schemas"] if SOURCE_NAMES.search(k)]
    assert named == []
    gangsta_events = document["components"]["schemas"]["gangsta.Event"]
    assert "#/components/schemas/gangsta.GameStarted" in json.dumps(gangsta_events)
