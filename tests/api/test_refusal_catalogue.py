"""Refusals in the player's language: every code a refusal can carry (the rules' codes of both
games, read from the source; the service's and the API's) has a text in both languages of the
pages' catalogue, naming only params the refusal sends; problem+json carries ``params``, and
``detail`` is Japanese exactly when the request asks for it (``Accept-Language: ja``)."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest

from api.http.problems import API_CODES
from api.web import i18n
from tests.api.helpers import Api

ROOT = Path(__file__).resolve().parents[2]
GAME_PACKAGES = ("famiglia", "gangsta")


def _name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    return node.attr if isinstance(node, ast.Attribute) else ""


def _constant(node: ast.expr | None) -> Any:
    return node.value if isinstance(node, ast.Constant) else None


def _calls(folder: str) -> list[tuple[Path, ast.Call]]:
    out = []
    for path in sorted((ROOT / folder).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                out.append((path, node))
    return out


def rule_refusals() -> dict[str, set[str]]:
    """Catalogue key -> the params the raise passes, for every ``RuleViolation(...)`` of
    domain/: the games' codes under ``rule.<game>.``, the bots' and core's under ``error.``."""
    found: dict[str, set[str]] = {}
    for path, call in _calls("domain"):
        if _name(call.func) != "RuleViolation" or not call.args:
            continue
        code = _constant(call.args[0])
        assert isinstance(code, str), f"{path}:{call.lineno}: the code is not a literal"
        package = path.relative_to(ROOT / "domain").parts[0]
        base = f"rule.{package}.{code}" if package in GAME_PACKAGES else f"error.{code}"
        keywords = {k.arg: k.value for k in call.keywords if k.arg}
        case = _constant(keywords.pop("case", None))
        found.setdefault(f"{base}.{case}" if case else base, set()).update(keywords)
    return found


def service_refusals() -> set[str]:
    """Catalogue keys of every service and API error: the API's codes, the error classes'
    codes, and each raise's ``code=`` / ApiError code with its ``case``."""
    keys = {f"error.{code}" for code in API_CODES}
    for folder in ("services", "api"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.ClassDef):
                    for item in node.body:
                        if (
                            isinstance(item, ast.Assign)
                            and [_name(t) for t in item.targets] == ["code"]
                            and isinstance(_constant(item.value), str)
                        ):
                            keys.add(f"error.{_constant(item.value)}")
        for _path, call in _calls(folder):
            keywords = {k.arg: k.value for k in call.keywords if k.arg}
            code = _constant(keywords.get("code"))
            if _name(call.func) == "ApiError" and len(call.args) >= 2:
                code = _constant(call.args[1])
            if not isinstance(code, str):
                code = _error_class_code(_name(call.func))
            if code is None:
                continue
            params = keywords.get("params")
            case = _constant(keywords.get("case"))
            if isinstance(params, ast.Dict):
                pairs = zip(params.keys, params.values, strict=True)
                case = next((_constant(v) for k, v in pairs if _constant(k) == "case"), case)
            keys.add(f"error.{code}.{case}" if isinstance(case, str) else f"error.{code}")
    return keys


def _error_class_code(name: str) -> str | None:
    from services import errors
    from services.games import seats
    from services.identity import players

    kind = getattr(errors, name, None) or getattr(players, name, None) or getattr(seats, name, None)
    if isinstance(kind, type) and issubclass(kind, errors.ServiceError) and name != "ApiError":
        return kind.code
    return None


def test_the_scan_finds_the_codes() -> None:
    rules = rule_refusals()
    assert "rule.famiglia.not_your_turn" in rules and "rule.gangsta.cannot_afford" in rules
    assert rules["rule.gangsta.cannot_afford"] == {"cost", "money"}
    assert "rule.famiglia.bad_pair.free" in rules
    service = service_refusals()
    assert {"error.conflict", "error.bad_expected_version", "error.bad_name.length"} <= service


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_every_refusal_has_a_text_in_every_language(lang: str) -> None:
    table = i18n.messages()[lang]
    missing = sorted(k for k in [*rule_refusals(), *service_refusals()] if k not in table)
    assert missing == []


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_rule_texts_name_only_the_params_sent(lang: str) -> None:
    table = i18n.messages()[lang]
    wrong = {}
    for key, params in rule_refusals().items():
        named = set(re.findall(r"\{(\w+)\}", table.get(key, "")))
        if named - params:
            wrong[key] = sorted(named - params)
    assert wrong == {}


# --- over HTTP -------------------------------------------------------------------------------


def _refused_turn(api: Api, lang: str | None) -> dict[str, Any]:
    ann, bob = api.player("Ann"), api.player("Bob")
    created = api.new_game(ann, game="gangsta", seats=2)
    game_id = created["game_id"]
    api.join(bob, game_id, created["invites"][0]["code"])
    state = api.ok("GET", f"/games/{game_id}", ann)
    mover, other = (ann, bob) if state["to_act"] == [0] else (bob, ann)
    move = api.ok("GET", f"/games/{game_id}/legal", mover)["commands"][0]
    headers = {"Accept-Language": lang} if lang else {}
    response = api.call(
        "POST", f"/games/{game_id}/commands", other, json={"command": move}, headers=headers
    )
    assert response.status_code == 422
    return response.json


@pytest.mark.server
def test_detail_is_english_unless_japanese_is_asked_for(api: Api) -> None:
    plain = _refused_turn(api, None)
    assert plain["code"] == "not_your_turn" and plain["params"] == {}
    assert plain["detail"] == "It is not your turn to decide."
    assert _refused_turn(api, "en-GB,en;q=0.9")["detail"] == "It is not your turn to decide."
    japanese = _refused_turn(api, "ja")
    assert japanese["code"] == "not_your_turn"
    assert japanese["detail"] == i18n.messages()["ja"]["rule.gangsta.not_your_turn"]


@pytest.mark.server
def test_params_carry_the_values_and_fill_the_japanese_detail(api: Api) -> None:
    ann = api.player("Ann")
    response = api.call(
        "POST",
        "/games",
        ann,
        json={"game": "gangsta", "seats": 7},
        headers={"Accept-Language": "ja"},
    )
    problem = response.json
    assert (response.status_code, problem["code"]) == (400, "bad_seats")
    assert problem["params"] == {"seats": "7", "min": 2, "max": 4}
    assert problem["detail"] == "ギャングスタ!は 2〜4 人用です。"


@pytest.mark.server
def test_an_api_error_in_japanese(api: Api) -> None:
    response = api.call("GET", "/games/nope", headers={"Accept-Language": "ja-JP,ja;q=0.9"})
    problem = response.json
    assert (response.status_code, problem["code"]) == (404, "unknown_game")
    assert problem["params"] == {"game_id": "nope"}
    assert problem["detail"] == i18n.messages()["ja"]["error.unknown_game"].replace(
        "{game_id}", "nope"
    )
