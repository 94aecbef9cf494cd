"""A live service for the browser tests: the API with the web pages on a werkzeug server in a
thread, a real RQ worker process (projections, AI moves), both on the session's real server,
and Debian's Chromium driven by Playwright (never a downloaded browser).

Package scope: one service and one browser for the whole folder; every test makes its own
players and games, so tests do not see each other's moves. The worker process stops when the
folder is done, before other folders' tests use the same server.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright
from werkzeug.serving import make_server

from api import web
from api.app import create_app
from bootstrap import Container, bootstrap
from services.platform import config
from services.platform.embedded import EmbeddedServer
from tests.smtp import Inbox, smtp_server

SCREENSHOTS = Path(__file__).parent / "screenshots"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}


@pytest.fixture(scope="package")
def smtp_inbox() -> Iterator[Inbox]:
    """The SMTP server the worker sends the service's mails to."""
    with smtp_server() as inbox:
        yield inbox


@pytest.fixture(scope="package")
def container(
    embedded_server: EmbeddedServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Container]:
    """The objects of the live service (and of the tests' own moves) on the session's server,
    its data directory (the VAPID key) the tests' own."""
    patch = pytest.MonkeyPatch()
    patch.setenv("REDIS_URL", embedded_server.url)
    var = tmp_path_factory.mktemp("var")
    yield bootstrap(config.settings({**os.environ, "OMERTA_VAR": str(var)}))
    patch.undo()


@pytest.fixture(scope="package")
def live_server(
    container: Container, embedded_server: EmbeddedServer, smtp_inbox: Inbox
) -> Iterator[str]:
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # no line per request
    app = create_app(container, stream_seconds=5.0)  # short streams: the pages reconnect
    web.register(app)
    server = make_server("127.0.0.1", 0, app, threaded=True)
    # The pages' origin is localhost (WebAuthn refuses IP addresses as relying parties), and so
    # are the links the service makes (invites, mails): the public URL is this server's.
    origin = f"http://localhost:{server.server_port}"
    app.config["OMERTA_PUBLIC_URL"] = origin
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    # Reviews (asked for by the tests that show one) on a small budget: seconds, not minutes.
    env = {
        **os.environ,
        "REDIS_URL": embedded_server.url,
        "OMERTA_SMTP_URL": smtp_inbox.url,
        "OMERTA_REVIEW_ITERATIONS": "50",
    }
    worker = subprocess.Popen(
        [sys.executable, "-m", "api", "worker", "--interval", "2"],
        env=env,
        stdout=subprocess.DEVNULL,
    )
    try:
        yield origin
    finally:
        worker.terminate()
        try:
            worker.wait(15)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()
        server.shutdown()
        thread.join(10)


@pytest.fixture(scope="package")
def browser() -> Iterator[Browser]:
    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def new_context(browser: Browser, live_server: str) -> Iterator[Callable[..., BrowserContext]]:
    """Browser contexts (one per person: their own cookies), closed after the test."""
    made: list[BrowserContext] = []

    def make(
        viewport: dict[str, int] = DESKTOP,
        locale: str = "en-GB",
        mobile: bool = False,
        timezone_id: str | None = None,
    ) -> BrowserContext:
        """``mobile``: a phone's browser, which lays out a page without a viewport tag 980 px
        wide and shrinks it."""
        context = browser.new_context(
            base_url=live_server,
            viewport=viewport,
            locale=locale,
            is_mobile=mobile,
            timezone_id=timezone_id,
        )
        context.set_default_timeout(15_000)
        made.append(context)
        return context

    yield make
    for context in made:
        context.close()


@pytest.fixture
def page(new_context: Callable[..., BrowserContext]) -> Page:
    return new_context().new_page()


def screenshot(page: Page, name: str, full_page: bool = True) -> None:
    SCREENSHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=full_page)
