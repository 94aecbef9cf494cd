"""The leaderboard and a player's page with its rating plot, in English and Japanese, on a
desktop and a phone, reached with the keyboard; the game page's seats link to the players'."""

from __future__ import annotations

import random
import re
import secrets
from collections.abc import Callable

import pytest
from playwright.sync_api import BrowserContext, expect

from bootstrap import Container
from services.identity.players import Players
from services.readside.ratings import Ratings
from tests.web.conftest import PHONE, screenshot
from tests.web.flows import watch_errors
from tests.workers.helpers import wait
from tests.workers.test_ratings import play_to_the_end

TEXTS = {
    "en": {"title": "Leaderboard: Famiglia", "ai": "AI · greedy", "plot": "Rating over time"},
    "ja": {"title": "ランキング: ファミリア", "ai": "AI・貪欲", "plot": "レーティングの推移"},
}


@pytest.fixture(scope="module")
def rated(container: Container) -> tuple[str, str, str]:
    """Two finished Famiglia games of one player (against a person, against the greedy AI),
    rated by the worker: (the player's name, id, the first game's id)."""
    players = Players(container.commands.store.redis)
    name = f"Rita {secrets.token_hex(2)}"
    rita, other = players.create(name)[0].id, players.create("Oskar")[0].id
    games = []
    for n, ai in enumerate(({}, {1: "greedy"})):
        game_id = container.commands.create_game("famiglia", 2, ai=ai)
        humans = [0] if ai else [0, 1]
        invites = players.open_table(game_id, 0, humans, rita, 0, public=False)
        if not ai:
            players.join(game_id, other, invites[1])
        play_to_the_end(container.commands, game_id, random.Random(n), prefix=f"r{n}-")
        container.commands.notify(game_id, container.commands.load(game_id).version)
        games.append(game_id)
    ratings = Ratings(container.commands.store.redis)
    wait(lambda: "famiglia" in ratings.of(rita, ["famiglia"]) and
         ratings.of(rita, ["famiglia"])["famiglia"][0].games == 2, 30, "the ratings")  # fmt: skip
    return name, rita, games[0]


@pytest.mark.parametrize("locale", ["en-GB", "ja-JP"])
def test_the_leaderboard_and_a_player_page_with_its_plot(
    new_context: Callable[..., BrowserContext], rated: tuple[str, str, str], locale: str
) -> None:
    name, rita, first = rated
    lang = locale[:2]
    text = TEXTS[lang]
    for size, viewport in (("desktop", None), ("phone", PHONE)):
        context = (
            new_context(locale=locale)
            if viewport is None
            else new_context(viewport=viewport, locale=locale)
        )
        page = context.new_page()
        errors = watch_errors(page)
        page.goto("/")
        page.locator("nav a[href='/rankings/famiglia']").click()  # the nav's link
        expect(page.locator("h1")).to_have_text(text["title"])
        board = page.locator("#leaderboard")
        expect(board.locator("tbody tr", has_text=name)).to_have_count(1)
        # An AI level as every page shows it: its badge, the level's description its title.
        expect(board.locator("a[href='/profile/ai:greedy']")).to_have_text(text["ai"])
        if size == "desktop":
            screenshot(page, f"leaderboard-{lang}")
        link = board.get_by_role("link", name=name)
        link.focus()
        page.keyboard.press("Enter")
        expect(page).to_have_url(re.compile(f"/profile/{re.escape(rita)}$"))
        expect(page.locator("#profile-name")).to_have_text(name)
        expect(page.locator("#ratings tbody tr")).to_have_count(1)
        plot = page.locator("#plot-famiglia svg.rating-plot")
        expect(plot).to_be_visible()
        expect(plot.locator("circle.dot")).to_have_count(2)
        expect(plot.locator("text.axis-label")).to_have_count(2)
        assert text["plot"] in (plot.get_attribute("aria-label") or "")
        box = plot.bounding_box()
        assert box is not None and box["width"] <= page.viewport_size["width"]  # type: ignore[index]
        expect(page.locator(f"#games a[href='/play/{first}']")).to_have_count(1)
        expect(page.locator("#games a[href='/profile/ai:greedy']")).to_have_count(1)
        screenshot(page, f"profile-{lang}-{size}")
        assert errors == []


def test_the_game_page_links_its_seats_to_the_players_pages(
    new_context: Callable[..., BrowserContext], rated: tuple[str, str, str]
) -> None:
    _, rita, first = rated
    page = new_context().new_page()
    page.goto(f"/play/{first}")
    expect(page.locator(f"#seats a[href='/profile/{rita}']")).to_have_count(1)
    page.locator(f"#seats a[href='/profile/{rita}']").click()
    expect(page.locator("#plot-famiglia svg")).to_be_visible()


@pytest.mark.parametrize(
    ("locale", "badge", "title"),
    [
        ("en-GB", "AI · expert", "expert, searches 1 s a move"),
        ("ja-JP", "AI・上級", "上級・1手1秒の探索"),
    ],
    ids=["en", "ja"],
)
def test_an_ai_level_page_is_headed_by_its_badge(
    new_context: Callable[..., BrowserContext], locale: str, badge: str, title: str
) -> None:
    """An AI level's page names it as the leaderboard and the game pages do: its badge, what
    the level does the badge's title (not "AI (expert, searches 1 s a move)")."""
    page = new_context(locale=locale).new_page()
    errors = watch_errors(page)
    page.goto("/profile/ai:expert")
    heading = page.locator("#profile-name")
    expect(heading).to_have_text(badge)
    expect(heading.locator(".ai-badge")).to_have_attribute("title", title)
    assert errors == []
