"""A long game's log shows every line's step number whole: three-digit numbers were clipped at
the log's left edge ("!75.", "I86."), the list's markers drawn in a margin two digits wide."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from bootstrap import Container
from tests.web.conftest import DESKTOP, PHONE, screenshot
from tests.web.flows import watch_errors
from tests.web.test_replay_whole import gangsta_played_to_the_end

# Each line's number element: its text, whether it is drawn whole (nothing of it cut off inside
# its own box) and inside the log's visible box (the log scrolls: it clips what sticks out).
NUMBERS = """() => {
  const log = document.getElementById("log");
  const box = log.getBoundingClientRect();
  const left = box.left + log.clientLeft, right = left + log.clientWidth;
  return [...log.querySelectorAll(":scope > li")].map((li) => {
    const n = li.querySelector(":scope > .step-no");
    if (!n) return null;
    const r = n.getBoundingClientRect();
    return [n.textContent, n.scrollWidth <= n.clientWidth && r.width > 0
      && r.left >= left - 0.5 && r.right <= right + 0.5];
  });
}"""


@pytest.fixture(scope="module")
def long_game(container: Container) -> str:
    """A finished Gangsta! game of three players, well over 100 lines of log."""
    return gangsta_played_to_the_end(container, 3, seed=32)


def numbers(page: Page) -> list[tuple[str, bool] | None]:
    expect(page.locator("#log li").nth(99)).to_be_attached()
    return [None if n is None else (str(n[0]), bool(n[1])) for n in page.evaluate(NUMBERS)]


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_a_long_logs_step_numbers_are_whole(
    long_game: str, new_context: Callable[..., BrowserContext], size: str
) -> None:
    phone = size == "phone"
    page = new_context(viewport=PHONE if phone else DESKTOP, mobile=phone).new_page()
    errors = watch_errors(page)
    for path in (f"/play/{long_game}", f"/play/{long_game}/replay"):
        page.goto(path)
        if path.endswith("/replay"):
            page.locator("#last").click()
            expect(page.locator("#result")).to_be_visible()
        shown = numbers(page)
        count = len(shown)
        assert count >= 100, count
        # Newest first, numbered as the list counts its lines: n, n-1, ..., 1.
        assert [n and n[0] for n in shown] == [f"{count - i}." for i in range(count)], shown[:3]
        assert [n for n in shown if n and not n[1]] == []
    page.locator("#log").scroll_into_view_if_needed()
    screenshot(page, f"log-numbers-{size}", full_page=False)
    assert errors == []
