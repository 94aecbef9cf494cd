"""Dates and times look the same on every page of a language, in Chromium: "7 Dec 2026, 14:30"
in English and "2026年12月7日 14:30" in Japanese (a 24-hour time, never a day/month order to
misread), the time alone for a chat line of today, the day alone on the server-drawn profile.

Every date a page shows is a ``<time>`` element whose ``datetime`` is the instant (or the day):
the test reads each page's (the start page's game list, a game's chat, the notifications
page's failed webhook, the devices and vacation pages, the profile), checks the text against
the language's format computed here from that attribute, in the browser's time zone."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, datetime, timedelta, timezone

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from services.notify import notifications as nt
from services.notify import webhooks
from services.platform.embedded import EmbeddedServer
from tests.web.flows import sign_up

ZONE = "Asia/Tokyo"  # the browser's: not the server's UTC, and no summer time
OFFSET = timezone(timedelta(hours=9))
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
FAILED_AT = 1_700_000_000_000  # 2023-11-14 22:13:20 UTC: 15 Nov 2023, 07:13 in Tokyo
# Whatever a page shows in the other styles: 07/12/2026, 12/7/2026, 2:35:55 PM, 午後.
OTHER_STYLES = re.compile(r"\d{1,2}/\d{1,2}/\d{2,4}|\d:\d\d:\d\d|\b[AP]M\b|午前|午後")


def day_text(day: date, lang: str) -> str:
    if lang == "ja":
        return f"{day.year}年{day.month}月{day.day}日"
    return f"{day.day} {MONTHS[day.month - 1]} {day.year}"


def expected(attr: str, lang: str, time_only_today: bool) -> str:
    """The text of a ``<time datetime=attr>`` in ``lang``."""
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", attr):
        return day_text(date.fromisoformat(attr), lang)
    at = datetime.fromisoformat(attr.replace("Z", "+00:00")).astimezone(OFFSET)
    clock = f"{at:%H:%M}"
    if time_only_today and at.date() == datetime.now(OFFSET).date():
        return clock
    return (
        f"{day_text(at.date(), lang)} {clock}"
        if lang == "ja"
        else f"{day_text(at.date(), lang)}, {clock}"
    )


def shown_times(page: Page, where: str) -> list[tuple[str, str]]:
    """(datetime, text) of each ``<time>`` in ``where``, once there is one."""
    expect(page.locator(f"{where} time").first).to_be_visible()
    found = page.locator(f"{where} time").evaluate_all(
        "els => els.map(e => [e.getAttribute('datetime'), e.textContent])"
    )
    return [(a, t) for a, t in found]


def check(page: Page, where: str, lang: str, time_only_today: bool = False) -> int:
    times = shown_times(page, where)
    for attr, text in times:
        assert text == expected(attr, lang, time_only_today), (page.url, attr, text)
    assert not OTHER_STYLES.search(page.locator("main").inner_text()), page.url
    return len(times)


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_every_page_shows_dates_in_the_languages_one_format(
    new_context: Callable[..., BrowserContext], embedded_server: EmbeddedServer, lang: str
) -> None:
    # A browser whose own style is month/day and a 12-hour clock.
    page = new_context(locale="en-US", timezone_id=ZONE).new_page()
    sign_up(page, "Dana")
    page.goto(f"/language/{lang}?next=/")
    me = page.evaluate("() => Omerta.me()")
    # No call to the hook: a real one (the AI's move makes it Dana's turn) would record a
    # failure of its own over the one written below, at today's date.
    embedded_server.client().hset(
        nt.prefs_key(me["id"]), mapping={f"webhook.{event}": "0" for event in nt.EVENTS}
    )
    made = page.evaluate(
        "() => Omerta.create('/games', {game: 'famiglia', seats: 2, ai: {'1': 'greedy'}})"
    )
    game_id = made["game_id"]
    hook = page.evaluate(
        "() => Omerta.create('/me/webhooks', {url: 'https://hooks.example.org/d'})"
    )
    failure = webhooks.WebhookFailure(FAILED_AT, "dns", None, False)
    webhooks.Webhooks(embedded_server.client()).failed(me["id"], hook["id"], failure)
    page.evaluate("() => Omerta.api('POST', '/me/signin')")  # the devices page: "link made on"
    page.evaluate("() => Omerta.api('POST', '/me/vacation', {days: 3})")

    shown = 0
    page.goto("/")
    shown += check(page, "#my-games", lang)
    page.goto(f"/play/{game_id}")
    page.locator("#chat-text").fill("hello")
    page.locator("#chat-text").press("Enter")
    shown += check(page, "#chat-log", lang, time_only_today=True)
    assert re.fullmatch(r"\d\d:\d\d", page.locator("#chat-log time").first.inner_text())
    page.goto("/notifications")
    shown += check(page, ".hook-failure", lang)
    literal = {"en": "15 Nov 2023, 07:13", "ja": "2023年11月15日 07:13"}[lang]
    expect(page.locator(".hook-failure time")).to_have_text(literal)
    page.goto("/devices")
    shown += check(page, "main", lang)
    page.goto("/vacation")
    shown += check(page, "#vacation-state", lang)
    page.goto(f"/profile/{me['id']}")
    shown += check(page, "#games", lang)
    assert shown >= 6
