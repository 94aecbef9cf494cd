"""Each operation of the OpenAPI document lists the refusal codes its code can raise (issue:
codes such as ``not_your_turn`` were listed nowhere), and every ``type`` a problem links to
(``/docs#problem-<code>``) has its entry on the API page."""

from __future__ import annotations

import re
from typing import Any

import pytest
from flask import Flask

from api.http import limits, security
from api.http.problems import API_CODES
from tests.api.helpers import Api
from tests.api.raised import raised_codes
from tests.api.test_refusal_catalogue import rule_refusals

pytestmark = pytest.mark.server

PROBLEM = "application/problem+json"
# What every operation of a kind answers with, raised before or around the view
# (api.http.security, api.http.jsonio's body limit, the error handler of api.http.problems,
# gunicorn's limits and parsing of a request's line and headers: api.serving.problemworker).
EVERY_OPERATION = {"internal", "uri_too_long", "headers_too_large", "bad_request"}
EVERY_WRITE = {"cross_origin"}
EVERY_BODY = {"malformed_json", "invalid_body", "body_too_large", "json_required"}
# Codes the walk over the source cannot see, and why.
UNSEEN = {
    # creation re-raises the rules' RuleViolation for the options with its own code
    ("post", "/games"): {"bad_options"},
}
# Codes the walk sees that the operation cannot answer with, and why.
CANNOT = {
    # a bad cookie is ignored (api.context.cookie_player catches it)
    ("post", "/players"): {"missing_token", "bad_token"},
    # the same, where a bad link's page (api.web._page) asks whether the cookie names a player
    ("post", "/signin/email/{token}"): {"missing_token", "bad_token"},
}


def _listed(op: dict[str, Any]) -> dict[str, set[str]]:
    """Status -> the codes the operation's problem responses list."""
    out: dict[str, set[str]] = {}
    for status, response in op["responses"].items():
        schema = response.get("content", {}).get(PROBLEM, {}).get("schema")
        if schema is not None:
            enums = [p["properties"]["code"]["enum"] for p in schema["allOf"] if "properties" in p]
            out[status] = {code for enum in enums for code in enum}
    return out


def _raisable(app: Flask, method: str, path: str, op: dict[str, Any]) -> set[str]:
    adapter = app.url_map.bind("localhost")
    concrete = re.sub(r"\{(\w+)\}", "1", path)
    endpoint, _ = adapter.match(concrete, method=method.upper())
    codes = raised_codes(app.view_functions[endpoint]) | EVERY_OPERATION
    if {"bearer": []} in op.get("security", []) and {} in op["security"]:
        codes.discard("missing_token")  # no token: a spectator
    if method != "get" and endpoint not in security.ANY_ORIGIN_ENDPOINTS:
        codes |= EVERY_WRITE
    if endpoint in security.FORM_ENDPOINTS:
        codes.add("json_required")  # a form or JSON; another body is refused
    elif "requestBody" in op:
        codes |= EVERY_BODY
    if any(p["in"] == "path" and p["schema"]["type"] == "integer" for p in op["parameters"]):
        codes.add("not_found")  # the router's int converter refuses -1
    if endpoint in {e for e, _ in limits.ENDPOINTS.values()}:
        codes.add("rate_limited")
    if endpoint in limits.STREAM_ENDPOINTS:
        codes |= {"too_many_streams", "streams_full"}  # api.live.capacity wraps the view too
    if endpoint == limits.ENDPOINTS["games"][0]:
        codes.add("too_many_open_games")  # limits._capped wraps the view
    return (codes | UNSEEN.get((method, path), set())) - CANNOT.get((method, path), set())


def _operations(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(m, p, op) for p, ops in document["paths"].items() for m, op in ops.items()]


def _move_codes() -> set[str]:
    """The codes the rules of the games and of the table refuse a move with, as the refusal
    catalogue's own scan of domain/ finds them (rule.<game>.<code>[.case], error.<code>)."""
    codes = set()
    for key in rule_refusals():
        parts = key.split(".")
        if parts[0] == "rule" or key.startswith("error."):
            codes.add(parts[2] if parts[0] == "rule" else parts[1])
    return codes


def test_every_operation_lists_the_codes_its_code_raises(app: Flask, api: Api) -> None:
    document = api.ok("GET", "/openapi.json")
    wrong = {}
    for method, path, op in _operations(document):
        listed = set().union(*_listed(op).values())
        if "422" in _listed(op):
            listed -= _listed(op)["422"]
        raisable = _raisable(app, method, path, op)
        if listed != raisable:
            wrong[f"{method} {path}"] = {
                "not listed": sorted(raisable - listed),
                "never raised": sorted(listed - raisable),
            }
    assert wrong == {}


def test_a_move_lists_every_code_the_rules_refuse_with(api: Api) -> None:
    document = api.ok("GET", "/openapi.json")
    listed = _listed(document["paths"]["/games/{game_id}/commands"]["post"])
    assert {"not_your_turn", "undo_not_allowed", "game_over"} <= listed["422"]
    # The rules' codes the API answers with its own status (bad_options: 400 at creation),
    # and the bots' own (no_bot, nothing_legal: a bot's level or move), are no refused move's.
    assert listed["422"] == _move_codes() - set(API_CODES) - {"no_bot", "nothing_legal"}


def test_every_problem_type_has_its_entry_on_the_api_page(api: Api) -> None:
    document = api.ok("GET", "/openapi.json")
    page = api.call("GET", "/docs").data.decode()
    anchors = set(re.findall(r'id="problem-([\w-]+)"', page))
    listed = set()
    for _method, _path, op in _operations(document):
        listed |= set().union(*_listed(op).values())
    assert listed - anchors == set()
    assert 'href="#problem-not_your_turn"' in page  # the move's operation links its codes
    # and a real refusal's type points at one of them
    ann, bob = api.player("Ann"), api.player("Bob")
    created = api.new_game(ann, game="gangsta", seats=2)
    api.join(bob, created["game_id"], created["invites"][0]["code"])
    state = api.ok("GET", f"/games/{created['game_id']}", ann)
    mover, other = (ann, bob) if state["to_act"] == [0] else (bob, ann)
    move = api.ok("GET", f"/games/{created['game_id']}/legal", mover)["commands"][0]
    refused = api.call(
        "POST", f"/games/{created['game_id']}/commands", other, json={"command": move}
    ).json
    assert refused["type"] == "/docs#problem-not_your_turn"
    assert refused["type"].split("#problem-")[1] in anchors
