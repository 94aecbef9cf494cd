"""The rules pages: one per game and language, for players, linked from the start page and from
each game page; option, reward and resource texts come from the message catalogue."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import BrowserContext, expect

from bootstrap import Container
from tests.web.conftest import PHONE, screenshot
from tests.web.flows import watch_errors

SECTIONS = {
    "famiglia": ["cards", "setup", "turn", "recruit", "deck", "scoring", "see", "options"],
    "gangsta": [
        "words",
        "setup",
        "turn",
        "rewards",
        "coop",
        "snitches",
        "chapters",
        "scoring",
        "resources",
        "see",
        "options",
    ],
}


@pytest.mark.parametrize("game", ["famiglia", "gangsta"])
@pytest.mark.parametrize("locale", ["en-GB", "ja-JP"])
def test_a_rules_page_per_game_and_language(
    new_context: Callable[..., BrowserContext], game: str, locale: str
) -> None:
    lang = locale[:2]
    for size, viewport in (("desktop", None), ("phone", PHONE)):
        context = (
            new_context(locale=locale)
            if viewport is None
            else new_context(viewport=viewport, locale=locale)
        )
        page = context.new_page()
        errors = watch_errors(page)
        page.goto(f"/rules/{game}")
        expect(page.locator("html")).to_have_attribute("lang", lang)
        for section in SECTIONS[game]:
            expect(page.locator(f"section#{section} h2")).to_be_visible()
            expect(page.locator(f".toc a[href='#{section}']")).to_have_count(1)
        text = page.locator("article.rules").inner_text()
        assert "{" not in text and "opt." not in text and "tip." not in text  # no raw keys
        screenshot(page, f"rules-{game}-{lang}-{size}")
        assert errors == []
    if game == "famiglia":
        mercenary = page.locator("section#recruit")
        expect(mercenary).to_contain_text("another family" if lang == "en" else "別種")
        expect(page.locator("section#options")).to_contain_text("mercenary_for_green")
    else:
        expect(page.locator("section#resources dt")).to_have_count(12)
        expect(page.locator("section#resources")).to_contain_text(
            "Police station" if lang == "en" else "警察署"
        )
        expect(page.locator("section#rewards dt")).to_have_count(7)


def test_linked_from_the_start_page_and_the_game_page(
    container: Container,
    new_context: Callable[..., BrowserContext],
) -> None:
    page = new_context().new_page()
    page.goto("/")
    page.get_by_role("link", name="Rules of Gangsta!").click()
    expect(page.locator("h1")).to_have_text("Rules of Gangsta!")
    game_id = container.commands.create_game("famiglia", 2)
    page.goto(f"/play/{game_id}")
    page.locator("#rules-link").click()
    expect(page.locator("h1")).to_have_text("Rules of Famiglia")


def test_an_unknown_game_has_no_rules_page(new_context: Callable[..., BrowserContext]) -> None:
    page = new_context().new_page()
    response = page.goto("/rules/chess")
    assert response is not None and response.status == 404
