"""An open game nobody joined expires (workers.clocks.expiry): its page, the player's games and
profile say so in English and Japanese (on a phone too), and it leaves the lobby."""

from __future__ import annotations

import re
from collections.abc import Callable

from playwright.sync_api import BrowserContext, Page, expect

from bootstrap import Container
from services.identity.players import Players
from tests.web.conftest import screenshot
from tests.web.flows import create_game, sign_up, watch_errors
from tests.web.test_live_lists import call

TEXTS = {
    "en": {"why": "This game expired: nobody joined within 14 days.", "title": "no winner"},
    "ja": {
        "why": "このゲームは期限切れになりました: 14日以内に誰も参加しませんでした。",
        "title": "勝者なし",
    },
}


def expire_now(container: Container, game_id: str) -> None:
    """What the expiry job does once the days are over (the worker then projects the game)."""
    svc = container.commands
    assert Players(svc.store.redis).close_unjoined(game_id)
    svc.notify(game_id, svc.expire(game_id, 14).version)


def check_pages(page: Page, game_id: str, player_id: str, lang: str) -> None:
    text = TEXTS[lang]
    page.goto(f"/play/{game_id}")
    result = page.locator("#result")
    expect(result).to_contain_text(text["why"])
    page.wait_for_function(  # the text wraps within the page's width
        "() => document.querySelector('#result .reason').getBoundingClientRect().right"
        " <= document.documentElement.clientWidth"
    )
    expect(result.locator("h2")).to_contain_text(text["title"])
    expect(page.locator("#log")).to_contain_text(text["why"])
    screenshot(page, f"expired-{lang}")
    page.goto("/")
    entry = page.locator(f"li[data-game-id='{game_id}']")
    expect(entry.locator(".status")).to_contain_text(text["why"])
    page.goto("/games-open")
    expect(page.locator("#lobby")).to_be_visible()
    expect(page.locator(f"#lobby li[data-game-id='{game_id}']")).to_have_count(0)
    page.goto(f"/profile/{player_id}")
    expect(page.locator("#games tbody tr", has_text=text["why"])).to_have_count(1)


def test_an_expired_game_says_why_everywhere(
    container: Container, new_context: Callable[..., BrowserContext]
) -> None:
    page = new_context().new_page()
    errors = watch_errors(page)
    sign_up(page, "Erin")
    game_id, _ = create_game(page, "Famiglia", ["friend"], public=True)
    page.goto("/games-open")
    expect(page.locator(f"#lobby li[data-game-id='{game_id}']")).to_have_count(1)
    expire_now(container, game_id)
    player_id = call(page, "GET", "/me")["id"]
    check_pages(page, game_id, player_id, "en")

    # With the keyboard: from the player's games to the game's result.
    page.goto("/")
    link = page.locator(f"li[data-game-id='{game_id}']").get_by_role("link", name="Result")
    link.focus()
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(f"/play/{game_id}$"))

    page.get_by_role("link", name="日本語").click()
    expect(page.locator("html")).to_have_attribute("lang", "ja")
    page.set_viewport_size({"width": 360, "height": 740})  # a small phone
    check_pages(page, game_id, player_id, "ja")
    assert errors == []
