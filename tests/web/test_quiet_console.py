"""Normal use leaves the browser's console clean: no script error, no ``console.error`` and no
failed request logged, for a visitor without a player on every page, for a new player (no email
address yet) on every page, and for a refused webhook URL (a message on the page; the refused
request is the only line the browser itself logs: the API answers a refusal with a 4xx)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest
from playwright.sync_api import BrowserContext, ConsoleMessage, Page, Request, Response, expect

from bootstrap import Container
from tests.web.flows import sign_up

SETTLE_S = 15.0
PAGES = [
    "/",
    "/new",
    "/games-open",
    "/your-turn",
    "/notifications",
    "/email",
    "/devices",
    "/vacation",
    "/signin",
    "/rankings/famiglia",
    "/rules/famiglia",
]


@dataclass
class Console:
    """What the page logs and which of its requests fail; ``pending`` the requests under way
    (the live streams aside: they stay open)."""

    errors: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    pending: set[Request] = field(default_factory=set)

    def watch(self, page: Page) -> None:
        page.on("pageerror", lambda exc: self.errors.append(f"pageerror: {exc}"))
        page.on("console", self._console)
        page.on("response", self._response)
        page.on("request", self._request)
        page.on("requestfinished", lambda request: self.pending.discard(request))
        page.on("requestfailed", lambda request: self.pending.discard(request))

    def _console(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            self.errors.append(f"{message.text} ({message.location.get('url')})")

    def _response(self, response: Response) -> None:
        if response.status >= 400:
            self.failed.append(f"{response.request.method} {response.url} {response.status}")

    def _request(self, request: Request) -> None:
        if not request.url.endswith("/events") and "/events?" not in request.url:
            self.pending.add(request)

    def settle(self, page: Page) -> None:
        """Until the page knows its player (``Omerta.me``) and its requests are answered."""
        page.evaluate("() => Omerta.me().catch(() => null)")
        deadline = time.monotonic() + SETTLE_S
        while self.pending:
            assert time.monotonic() < deadline, f"requests never answered: {self.pending}"
            page.wait_for_timeout(50)


def visit_every_page(page: Page, console: Console, game_id: str) -> None:
    for path in [*PAGES, f"/play/{game_id}", f"/play/{game_id}/replay"]:
        page.goto(path)
        console.settle(page)


@pytest.fixture
def watched_game(container: Container) -> str:
    """A game of two AI seats, any visitor's to watch."""
    return container.commands.create_game("famiglia", 2, ai={0: "greedy", 1: "greedy"})


def test_a_visitor_without_a_player_sees_every_page_with_a_clean_console(
    new_context: Callable[..., BrowserContext], watched_game: str
) -> None:
    page = new_context().new_page()
    console = Console()
    console.watch(page)
    visit_every_page(page, console, watched_game)
    page.goto("/")
    expect(page.get_by_label("Your name")).to_be_visible()  # the page knows: no player here
    assert (console.errors, console.failed) == ([], [])


def test_a_new_player_without_an_address_sees_every_page_with_a_clean_console(
    new_context: Callable[..., BrowserContext], watched_game: str
) -> None:
    page = new_context().new_page()
    console = Console()
    console.watch(page)
    sign_up(page, "Quinn")
    visit_every_page(page, console, watched_game)
    page.goto("/email")
    expect(page.locator("#email-state")).to_have_text(
        "No address yet. With one, you can sign in on another device by a mailed link."
    )
    assert (console.errors, console.failed) == ([], [])


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_refused_webhook_url_is_a_message_not_an_error(
    new_context: Callable[..., BrowserContext], lang: str
) -> None:
    page = new_context().new_page()
    console = Console()
    console.watch(page)
    sign_up(page, "Rei")
    page.goto(f"/language/{lang}?next=/notifications")
    expect(page.locator("#hooks-panel")).to_be_visible()
    page.locator("#hook-url").fill("http://127.0.0.1:9/x")
    page.locator("#hook-form button[type=submit]").click()
    refusal = {"en": "private", "ja": "プライベート"}[lang]
    expect(page.locator("#toast")).to_contain_text(refusal)
    console.settle(page)
    # The browser's own line for the refused request, and nothing else.
    assert len(console.failed) == 1, console.failed
    assert console.failed[0].startswith("POST "), console.failed
    assert console.failed[0].endswith("/me/webhooks 400"), console.failed
    (logged,) = console.errors
    assert logged.startswith("Failed to load resource") and "/me/webhooks" in logged, logged
