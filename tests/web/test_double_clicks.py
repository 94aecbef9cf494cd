"""A double click creates one thing (issue of a new player): "Start playing" one player,
"Create the game" one game, "Add" one webhook. The button is disabled while its request is in
flight, and every creating POST carries an ``Idempotency-Key``, so a repeat gets the first
answer."""

from __future__ import annotations

import re

from playwright.sync_api import Page, Request, expect

from services.identity.players import Players
from services.platform.embedded import EmbeddedServer
from tests.web.flows import watch_errors

CREATING = re.compile(r"/(players|games|games/[^/]+/join|me/webhooks)$")


def players_named(players: Players, name: str) -> list[str]:
    found = []
    for key in players.redis.scan_iter("player:{*}"):
        if not key.endswith(b":games") and players.redis.type(key) == b"hash":
            player_id = key.decode().split("{", 1)[1].split("}", 1)[0]
            if players.redis.hget(key, "name") == name.encode():
                found.append(player_id)
    return found


def test_double_clicks_create_one_player_one_game_and_one_webhook(
    page: Page, embedded_server: EmbeddedServer
) -> None:
    errors = watch_errors(page)
    posts: list[Request] = []
    page.on(
        "request",
        lambda r: posts.append(r) if r.method == "POST" and CREATING.search(r.url) else None,
    )
    players = Players(embedded_server.client())
    name = "Dora Doubleclick"
    page.goto("/")
    page.get_by_label("Your name").fill(name)
    page.get_by_role("button", name="Start playing").dblclick()
    expect(page.locator("#hello-title")).to_have_text(f"Welcome, {name}")
    dora = page.evaluate("() => fetch('/me').then(r => r.json())")["id"]

    page.goto("/new")
    page.get_by_label("Famiglia").check()
    page.locator("#seat-1").select_option("ai-1")
    page.get_by_role("button", name="Create the game").dblclick()
    page.wait_for_url(re.compile(r"/play/[^/]+$"))
    expect(page.locator("#board section").first).to_be_visible()
    assert players_named(players, name) == [dora]
    assert len(players.games_of(dora)) == 1

    page.goto("/notifications")
    page.get_by_label("Webhook URL").fill("https://hooks.example.org/dora")
    page.get_by_role("button", name="Add", exact=True).dblclick()
    expect(page.locator("#hook-secret")).to_be_visible()
    expect(page.locator("#hooks li")).to_have_count(1)
    assert len(page.request.get("/me/webhooks").json()["webhooks"]) == 1
    assert posts and all(len(r.headers.get("idempotency-key", "")) >= 16 for r in posts)
    assert errors == []
