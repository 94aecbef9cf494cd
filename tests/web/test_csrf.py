"""Another website cannot take over or use the visitor's player, and the
pages still work under the Content-Security-Policy.

The attacking pages are served from another origin: the same host at another port, the
hardest case (same-site: the browser sends the ``SameSite=Strict`` cookie along). One page
auto-submits a ``text/plain`` form to ``POST /players`` (which used to replace the identity
cookie), another posts a move with a form and with a ``no-cors`` fetch (a ``text/plain`` body
whose duplicate keys make it a valid JSON command).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from html import escape
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
import requests
from playwright.sync_api import BrowserContext, Page, expect

from tests.web.flows import sign_up, watch_errors

ATTACKS: dict[str, str] = {}  # path -> HTML of the attacking site


class _Attacker(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        html = ATTACKS.get(self.path, "").encode()
        self.send_response(200 if html else 404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.end_headers()
        self.wfile.write(html)

    def log_message(self, *_args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def attacker() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Attacker)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://localhost:{server.server_port}"  # the live server's host: same-site
    server.shutdown()
    thread.join(10)


def form_page(action: str, body: dict[str, Any]) -> str:
    """An auto-submitting text/plain form whose body is ``body`` as JSON: the form sends
    ``name=value``, so its first key comes twice, first with the string "=" (the last one
    counts), as in ``{"name": "=", "name": "Mallory"}``."""
    first = json.dumps(next(iter(body)))
    name, value = "{" + first + ': "', '", ' + json.dumps(body)[1:]
    return (
        f"<form method=post enctype=text/plain action='{escape(action)}'>"
        f"<input name='{escape(name)}' value='{escape(value)}'></form>"
        "<script>document.forms[0].submit()</script>"
    )


def fetch_page(url: str, body: dict[str, Any]) -> str:
    return (
        "<script>fetch(" + json.dumps(url) + ", {method: 'POST', mode: 'no-cors', "
        "credentials: 'include', headers: {'Content-Type': 'text/plain'}, body: "
        + json.dumps(json.dumps(body))
        + "}).finally(() => { document.title = 'sent'; });</script>"
    )


def token_of(context: BrowserContext) -> str:
    return next(c["value"] for c in context.cookies() if c["name"] == "omerta_token")


def game_to_act(base: str, token: str) -> tuple[str, dict[str, Any], int]:
    """A Famiglia game against a second player in which the browser's player is to act: its
    id, a legal command, the version."""
    auth = {"Authorization": f"Bearer {token}"}
    other = requests.post(f"{base}/players", json={"name": "Bo"}, timeout=10).json()
    for _ in range(20):  # who starts is the shuffle's choice
        made = requests.post(
            f"{base}/games", json={"game": "famiglia", "seats": 2}, headers=auth, timeout=10
        ).json()
        game_id = made["game_id"]
        requests.post(
            f"{base}/games/{game_id}/join",
            json={"invite": made["invites"][0]["code"]},
            headers={"Authorization": f"Bearer {other['token']}"},
            timeout=10,
        ).raise_for_status()
        legal = requests.get(f"{base}/games/{game_id}/legal", headers=auth, timeout=10).json()
        if legal["commands"]:
            return game_id, legal["commands"][0], legal["version"]
    raise AssertionError("the browser's player never started")


def version(base: str, game_id: str) -> int:
    return requests.get(f"{base}/games/{game_id}", timeout=10).json()["version"]


def test_another_site_cannot_replace_the_player_nor_move(
    new_context: Callable[..., BrowserContext], live_server: str, attacker: str
) -> None:
    context = new_context()
    page = context.new_page()
    errors = watch_errors(page)
    sign_up(page, "Ada")
    token = token_of(context)
    game_id, move, before = game_to_act(live_server, token)

    ATTACKS["/plant"] = form_page(f"{live_server}/players", {"name": "Mallory"})
    commands = f"{live_server}/games/{game_id}/commands"
    ATTACKS["/move-form"] = form_page(commands, {"command": move})
    ATTACKS["/move-fetch"] = fetch_page(commands, {"command": move})

    evil = context.new_page()
    for path in ("/plant", "/move-form"):
        evil.goto(attacker + path)
        evil.wait_for_url(f"{live_server}/**")  # the form was sent
        evil.wait_for_load_state()
    evil.goto(attacker + "/move-fetch")
    expect(evil).to_have_title("sent")

    assert token_of(context) == token
    assert version(live_server, game_id) == before
    page.goto("/")
    expect(page.locator("#hello-title")).to_have_text("Welcome, Ada")
    # The player's own page still moves, through its own API client (same origin, JSON; the
    # other browser tests click through whole games).
    page.goto(f"/play/{game_id}")
    sent = page.evaluate(
        "([id, move]) => Omerta.api('POST', '/games/' + id + '/commands', {command: move})",
        [game_id, move],
    )
    assert sent["version"] > before
    assert errors == []


def test_the_start_page_asks_before_starting_anew(page: Page) -> None:
    errors = watch_errors(page)
    sign_up(page, "Ada")
    page.get_by_role("button", name="Start as a new player").click()
    page.get_by_label("Your name").fill("Eve")
    page.get_by_role("button", name="Start playing").click()
    dialog = page.get_by_role("dialog")
    expect(dialog).to_contain_text("Start as a new player instead of Ada?")
    dialog.get_by_role("button", name="Cancel").click()
    page.reload()
    expect(page.locator("#hello-title")).to_have_text("Welcome, Ada")

    page.get_by_role("button", name="Start as a new player").click()
    page.get_by_label("Your name").fill("Eve")
    page.get_by_role("button", name="Start playing").click()
    page.get_by_role("button", name="Forget Ada and start anew").click()
    expect(page.locator("#hello-title")).to_have_text("Welcome, Eve")
    page.reload()
    expect(page.locator("#hello-title")).to_have_text("Welcome, Eve")
    assert errors == []


@pytest.mark.parametrize(
    "path", ["/", "/new", "/games-open", "/your-turn", "/docs", "/rules/famiglia", "/rules/gangsta"]
)
def test_pages_break_no_rule_of_the_content_security_policy(page: Page, path: str) -> None:
    errors = watch_errors(page)  # a CSP violation is a console error
    sign_up(page, "Ada")
    response = page.goto(path)
    assert response is not None
    assert "script-src 'self'" in response.headers["content-security-policy"]
    page.wait_for_load_state("networkidle")
    assert errors == []
