"""Clocks on the pages: a time control chosen on the new-game page, the game page's
countdown ticking by itself, the countdown in the "your turn" row; the vacation page with the
keyboard."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.web.conftest import PHONE, screenshot
from tests.web.flows import PROJECTED_MS, sign_up, watch_errors


def test_the_countdown_shows_and_ticks(page: Page) -> None:
    errors = watch_errors(page)
    sign_up(page, "Tomo")
    page.goto("/new")
    page.get_by_label("Famiglia").check()
    page.locator("#seat-1").select_option("ai-1")
    expect(page.get_by_label("When a player's time runs out")).to_be_disabled()
    page.get_by_label("Time control").select_option(label="24 hours per move")
    page.get_by_label("When a player's time runs out").select_option(label="They forfeit")
    page.get_by_role("button", name="Create the game").click()
    page.wait_for_url(re.compile(r"/play/[^/]+$"))
    clocks = page.locator("#clocks")
    expect(clocks).to_contain_text("24 h per move · on time-out the seat forfeits")
    mine = clocks.locator(".seat-clock.mine .countdown")
    expect(mine).to_have_text(re.compile(r"^23:59:\d\d left$"))
    first = mine.text_content()
    page.wait_for_function(
        "t => document.querySelector('#clocks .seat-clock.mine .countdown').textContent !== t",
        arg=first,
    )
    page.set_viewport_size(PHONE)
    screenshot(page, "clocks-game")
    page.goto("/your-turn")
    row = page.locator(".game-entry .clock")
    expect(row).to_contain_text("24 h per move")
    expect(row.locator(".countdown")).to_have_text(re.compile(r"^23:59:\d\d left$"))
    assert errors == []


def test_a_vacation_starts_and_ends_with_the_keyboard(page: Page) -> None:
    errors = watch_errors(page)
    sign_up(page, "Vera")
    page.goto("/notifications")
    page.get_by_role("link", name="Vacation: pause your clocks").click()
    expect(page.locator("#vacation-state")).to_have_text("You are not on vacation.")
    expect(page.locator("#vacation-left")).to_contain_text(": 21")
    page.get_by_label("Days").fill("3")
    page.keyboard.press("Enter")
    expect(page.locator("#vacation-state")).to_contain_text("On vacation until")
    expect(page.locator("#vacation-left")).to_contain_text(": 18")
    expect(page.get_by_role("button", name="End the vacation now")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#vacation-state")).to_have_text("You are not on vacation.")
    expect(page.locator("#vacation-left")).to_contain_text(": 20")  # one day begun
    page.goto("/language/ja?next=/vacation")
    expect(page.locator("h1")).to_have_text("休暇")
    expect(page.locator("#vacation-state")).to_have_text("休暇中ではありません。")
    assert errors == []


def test_a_seat_waiting_under_a_per_move_clock_shows_its_time_per_move(page: Page) -> None:
    errors = watch_errors(page)
    sign_up(page, "Pia")
    made = page.request.post(
        "/games",
        data={"game": "famiglia", "seats": 2, "clock": {"type": "per_move", "seconds": 86400}},
    ).json()
    page.goto(f"/play/{made['game_id']}")
    waiting = page.locator("#clocks .seat-clock[data-seat='1']")
    # The clocks come from the read model, which the worker writes.
    expect(waiting).to_have_text(re.compile(r"24 h for the next move$"), timeout=PROJECTED_MS)
    page.goto("/language/ja?next=" + f"/play/{made['game_id']}")
    expect(waiting).to_have_text(re.compile(r"次の手に24時間$"), timeout=PROJECTED_MS)
    assert errors == []
