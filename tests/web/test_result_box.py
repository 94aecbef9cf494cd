"""A finished game's result box on the game page and the replay, in English and Japanese: nothing
but the result in it (no stray "null" line), an agreed draw with no winner's star, a seat that
took no decision with no accuracy figure, and the Gangsta! table readable from a phone to a
desktop, its headers, names and numbers never split mid-word."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from bootstrap import Container
from services.identity.players import Players
from tests.web.conftest import screenshot
from tests.web.flows import reload_until, sign_up, split_words, watch_errors
from tests.web.test_ending_moves import new_game, play
from tests.web.test_review_page import reviewed
from tests.workers.test_ratings import play_to_the_end

PAGES = ("/play/{}", "/play/{}/replay#v=100000")  # the replay at its last step
LOCALES = ("en-GB", "ja-JP")


def result_lines(page: Page) -> list[str]:
    expect(page.locator("#result table.scores")).to_be_visible()
    return [line.strip() for line in page.locator("#result").inner_text().split("\n")]


@pytest.mark.parametrize("locale", LOCALES)
def test_the_result_box_holds_the_result_alone(
    container: Container, new_context: Callable[..., BrowserContext], locale: str
) -> None:
    page = new_context(locale=locale).new_page()
    errors = watch_errors(page)
    page.goto("/")
    game_id = famiglia_conceded_at_once(container, page)
    for path in PAGES:
        page.goto(path.format(game_id))
        lines = result_lines(page)
        assert "null" not in lines and "undefined" not in lines, lines
    assert errors == []


def famiglia_conceded_at_once(container: Container, page: Page) -> str:
    """A Famiglia game of the page's player (seat 0, signed up first), conceded by its first
    seat to act before any move."""
    if not page.request.get("/me").ok:  # not the page's fetch: a 401 there is logged
        assert page.request.post("/players", data={"name": "Nola"}).ok
    game_id = new_game(page, "famiglia")
    loaded = container.commands.load(game_id)
    play(container, game_id, min(loaded.game.to_act(loaded.state)), {"type": "concede"})
    return game_id


@pytest.mark.parametrize("locale", LOCALES)
def test_an_agreed_draw_has_no_winner(
    container: Container, new_context: Callable[..., BrowserContext], locale: str
) -> None:
    page = new_context(locale=locale).new_page()
    errors = watch_errors(page)
    page.goto("/")
    assert page.request.post("/players", data={"name": "Dora"}).ok
    game_id = new_game(page, "famiglia")
    play(container, game_id, 1, {"type": "offer_draw"})
    play(container, game_id, 0, {"type": "accept_draw"})
    for path in PAGES:
        page.goto(path.format(game_id))
        result_lines(page)
        expect(page.locator("#result tbody tr")).to_have_count(2)
        expect(page.locator("#result tr.winner")).to_have_count(0)
        assert "★" not in page.locator("#result").inner_text()
    assert errors == []


def test_a_seat_without_a_decision_has_no_accuracy(container: Container, page: Page) -> None:
    """A concession before any move: neither seat decided anything, so neither has an accuracy
    (null in the API), in the result, the review's summary and the player's page."""
    errors = watch_errors(page)
    sign_up(page, "Quinn")
    game_id = famiglia_conceded_at_once(container, page)
    me = page.evaluate("() => fetch('/me').then(r => r.json())")["id"]
    review = reviewed(page, game_id)
    assert [(p["decisions"], p["accuracy"]) for p in review["players"]] == [(0, None), (0, None)]
    games = page.request.get(f"/players/{me}").json()["games"]
    assert [g["accuracy"] for g in games if g["game_id"] == game_id] == [None]
    for path in PAGES:
        page.goto(path.format(game_id))
        cells = page.locator("#result td.accuracy")
        expect(cells).to_have_count(2)
        expect(cells).to_have_text(["", ""])
    summary = page.locator("#review .review-summary tbody tr")
    expect(summary).to_have_count(2)
    for row in summary.all():
        expect(row.locator("td").first).to_have_text("")
    row = page.locator(f"#games tr:has(a[href='/play/{game_id}'])")
    reload_until(page, f"/profile/{me}", row)
    expect(row.locator("td.num")).to_have_text("")
    assert errors == []


# The names of a Gangsta! table: words long enough to split in a narrow column.
LONG_NAMES = ("Bob Gangsta", "Maximiliana Bartholomew-Fitzgerald")


@pytest.fixture(scope="module")
def gangsta_of_long_names(container: Container) -> str:
    """A Gangsta! game of two people with long names, played to its end by random moves."""
    players = Players(container.commands.store.redis)
    first, second = (players.create(name)[0].id for name in LONG_NAMES)
    game_id = container.commands.create_game("gangsta", 2)
    invites = players.open_table(game_id, 0, [0, 1], first, 0, public=False)
    players.join(game_id, second, invites[1])
    play_to_the_end(container.commands, game_id, random.Random(5), prefix="long-")
    return game_id


@pytest.mark.parametrize(
    ("locale", "width"),
    # Phones; a box wide enough for the table's columns; the desktop's, beside the log.
    [("en-GB", 390), ("ja-JP", 360), ("en-GB", 1090), ("en-GB", 1280), ("ja-JP", 1280)],
)
def test_the_gangsta_result_table_reads_on_a_phone_and_a_desktop(
    gangsta_of_long_names: str,
    new_context: Callable[..., BrowserContext],
    locale: str,
    width: int,
) -> None:
    page = new_context(viewport={"width": width, "height": 900}, locale=locale).new_page()
    errors = watch_errors(page)
    for path in PAGES:
        page.goto(path.format(gangsta_of_long_names))
        result_lines(page)
        expect(page.locator("#result tbody tr")).to_have_count(2)
        words, split = split_words(page, "#result table.scores :is(th, td)")
        assert words >= {"Bob", "Gangsta", "Maximiliana", "Bartholomew-", "Fitzgerald"}
        assert split == []
        box = page.locator("#result").bounding_box()  # 842 to 1,016 px on a phone before
        assert box is not None and box["height"] <= 700, box
        assert page.evaluate("document.documentElement.scrollWidth") <= width
    screenshot(page, f"result-gangsta-{locale[:2]}-{width}")
    assert errors == []
