"""What a person does on the pages, step by step, shared by the browser tests."""

from __future__ import annotations

import re
import time

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Locator, Page, expect

from tests.web.conftest import screenshot


def watch_errors(page: Page, expected: str | None = None) -> list[str]:
    """Collects the page's script errors (a test asserts the list stays empty). The browser
    also logs failed requests: none fails in normal use, but those with an ``expected`` status
    (a test's own refused request) are not errors."""
    failed_as_expected = re.compile(rf"status of ({expected}) ") if expected else None
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on(
        "console",
        lambda m: (
            errors.append(m.text)
            if m.type == "error" and not (failed_as_expected and failed_as_expected.search(m.text))
            else None
        ),
    )
    return errors


def sign_up(page: Page, name: str) -> None:
    page.goto("/")
    page.get_by_label("Your name").fill(name)
    page.get_by_role("button", name="Start playing").click()
    expect(page.locator("#hello-title")).to_have_text(f"Welcome, {name}")


def create_game(
    page: Page,
    game: str,
    seats: list[str],
    options: dict[str, bool] | None = None,
    public: bool = False,
    shot: str | None = None,
) -> tuple[str, list[str]]:
    """Create a game on the new-game page. ``seats`` names seats 2.. (``ai-1`` greedy,
    ``ai-0`` random, ``friend``); ``options`` switches are set in the "custom" rules. Returns
    the game id and the invite links (a game without friends opens at once, no links)."""
    page.goto("/new")
    page.get_by_label(game).check()
    page.get_by_label("Players", exact=True).select_option(str(len(seats) + 1))
    for seat, choice in enumerate(seats, start=1):
        page.locator(f"#seat-{seat}").select_option(choice)
    if options:
        page.locator("#preset-custom").check()
    for key, value in (options or {}).items():
        page.locator(f"#opt-{key}").set_checked(value)
    if public:
        page.locator("#public").check()
    if shot:
        screenshot(page, shot)
    page.get_by_role("button", name="Create the game").click()
    links: list[str] = []
    if "friend" in seats:
        expect(page.locator("#created")).to_be_visible()
        if shot:
            screenshot(page, shot + "-created")
        links = [i.input_value() for i in page.locator("#invites input").all()]
        page.locator("#go-play").click()
    page.wait_for_url(re.compile(r"/play/[^/]+$"))
    expect(page.locator("#board section").first).to_be_visible()
    return page.url.rsplit("/", 1)[1], links


def shown_version(page: Page) -> int:
    """The game version the page shows now."""
    return int(page.evaluate("Number(document.body.dataset.version || 0)"))


# Predicates of page.wait_for_function are functions ("() => ..."), never bare expressions:
# Playwright evals those inside the page, which the Content-Security-Policy forbids.


def wait_past(page: Page, version: int) -> None:
    """Until the page shows a version of the game newer than ``version`` (no reload involved:
    the page follows the game's events). A move that ends the game is confirmed when the page
    asks (the person meant it: the tests of that question are in test_ending_moves.py)."""
    try:
        page.wait_for_function(
            "v => Number(document.body.dataset.version || 0) > v"
            " || document.querySelector('dialog.confirm[open]') !== null",
            arg=version,
            timeout=30_000,
        )
        if page.locator("dialog.confirm[open]").count():
            page.locator("dialog.confirm [data-answer=yes]").click()
            page.wait_for_function(
                "v => Number(document.body.dataset.version || 0) > v", arg=version, timeout=30_000
            )
    except PlaywrightError:
        prompt = page.locator("#prompt").inner_text()
        raise AssertionError(f"the game stayed at version {version}; prompt: {prompt!r}") from None


def my_turn_or_over(page: Page) -> str:
    """Waits until the page asks this player for a move ("turn") or shows the result
    ("over"); an AI opponent's move comes from the worker process meanwhile."""
    try:
        page.wait_for_function(
            "() => !document.getElementById('result').hidden"
            " || document.querySelector('#prompt .ask') !== null",
            timeout=30_000,
        )
    except PlaywrightError:
        prompt = page.locator("#prompt").inner_text()
        raise AssertionError(f"no move asked for and no result; prompt: {prompt!r}") from None
    return "over" if page.locator("#result").is_visible() else "turn"


# What a worker projects (lists, ratings) shows within this, even on a busy machine.
PROJECTED_MS = 20_000


def reload_until(page: Page, path: str, shown: Locator) -> None:
    """Opens ``path`` and reloads it until ``shown`` is there: a page drawn on the server from
    what a worker projects (ratings) has it a moment after the game ended."""
    deadline = time.monotonic() + PROJECTED_MS / 1000
    page.goto(path)
    while not shown.count():
        assert time.monotonic() < deadline, f"{path} never showed {shown}"
        page.reload()


# Each word of the cells under a selector (a run of letters, digits and signs up to a space or
# a hyphen, where a line may break; Japanese text, which may break between any two characters,
# aside) with the number of lines it is drawn on.
_WORD_LINES = """selector => {
  const cjk = /[\\u3000-\\u9fff\\uff00-\\uffef]/;
  const found = [];
  for (const cell of document.querySelectorAll(selector)) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const word of node.data.matchAll(/[^\\s-]+-?|-/g)) {
        if (cjk.test(word[0])) continue;
        const range = document.createRange();
        range.setStart(node, word.index);
        range.setEnd(node, word.index + word[0].length);
        const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0)
          .map((r) => Math.round(r.top)));
        if (tops.size) found.push([word[0], tops.size]); // (not drawn: no lines)
      }
    }
  }
  return found;
}"""


def split_words(page: Page, selector: str) -> tuple[set[str], list[tuple[str, int]]]:
    """The words drawn in the cells ``selector`` finds, and those split over several lines
    (with their line counts): a header, a name or a number broken mid-word."""
    words = [(str(w), int(n)) for w, n in page.evaluate(_WORD_LINES, selector)]
    return {w for w, _ in words}, [(w, n) for w, n in words if n != 1]
