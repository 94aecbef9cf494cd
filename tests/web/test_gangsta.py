"""A person plays a whole Gangsta! game in the browser against the greedy AI: heists (chosen,
then gangsters committed one by one), hires, passes, rewards and discards, until the result."""

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

MAX_STEPS = 250  # our decisions; such a game takes about 50


def button(page: Page, kind: str) -> Locator:
    return page.locator(f"button[data-type={kind}]")


def heist(page: Page, first: bool) -> None:
    """Choose the heist, then commit gangsters one by one until it is complete."""
    button(page, "choose_heist").first.click()
    prompt = page.locator("#prompt .ask")
    expect(prompt).to_contain_text("commit Available gangsters one by one")
    expect(page.locator(".heist-now")).to_be_visible()
    if first:
        screenshot(page, "gangsta-heist")
    while True:
        before = shown_version(page)
        button(page, "commit").first.click()
        wait_past(page, before)
        if not button(page, "commit").count():
            return


OWED = ("discard", "fast_recruit", "learn_skill", "theft", "diversion", "assassination")


def step(page: Page, done: set[str]) -> str:
    """One decision, preferring a heist, then a hire, then a pass, until each was made once;
    owed discards and rewards are answered as they come. The page may be drawing an AI's
    simultaneous decision step by step (nothing to click for a moment): look again then."""
    for _ in range(150):
        for kind in OWED:
            if button(page, kind).count():
                button(page, kind).first.click()
                return kind
        if button(page, "skip").count():  # a pass discard, or a reward nobody needs
            button(page, "skip").click()
            return "skip"
        if button(page, "choose_heist").count():
            heist(page, first="heist" not in done)
            return "heist"
        if button(page, "hire").count() and ("hire" not in done or "pass" in done):
            button(page, "hire").first.click()
            return "hire"
        if button(page, "pass").count():
            button(page, "pass").click()
            return "pass"
        page.wait_for_timeout(100)
    raise AssertionError(f"nothing to do; prompt: {page.locator('#prompt').inner_text()!r}")


def check_running_game(page: Page, game_id: str) -> None:
    """The page shows the player's own gang, money and heists; the AI's influence is hidden."""
    mine = page.locator(".player.mine")
    me = page.request.get(f"/games/{game_id}/view").json()["view"]["players"][0]
    assert me["heists_completed"] >= 1
    expect(mine.locator(".gcard")).to_have_count(len(me["gang"]))
    expect(mine.locator(".money-big")).to_have_text(f"${me['money']}")
    expect(mine.locator("h2 .sub")).to_contain_text(f"influence {me['heist_influence']}")
    log = page.locator("#log")
    expect(log).to_contain_text("Gina completes")
    expect(log).to_contain_text("Gina hires")
    expect(log).to_contain_text("Gina passes and takes")
    expect(page.locator(".player:not(.mine) h2 .sub")).to_contain_text("influence hidden")
    screenshot(page, "gangsta-midgame")


def test_a_whole_game_against_the_ai(page: Page) -> None:
    # 409: a discard sent while the AI made its own at the same time is sent again.
    errors = watch_errors(page, expected="401|409")
    sign_up(page, "Gina")
    game_id, _ = create_game(page, "Gangsta!", ["ai-1"])
    expect(page.locator(".hcard")).to_have_count(5)  # the Genesis row
    expect(page.locator(".rows .gcard")).to_have_count(5)  # the market
    expect(page.locator(".player .gcard.boss")).to_have_count(2)
    screenshot(page, "gangsta-start")

    done: list[str] = []
    checked = False
    while my_turn_or_over(page) == "turn":
        assert len(done) < MAX_STEPS, "the game should have ended"
        if not checked and {"heist", "hire", "pass"} <= set(done):
            check_running_game(page, game_id)
            checked = True
        before = shown_version(page)
        done.append(step(page, set(done)))
        wait_past(page, before)
    assert checked

    result = page.locator("#result")
    expect(result).to_contain_text("Game over")
    game = page.request.get(f"/games/{game_id}").json()
    rows = result.locator("table.scores tbody tr")
    expect(rows).to_have_count(2)
    for seat, row in enumerate(rows.all()):  # the breakdown, then the total
        details = game["result"]["details"]
        parts = ["gang_influence", "heist_influence", "money_bonus", "size_bonus", "gangsters"]
        expected = [str(details[k][seat]) for k in parts] + [str(game["result"]["scores"][seat])]
        expect(row.locator("td")).to_have_text(expected)
    # Once the game is over, every player's completed heists are shown.
    expect(page.locator(".player:not(.mine) h2 .sub")).not_to_contain_text("hidden")
    screenshot(page, "gangsta-over")

    # The replay steps through the finished game with everything revealed.
    page.get_by_role("link", name="Replay").click()
    expect(page.locator("#step-label")).to_contain_text("Step 1 of")
    page.locator("#step").fill("40")
    expect(page.locator("#step-label")).to_contain_text("Step 40 of")
    expect(page.locator(".rows .hcard").first).to_be_visible()  # (taken ones fold away)
    expect(page.locator("#board")).not_to_contain_text("influence hidden")
    page.keyboard.press("ArrowRight")
    expect(page.locator("#step-label")).to_contain_text("Step 41 of")
    screenshot(page, "gangsta-replay")
    assert errors == []


def test_four_players_with_three_ais(page: Page) -> None:
    errors = watch_errors(page)
    sign_up(page, "Gina")
    create_game(page, "Gangsta!", ["ai-1", "ai-0", "ai-1"], options={"clans": True})
    assert my_turn_or_over(page) == "turn"  # the three AIs moved before us if they started
    expect(page.locator(".player")).to_have_count(4)
    expect(page.locator(".player.mine")).to_contain_text("Gina")
    expect(button(page, "pass")).to_be_visible()
    game = page.request.get(page.url.replace("/play/", "/games/")).json()
    assert game["options"]["clans"] is True
    screenshot(page, "gangsta-four-players")
    # With the keyboard: pass, then the focus is on the next choice (discard nothing).
    button(page, "pass").focus()
    before = shown_version(page)
    page.keyboard.press("Enter")
    wait_past(page, before)
    expect(button(page, "skip")).to_be_focused()
    expect(button(page, "skip")).to_have_text("Discard nothing")
    before = shown_version(page)
    page.keyboard.press("Enter")
    wait_past(page, before)
    expect(page.locator("#log")).to_contain_text("Gina passes and takes")
    assert errors == []
