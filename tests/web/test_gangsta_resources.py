"""The resources module on the Gangsta! page, against the greedy AI: every player keeps one of
two resource cards at the same time, face down until all have chosen; then each player's card
is shown face up with whether it is active."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.web.conftest import screenshot
from tests.web.flows import my_turn_or_over, sign_up, watch_errors


def test_keep_one_of_two_resource_cards_against_the_ai(page: Page) -> None:
    errors = watch_errors(page)
    sign_up(page, "Kim")
    # The creation page is another engineer's: the option goes straight to the API, with the
    # page's own cookie, as the page would send it.
    created = page.request.post(
        "/games",
        data={"game": "gangsta", "seats": 2, "ai": {"1": 1}, "options": {"resources": True}},
    )
    assert created.status == 201, created.text()
    game_id = created.json()["game_id"]
    page.goto(f"/play/{game_id}")
    assert my_turn_or_over(page) == "turn"
    expect(page.locator("#prompt .ask")).to_have_text(
        "Choose which resource card to keep; the other is discarded."
    )
    mine = page.locator(".player.mine .resources")
    keep = mine.locator("button[data-type=keep_resource]")
    expect(keep).to_have_count(2)
    expect(mine.locator(".rcard")).to_have_count(2)
    view = page.request.get(f"/games/{game_id}/view").json()["view"]
    dealt = view["players"][0]["dealt"]
    assert len(dealt) == 2 and view["players"][1]["dealt"] == []
    theirs = page.locator(".player:not(.mine) .resources")
    expect(theirs.locator(".rcard")).to_have_count(1)  # the AI has chosen: face down
    expect(theirs.locator(".rcard.facedown")).to_have_text("Resource card (face down)")
    screenshot(page, "gangsta-resources-choice")
    keep.nth(1).focus()
    page.keyboard.press("Enter")  # with the keyboard
    expect(mine.locator(f".rcard[data-card='{dealt[1]}']")).to_be_visible()
    expect(mine.locator(".rcard")).to_have_count(1)
    expect(theirs.locator(".rcard.facedown")).to_have_count(0)  # all chose: turned face up
    expect(theirs.locator(".rcard .state")).to_have_text(re.compile("active|not active yet"))
    expect(page.locator("#log")).to_contain_text("Each player is dealt 2 resource cards")
    expect(page.locator("#log")).to_contain_text("The resource cards are turned up")
    assert my_turn_or_over(page) == "turn"
    expect(page.locator("button[data-type=pass]")).to_be_visible()
    screenshot(page, "gangsta-resources-kept")
    assert errors == []


def test_the_resource_cards_in_japanese(page: Page) -> None:
    errors = watch_errors(page)
    sign_up(page, "Aki")
    created = page.request.post(
        "/games",
        data={"game": "gangsta", "seats": 2, "ai": {"1": 0}, "options": {"resources": True}},
    )
    game_id = created.json()["game_id"]
    page.goto(f"/play/{game_id}")
    page.get_by_role("link", name="日本語").click()
    expect(page.locator("#prompt .ask")).to_have_text(
        "残すリソースカードを選んでください。もう1枚は捨て札になります。"
    )
    expect(page.locator(".player.mine button[data-type=keep_resource]").first).to_have_text(
        "このカードを残す"
    )
    assert errors == []
