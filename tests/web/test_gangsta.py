"""A person plays Gangsta! in the browser against the greedy AI: heists, hires and passes."""

from __future__ import annotations

from playwright.sync_api import Locator, Page, expect

from tests.web.conftest import screenshot
from tests.web.flows import (
    create_game,
    my_turn_or_over,
    shown_version,
    sign_up,
    wait_past,
    watch_errors,
)

MAX_STEPS = 60


def button(page: Page, kind: str) -> Locator:
    return page.locator(f"button[data-type={kind}]")


def heist(page: Page) -> None:
    """Choose the heist, then commit gangsters one by one until it is complete."""
    button(page, "choose_heist").first.click()
    prompt = page.locator("#prompt .ask")
    expect(prompt).to_contain_text("commit Available gangsters one by one")
    expect(page.locator(".heist-now")).to_be_visible()
    while True:
        before = shown_version(page)
        button(page, "commit").first.click()
        wait_past(page, before)
        if not button(page, "commit").count():
            return


def step(page: Page, done: set[str]) -> str:
    """One decision, preferring a heist, then a hire, then a pass, until each was made once;
    owed discards and rewards are answered as they come."""
    for kind in ("discard", "fast_recruit", "learn_skill", "theft", "diversion", "assassination"):
        if button(page, kind).count():
            button(page, kind).first.click()
            return kind
    if button(page, "skip").count():  # a pass discard, or a reward nobody needs
        button(page, "skip").click()
        return "skip"
    if button(page, "choose_heist").count() and "heist" not in done:
        heist(page)
        return "heist"
    if button(page, "hire").count() and ("hire" not in done or "pass" in done):
        button(page, "hire").first.click()
        return "hire"
    button(page, "pass").click()
    return "pass"


def test_heist_hire_and_pass_against_the_ai(page: Page) -> None:
    errors = watch_errors(page)
    sign_up(page, "Gina")
    game_id, _ = create_game(page, "Gangsta!", ["ai-1"])
    expect(page.locator(".hcard")).to_have_count(5)  # the Genesis row
    expect(page.locator(".rows .gcard")).to_have_count(5)  # the market
    expect(page.locator(".player .gcard.boss")).to_have_count(2)
    screenshot(page, "gangsta-start")

    done: set[str] = set()
    for _ in range(MAX_STEPS):
        if {"heist", "hire", "pass"} <= done or my_turn_or_over(page) == "over":
            break
        before = shown_version(page)
        made = step(page, done)
        wait_past(page, before)
        done.add(made)
        if made == "heist":
            screenshot(page, "gangsta-after-heist")
    assert {"heist", "hire", "pass"} <= done

    mine = page.locator(".player.mine")
    api = page.request.get(f"/games/{game_id}/view").json()["view"]
    me = api["players"][0]
    assert me["heists_completed"] >= 1
    expect(mine.locator(".gcard")).to_have_count(len(me["gang"]))
    assert len(me["gang"]) >= 2  # the Boss and a hired gangster
    expect(mine.locator(".money-big")).to_have_text(f"${me['money']}")
    log = page.locator("#log")
    expect(log).to_contain_text("Gina completes")
    expect(log).to_contain_text("Gina hires")
    expect(log).to_contain_text("Gina passes and takes")
    # The AI's completed heists and their influence stay hidden while the game runs.
    expect(page.locator(".player:not(.mine) h2 .sub")).to_contain_text("influence hidden")
    screenshot(page, "gangsta-midgame")
    assert errors == []
