"""Cross-site requests cannot act as the browser's player, and every
response carries the security headers (finding 6).

A form on another site (or on the same host at another port) can post ``text/plain`` bodies
with the visitor's cookie: state-changing endpoints take JSON only, cookie-authenticated writes
must come from the service's own origin, and an existing identity is replaced only on request.
"""

from __future__ import annotations

import pytest
from flask import Flask

from api.app import create_app
from services.games.commands import CommandService
from tests.api.helpers import Api, Who, container_of

pytestmark = pytest.mark.server

FORM = {"Content-Type": "text/plain"}
EVIL = "http://127.0.0.1:9999"


def cookie(who: Who) -> dict[str, str]:
    return {"Cookie": f"omerta_token={who.token}"}


def famiglia(api: Api) -> tuple[Who, Who, str]:
    a, b = api.player("Ada"), api.player("Bo")
    game = api.new_game(a, game="famiglia", seats=2)
    api.join(b, game["game_id"], game["invites"][0]["code"])
    return a, b, game["game_id"]


@pytest.mark.parametrize("kind", ["text/plain", "application/x-www-form-urlencoded", None])
def test_a_form_cannot_create_a_player(api: Api, kind: str | None) -> None:
    headers = {"Content-Type": kind} if kind else {}
    # The client itself: Api.call would type untyped bytes as JSON.
    response = api.client.post("/players", data=b'{"name": "Mallory"}', headers=headers)
    assert response.status_code == 415, response.json
    assert response.json["code"] == "json_required"
    assert response.mimetype == "application/problem+json"
    assert "Set-Cookie" not in response.headers


def test_a_form_body_cannot_make_a_move(api: Api) -> None:
    a, b, game_id = famiglia(api)
    seat_to_act = api.ok("GET", f"/games/{game_id}", a)["to_act"][0]
    mover = a if seat_to_act == 0 else b
    before = api.ok("GET", f"/games/{game_id}", a)["version"]
    # A text/plain form's body "name=value": duplicate keys make it a valid JSON command.
    body = b'{"command": {"type": "pass"}, "x": "=", "command": {"type": "pass"}}'
    response = api.call(
        "POST", f"/games/{game_id}/commands", data=body, headers={**FORM, **cookie(mover)}
    )
    assert response.status_code == 415
    assert api.ok("GET", f"/games/{game_id}", a)["version"] == before


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": EVIL},
        {"Origin": "null"},
        {"Sec-Fetch-Site": "same-site"},
        {"Sec-Fetch-Site": "cross-site", "Origin": EVIL},
    ],
)
def test_cookie_writes_from_another_origin_are_refused(api: Api, headers: dict[str, str]) -> None:
    a, _b, _game_id = famiglia(api)
    sent = {**cookie(a), **headers}
    response = api.call("POST", "/games", json={"game": "famiglia", "seats": 2}, headers=sent)
    assert response.status_code == 403, response.json
    assert response.json["code"] == "cross_origin"
    # Without a cookie too: a foreign page cannot plant a new identity.
    response = api.call("POST", "/players", json={"name": "Mallory"}, headers=headers)
    assert response.status_code == 403
    assert "Set-Cookie" not in response.headers


def test_own_origin_and_bearer_clients_may_write(api: Api) -> None:
    a = api.player("Ada")
    own = {**cookie(a), "Origin": "http://localhost", "Sec-Fetch-Site": "same-origin"}
    made = api.call("POST", "/games", json={"game": "famiglia", "seats": 2}, headers=own)
    assert made.status_code == 201, made.json
    # A bot with a bearer token is no browser: its Origin (if any) does not matter.
    bot = api.call("POST", "/games", a, json={"game": "famiglia", "seats": 2},
                   headers={"Origin": EVIL})  # fmt: skip
    assert bot.status_code == 201, bot.json


def test_an_existing_identity_is_replaced_only_on_request(api: Api) -> None:
    a = api.player("Ada")
    again = api.call("POST", "/players", json={"name": "Eve"}, headers=cookie(a))
    assert again.status_code == 409, again.json
    assert again.json["code"] == "player_exists"
    assert "Set-Cookie" not in again.headers
    assert api.ok("GET", "/me", a)["name"] == "Ada"
    replaced = api.call(
        "POST", "/players", json={"name": "Eve", "replace": True}, headers=cookie(a)
    )
    assert replaced.status_code == 201
    assert replaced.json["token"] in replaced.headers["Set-Cookie"]
    # A stale cookie names nobody: nothing to lose, a new player is made.
    stale = api.call("POST", "/players", json={"name": "Cy"}, headers={"Cookie": "omerta_token=x"})
    assert stale.status_code == 201


@pytest.fixture
def site_api(service: CommandService, real_redis) -> Api:
    from api import web

    app: Flask = create_app(container_of(service), stream_seconds=0.0)
    web.register(app)
    return Api(app.test_client(use_cookies=False))


def test_every_response_has_the_security_headers(site_api: Api) -> None:
    a, _b, game_id = famiglia(site_api)
    for path in ("/", f"/play/{game_id}", "/docs", "/openapi.json", "/games", "/nowhere",
                 f"/games/{game_id}/view", "/web/static/common.js"):  # fmt: skip
        headers = site_api.call("GET", path, a).headers
        csp = headers.get("Content-Security-Policy", "")
        assert "frame-ancestors 'none'" in csp, path
        assert "script-src 'self'" in csp or "default-src 'self'" in csp, (path, csp)
        assert "unsafe-inline" not in csp.split("script-src")[-1].split(";")[0], path
        assert headers.get("X-Content-Type-Options") == "nosniff", path
        assert headers.get("X-Frame-Options") == "DENY", path
        assert headers.get("Referrer-Policy"), path


def test_per_player_answers_are_not_stored(site_api: Api) -> None:
    a, _b, game_id = famiglia(site_api)
    made = site_api.call("POST", "/players", json={"name": "Cy"})
    assert made.headers.get("Cache-Control") == "no-store"
    for path in (f"/games/{game_id}/view", f"/games/{game_id}/legal", "/me", "/me/games",
                 f"/games/{game_id}", f"/games/{game_id}/history", "/lobby", "/"):  # fmt: skip
        headers = site_api.call("GET", path, headers=cookie(a)).headers
        assert headers.get("Cache-Control") == "no-store", path
        assert "Cookie" in headers.get("Vary", ""), path


def test_the_cookie_is_secure_behind_https(service: CommandService, real_redis) -> None:
    plain = Api(create_app(container_of(service)).test_client(use_cookies=False))
    cookie_line = plain.call("POST", "/players", json={"name": "Ada"}).headers["Set-Cookie"]
    assert "Secure" not in cookie_line
    secure_app = create_app(container_of(service, secure_cookies=True))
    secure = Api(secure_app.test_client(use_cookies=False))
    cookie_line = secure.call("POST", "/players", json={"name": "Bo"}).headers["Set-Cookie"]
    assert "Secure" in cookie_line
