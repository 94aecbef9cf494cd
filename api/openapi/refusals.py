"""The refusal codes of the OpenAPI document: which codes each operation answers with, and
the games' rule codes, read from the rules' own source (every ``RuleViolation("code", ...)``
of each game's package in ``domain/`` and of ``domain/table``), so that no rule can refuse a
move with a code the document does not list."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import domain
from api.http.problems import API_CODES
from api.openapi.route import Route, routed_by_type
from api.web import i18n

RULE_STATUS = 422
# The packages whose rules decide a move: each game's (a game's package is named as the game),
# and the table's (bots, draws, undo...).
RULE_PACKAGES = (*domain.GAMES, "table")
WRITES = ("post", "put", "patch", "delete")


@functools.cache
def rule_codes() -> dict[str, str]:
    """Each code the rules refuse a move with (422) -> what it means (the English catalogue's text
    of its first message)."""
    english = i18n.messages()[i18n.DEFAULT]
    found: dict[str, str] = {}
    for package in RULE_PACKAGES:
        for path in sorted((Path(domain.__file__).parent / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Name)
                    and node.func.id == "RuleViolation"
                    and node.args
                    and isinstance(node.args[0], ast.Constant)
                    and isinstance(node.args[0].value, str)
                ):
                    key = f"rule.{package}.{node.args[0].value}"
                    if package == "table":  # the table's texts are the service's
                        key = f"error.{node.args[0].value}"
                    text = english.get(key) or next(
                        (v for k, v in sorted(english.items()) if k.startswith(key + ".")), ""
                    )
                    found.setdefault(node.args[0].value, text)
    # Codes the API answers with its own status: the rules raise them when a game is created
    # (bad_options, bad_seats: 400), or for a command the API has already refused as no
    # command of the game (unknown_command: 400).
    return {code: found[code] for code in sorted(found) if code not in API_CODES}


def codes_of(route: Route) -> dict[str, int]:
    """The codes ``route`` answers with -> their status: its own, the rules' for a move,
    and those every operation of its kind shares (a token, a JSON body, a write)."""
    # The web server's refusals of an oversized or malformed request (before the app sees it),
    # and a failure.
    codes = {*route.codes, "uri_too_long", "headers_too_large", "bad_request", "internal"}
    if route.auth == "required":
        codes |= {"missing_token", "bad_token"}
    elif route.auth == "optional":  # no token: a spectator; a bad one is still refused
        codes.add("bad_token")
    if route.body is not None:
        codes |= {"malformed_json", "invalid_body", "body_too_large", "json_required"}
    if route.form:  # a form, JSON, or nothing: any other body is refused
        codes.add("json_required")
    if route.method in WRITES and not route.any_origin:
        codes.add("cross_origin")
    if routed_by_type(route):
        codes.add("not_found")
    out = {code: API_CODES[code][0] for code in codes}
    if route.rules:
        out |= dict.fromkeys(rule_codes(), RULE_STATUS)
    return out
