"""A live stream refused (a full process's 503 ``streams_full``, a 429, a restart's 5xx) is
opened again a few seconds later, by every page the same way (``Omerta.keepStream``): the
browser retries a dropped stream by itself but not a refused one, and the chat's stream of a
finished game stayed closed for good."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from playwright.sync_api import BrowserContext, Page, Route, expect

from tests.web.flows import shown_version, wait_past, watch_errors
from tests.web.test_chat import pass_to_the_end, say, two_players


def refused_once_then_reopened(
    page: Page, stream: re.Pattern[str], load: Callable[[], None]
) -> None:
    """Answers the page's first request for the ``stream`` as a full process does and lets the
    next through; returns once ``load`` has asked for it and the page has asked again."""
    refused: list[str] = []

    def refuse_the_first(route: Route) -> None:
        if refused:
            route.continue_()
            return
        refused.append(route.request.url)
        route.fulfill(
            status=503,
            headers={"Retry-After": "1"},
            content_type="application/problem+json",
            body=json.dumps({"status": 503, "code": "streams_full"}),
        )

    page.route(stream, refuse_the_first)
    with page.expect_request(lambda r: bool(stream.search(r.url))):
        load()
    with page.expect_request(lambda r: bool(stream.search(r.url))):  # a few seconds later
        pass
    assert len(refused) == 1


def test_a_finished_games_chat_stream_refused_once_is_opened_again(
    new_context: Callable[..., BrowserContext],
) -> None:
    game_id, alice, bob = two_players(new_context)
    pass_to_the_end(alice, bob)
    errors = watch_errors(alice, expected="503")
    chat = re.compile(rf"/games/{game_id}/events\?.*chat=")
    refused_once_then_reopened(alice, chat, alice.reload)
    alice.evaluate("window.__notReloaded = true")
    say(bob, "still there?")
    expect(alice.locator("#chat-log li .text")).to_have_text(["still there?"])
    assert alice.evaluate("() => window.__notReloaded")
    assert errors == []


def test_a_games_stream_refused_once_is_opened_again(
    new_context: Callable[..., BrowserContext],
) -> None:
    game_id, alice, bob = two_players(new_context)
    errors = watch_errors(alice, expected="503")
    game = re.compile(rf"/games/{game_id}/events\?after=\d+$")
    refused_once_then_reopened(alice, game, alice.reload)
    pass_to_the_end(alice, bob)  # the other's move, then the result, come live
    assert errors == []


def test_the_players_stream_refused_once_is_opened_again(
    new_context: Callable[..., BrowserContext],
) -> None:
    _, alice, bob = two_players(new_context)
    if not alice.locator("#prompt .ask").count():  # Alice's turn: a game waits for her
        before = shown_version(alice)
        bob.locator("[data-action=pass]").click()
        wait_past(alice, before)
    errors = watch_errors(alice, expected="503")
    refused_once_then_reopened(alice, re.compile(r"/me/events$"), alice.reload)
    expect(alice.locator("#inbox-count")).to_have_text("1")
    assert errors == []
