"""Every page fits a 360 px wide phone, in English and Japanese, for a visitor and for a signed-in
player whose name (and opponent's) is 40 characters without a space: nothing scrolls sideways
(``/new`` was 504 px wide at 390 px, the start page 752 px with such a name)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from playwright.sync_api import APIRequestContext, BrowserContext, Page, expect

from bootstrap import Container
from tests.web.conftest import PHONE
from tests.web.flows import PROJECTED_MS, reload_until, watch_errors
from tests.web.test_ending_moves import play

NARROW = {"width": 360, "height": 740}
LONG = "Vittorio" * 5
OTHER = "Constantinople" * 2 + "Montepulciano"[:12]


def post(request: APIRequestContext, path: str, body: dict[str, Any]) -> Any:
    answer = request.post(path, data=body)
    assert answer.ok, (path, answer.status, answer.text())
    return answer.json()


def player(context: BrowserContext, name: str) -> tuple[Page, str]:
    page = context.new_page()
    page.goto("/")  # the origin, for the API's cookie
    return page, post(page.request, "/players", {"name": name})["id"]


def fits(page: Page, lang: str, pages: dict[str, str]) -> list[str]:
    """The pages (path: a selector of what its script draws) wider than the screen."""
    page.goto(f"/language/{lang}?next=/")
    wide = []
    for path, ready in pages.items():
        page.goto(path)
        expect(page.locator(ready).first).to_be_visible(timeout=PROJECTED_MS)
        width = page.evaluate("document.documentElement.scrollWidth")
        if width > NARROW["width"]:
            wide.append(f"{lang} {path}: {width} px")
    return wide


def test_every_page_fits_360_px(
    container: Container, new_context: Callable[..., BrowserContext]
) -> None:
    mine, me = player(new_context(viewport=NARROW), LONG)
    theirs, _ = player(new_context(viewport=NARROW), OTHER)
    errors = watch_errors(mine, expected="401|404|410")  # a visitor; the bad links; no game

    def two_player_game() -> tuple[str, str]:
        made = post(mine.request, "/games", {"game": "famiglia", "seats": 2})
        code = made["invites"][0]["code"]
        post(theirs.request, f"/games/{made['game_id']}/join", {"invite": code})
        return made["game_id"], code

    running, _ = two_player_game()
    drawn, _ = two_player_game()
    play(container, drawn, 1, {"type": "offer_draw"})
    play(container, drawn, 0, {"type": "accept_draw"})
    ai = {"1": 1, "2": 1, "3": 0}
    gangsta = post(mine.request, "/games", {"game": "gangsta", "seats": 4, "ai": ai})["game_id"]
    public = post(theirs.request, "/games", {"game": "famiglia", "seats": 2, "public": True})
    invite = f"/play/{public['game_id']}/join#invite={public['invites'][0]['code']}"
    reload_until(mine, f"/profile/{me}", mine.locator(f"#games a[href='/play/{drawn}']"))

    everyone = {
        "/games-open": f"li[data-game-id='{public['game_id']}']",
        "/rules/famiglia": "h1",
        "/rules/gangsta": "h1",
        "/rankings/famiglia": f"a[href='/profile/{me}']",
        f"/profile/{me}": f"#games a[href='/play/{drawn}']",
        f"/play/{running}": "#board section",
        f"/play/{gangsta}": "#board section",
        f"/play/{drawn}": "#result table",
        f"/play/{running}/replay": "#board section",
        invite: "#join-form button",
        "/email/verify/used": "h1",
        "/signin/email/used": "h1",
        "/mail/unsubscribed": "h1",
        "/play/nowhere": "h1",
    }
    signed_in = {
        "/": f"#my-games li[data-game-id='{running}']",
        "/new": "#seat-rows select",
        "/your-turn": "#inbox :is(li, .empty)",  # whose turn it is first is dealt
        "/devices": "#devices-panel",
        "/email": "#mine",
        "/notifications": "#prefs-panel",
        "/vacation": "#vacation-panel",
    }
    visitor = {
        "/": "#name",
        "/new": "#need-name",
        "/your-turn": "#inbox p",
        "/devices": "#devices-none",
        "/email": "#signin",
        "/notifications": "#notify-none",
        "/vacation": "#vacation-none",
        "/signin": "#passkey-signin",
    }
    stranger = new_context(viewport=NARROW).new_page()
    wide = []
    for lang in ("en", "ja"):
        wide += fits(mine, lang, everyone | signed_in)
        wide += fits(stranger, lang, everyone | visitor)
    assert not wide, "\n".join(wide)
    assert errors == []


def test_the_api_page_fits_a_phone(new_context: Callable[..., BrowserContext]) -> None:
    """/docs in a phone's browser: laid out for the phone's width (it was 980 px wide), and
    its long names and tables wrap or scroll within it."""
    for viewport in (NARROW, PHONE):
        page = new_context(viewport=viewport, mobile=True).new_page()
        page.goto("/docs")
        expect(page.locator("h1")).to_have_text("Omerta API")
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
