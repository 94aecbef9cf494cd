"""The new-game page's AI level picker: the levels each game offers, weakest to strongest, named
for what they are (the search levels with their budget) in English and Japanese, chosen by
keyboard. In the game an AI seat is its name with a short level badge, whose explanation is a
tooltip: the name alone in the log and the result."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import BrowserContext, expect

from tests.web.flows import sign_up, watch_errors

PICKER = {
    "en": ["AI: random", "AI: greedy", "AI: medium, searches 0.1 s a move",
           "AI: expert, searches 1 s a move"],
    "ja": ["AI: ランダム", "AI: 貪欲", "AI: 中級・1手0.1秒の探索", "AI: 上級・1手1秒の探索"],
}  # fmt: skip
BADGE = {"en": "AI · expert", "ja": "AI・上級"}
TOOLTIP = {"en": "expert, searches 1 s a move", "ja": "上級・1手1秒の探索"}


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_level_picker_names_what_each_level_is(
    new_context: Callable[..., BrowserContext], lang: str
) -> None:
    page = new_context().new_page()
    errors = watch_errors(page)
    sign_up(page, "Ines")
    if lang == "ja":
        page.get_by_role("link", name="日本語").click()
        expect(page.locator("html")).to_have_attribute("lang", "ja")
    page.goto("/new")
    for game in ("famiglia", "gangsta"):
        page.locator(f"input[name=kind][value={game}]").check()
        options = page.locator("#seat-1 option")
        expect(options).to_have_count(len(PICKER[lang]) + 1)  # and a friend
        assert options.all_inner_texts()[: len(PICKER[lang])] == PICKER[lang]
    page.locator("input[name=kind][value=famiglia]").check()
    picker = page.locator("#seat-1")
    expect(picker).to_have_value("ai-1")  # greedy, the default
    picker.focus()
    page.keyboard.press("ArrowDown")  # greedy -> medium -> expert
    page.keyboard.press("ArrowDown")
    expect(picker).to_have_value("ai-expert")
    page.locator("form button[type=submit]").click()
    page.wait_for_url("**/play/**")
    pill = page.locator("#seats .seat[data-seat='1']")
    name = pill.locator("a").first.inner_text()
    assert name and "(" not in name and "AI" not in name  # the name alone
    badge = pill.locator(".ai-badge")
    expect(badge.locator("summary")).to_have_text(BADGE[lang])
    expect(badge.locator("summary")).to_have_attribute("title", TOOLTIP[lang])
    badge.locator("summary").focus()
    page.keyboard.press("Enter")  # the explanation, by keyboard
    expect(badge.locator(".tip-text")).to_have_text(TOOLTIP[lang])
    expect(page.locator("#log li").first).to_be_visible()
    expect(page.locator("#log")).not_to_contain_text("(AI")
    expect(page.locator("#log")).not_to_contain_text("(AI・")
    game_id = page.url.rstrip("/").rsplit("/", 1)[-1]
    api = page.evaluate("document.body.dataset.api")
    seats = page.request.get(f"{api}/games/{game_id}").json()["seats"]
    assert seats[1]["kind"] == "ai" and seats[1]["level"] == "expert"
    assert errors == []
