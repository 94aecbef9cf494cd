"""A refused move in the player's language: the page words the API's refusal from the message
catalogue by its code and params. The move is made on the page; on its way to the server it is
changed into one the rules refuse (the page itself offers only legal moves), so the refusal is
the server's own, shown by the page's own code. An error toast goes at the next action."""

from __future__ import annotations

import json
from collections.abc import Callable

from playwright.sync_api import BrowserContext, Page, Route, expect

from tests.web.flows import my_turn_or_over, sign_up, watch_errors
from tests.web.test_ending_moves import new_game

# An Accountant of rank 0 has no power: refused whatever the hands and the Street hold.
REFUSED = {"type": "play_accountant", "card": "blue-0"}


def test_a_refused_move_shows_the_japanese_text(
    new_context: Callable[..., BrowserContext],
) -> None:
    page = new_context(locale="ja-JP").new_page()
    errors = watch_errors(page, expected="401|422")
    page.goto("/")
    page.get_by_label("あなたの名前").fill("健")
    page.get_by_role("button", name="はじめる").click()
    expect(page.locator("#hello-title")).to_have_text("ようこそ、健 さん")
    made = page.evaluate("Omerta.api('POST', '/games', {game: 'famiglia', seats: 2, ai: {1: 1}})")
    page.goto(f"/play/{made['game_id']}")
    assert my_turn_or_over(page) == "turn"

    def refuse(route: Route) -> None:
        sent = json.loads(route.request.post_data or "{}")
        route.continue_(post_data=json.dumps({**sent, "command": REFUSED}))

    page.route("**/commands", refuse)
    page.locator("[data-action=pass]").click()
    expect(page.locator("#prompt .refusal")).to_have_text(
        "インテリ 0 はランク0なので効果がありません。"
    )
    assert errors == []


def test_a_service_refusal_in_japanese(new_context: Callable[..., BrowserContext]) -> None:
    """Not a rule's refusal: the join page's, when the invite was used already."""
    page = new_context(locale="ja-JP").new_page()
    errors = watch_errors(page, expected="401|409")
    page.goto("/")
    page.get_by_label("あなたの名前").fill("健")
    page.get_by_role("button", name="はじめる").click()
    expect(page.locator("#hello-title")).to_have_text("ようこそ、健 さん")
    made = page.evaluate("Omerta.api('POST', '/games', {game: 'famiglia', seats: 2})")
    page.goto(f"/play/{made['game_id']}/join#invite={made['invites'][0]['code']}")
    page.get_by_role("button", name="席につく").click()
    expect(page.locator("#toast")).to_have_text("あなたはすでにこのゲームに参加しています。")
    assert [e for e in errors if not e.startswith("ApiError: ")] == []  # the one shown


def test_an_error_toast_goes_at_the_next_action(page: Page) -> None:
    """A move lost on the way (the network) shows an error; trying again, which works, must not
    stay covered by that stale error."""
    errors = watch_errors(page)
    sign_up(page, "Rosa")
    game_id = new_game(page, "famiglia")
    lost: list[Route] = []

    def lose_the_first(route: Route) -> None:
        if lost:
            route.continue_()
            return
        lost.append(route)
        route.abort()

    page.route("**/commands", lose_the_first)
    page.goto(f"/play/{game_id}")
    offer = page.locator("#table-actions button[data-type=offer_draw]")
    offer.click()
    expect(page.locator("#toast")).to_be_visible()
    offer.click()
    expect(page.locator("#table-actions")).to_contain_text("You offered a draw")
    assert page.locator("#toast").is_hidden()
    assert [e for e in errors if "net::" not in e and "Failed to fetch" not in e] == []
