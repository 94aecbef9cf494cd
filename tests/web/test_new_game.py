"""The new-game page: a preset (as described / as published / custom), every option explained
(a title and a keyboard-reachable disclosure), the snitch values a choice, options built from
the API's list; a game against AI only opens at once."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import Page, expect

from tests.web.conftest import PHONE, screenshot
from tests.web.flows import sign_up, watch_errors


def kinds(page: Page) -> dict[str, Any]:
    api = page.evaluate("document.body.dataset.api")
    return {k["name"]: k for k in page.request.get(f"{api}/games").json()}


def game_options(page: Page, game_id: str) -> dict[str, Any]:
    api = page.evaluate("document.body.dataset.api")
    options: dict[str, Any] = page.request.get(f"{api}/games/{game_id}").json()["options"]
    return options


def test_every_option_is_offered_and_explained(page: Page) -> None:
    errors = watch_errors(page)
    sign_up(page, "Olga")
    page.goto("/new")
    for game, label in (("famiglia", "Famiglia"), ("gangsta", "Gangsta!")):
        page.get_by_label(label).check()
        kind = kinds(page)[game]
        shown = page.locator("#options [data-option]").evaluate_all(
            "els => els.map(e => e.dataset.option)"
        )
        expected = [
            k
            for k in kind["options"]["$defs"]["Options"]["properties"]
            if k not in kind["unavailable"]
        ]
        assert shown == expected
        for key in shown:
            field = page.locator(f"#opt-{key}")
            expect(field).to_be_disabled()  # "as described" shows the values, custom edits them
            help_id = field.get_attribute("aria-describedby")
            mark = page.locator(f"#options details:has(#{help_id}) > summary")
            assert mark.get_attribute("title")
            expect(page.locator(f"#{help_id}")).to_be_hidden()
            mark.focus()
            page.keyboard.press("Enter")
            expect(page.locator(f"#{help_id}")).to_be_visible()
            page.keyboard.press("Enter")
    expect(page.get_by_label("As published")).to_have_count(1)  # Gangsta! has the preset
    assert errors == []


def test_gangsta_as_published_opens_the_game_at_once(page: Page) -> None:
    sign_up(page, "Pia")
    page.goto("/new")
    page.get_by_label("Gangsta!").check()
    snitches = page.locator("#opt-domination_snitches")
    assert snitches.evaluate("e => e.tagName") == "SELECT"  # a choice, not free text
    expect(snitches.locator("option")).to_have_text(
        ["2, 3, 3, 4, 4 (as described)", "3, 3, 3, 4, 4 (as printed)"]
    )
    page.get_by_label("As published").check()
    expect(snitches).to_have_value("[3,3,3,4,4]")
    expect(page.locator("#opt-refill")).to_have_value("one_per_row")
    screenshot(page, "new-game-published")
    page.get_by_role("button", name="Create the game").click()
    # Only an AI opponent: no "game created" page, the game itself.
    page.wait_for_url(re.compile(r"/play/[^/]+$"))
    expect(page.locator("#board section").first).to_be_visible()
    options = game_options(page, page.url.rsplit("/", 1)[1])
    assert options["domination_snitches"] == [3, 3, 3, 4, 4]
    assert options["refill"] == "one_per_row" and options["coop_reward_needs_partner"] is True


def test_custom_options_start_from_the_preset_and_send_what_differs(page: Page) -> None:
    sign_up(page, "Quinn")
    page.goto("/new")
    page.get_by_label("Gangsta!").check()
    page.get_by_label("Custom").check()
    page.locator("#opt-domination_snitches").select_option("[3,3,3,4,4]")
    page.locator("#opt-clans").check()
    page.get_by_role("button", name="Create the game").click()
    page.wait_for_url(re.compile(r"/play/[^/]+$"))
    options = game_options(page, page.url.rsplit("/", 1)[1])
    assert options["domination_snitches"] == [3, 3, 3, 4, 4] and options["clans"] is True
    assert options["refill"] == "full"  # the description's, not changed


def test_the_page_in_japanese_on_a_phone(new_context: Any) -> None:
    page = new_context(viewport=PHONE, locale="ja-JP").new_page()
    errors = watch_errors(page)
    page.goto("/")
    page.get_by_label("あなたの名前").fill("Rin")
    page.get_by_role("button", name="はじめる").click()
    # The player exists once the page greets them: leaving earlier may cancel its creation.
    expect(page.locator("#hello-title")).to_have_text("ようこそ、Rin さん")
    page.goto("/new")
    page.get_by_label("ギャングスタ!").check()
    expect(page.get_by_label("出版版どおり")).to_have_count(1)
    page.locator("#opt-clans + summary, #options details").first.locator("summary").click()
    expect(page.locator("#options .tip[open] .tip-text")).to_contain_text("説明どおり")
    screenshot(page, "new-game-ja-phone")
    assert errors == []
