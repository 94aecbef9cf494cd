"""Counts, lists and names stay true while a page is open, in two browsers: the log names a
seat once it is taken, the start page's list and the header's count follow the opponent's
moves and the end of the game (a finished game shows its result), and seats are told apart."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from playwright.sync_api import BrowserContext, Locator, Page, expect

from tests.web.flows import sign_up, watch_errors


def call(page: Page, method: str, path: str, body: Any = None) -> Any:
    return page.evaluate("([m, p, b]) => Omerta.api(m, p, b ?? undefined)", [method, path, body])


def mark(page: Page) -> None:
    page.evaluate("window.__notReloaded = true")


def not_reloaded(page: Page) -> bool:
    return bool(page.evaluate("window.__notReloaded === true"))


def famiglia_for_the_open_seat_first(page: Page) -> tuple[str, str, int]:
    """A Famiglia game whose open seat (seat 2) moves first: the log names it at once. Also
    the number of games made on the way, where the player is to move (they count as "your
    turn" in the header)."""
    for tries in range(30):
        made = call(page, "POST", "/games", {"game": "famiglia", "seats": 2})
        game = call(page, "GET", f"/games/{made['game_id']}")
        if game["to_act"] == [1]:
            return made["game_id"], made["invites"][0]["code"], tries
    raise AssertionError("the open seat never began")


def expect_count(badge: Locator, n: int) -> None:
    if n:
        expect(badge).to_have_text(str(n))
    else:
        expect(badge).to_be_hidden()


def test_lists_and_counts_follow_the_game(new_context: Callable[..., BrowserContext]) -> None:
    alice = new_context().new_page()
    bob = new_context().new_page()
    errors = watch_errors(alice) + watch_errors(bob)
    sign_up(alice, "Alice")
    sign_up(bob, "Bob")
    game_id, invite, others = famiglia_for_the_open_seat_first(alice)

    # The log names the open seat; once Bob sits down, the same lines name him.
    alice.goto(f"/play/{game_id}")
    log = alice.locator("#log")
    expect(log).to_contain_text("Turn 1: open seat")
    mark(alice)
    call(bob, "POST", f"/games/{game_id}/join", {"invite": invite})
    expect(log).to_contain_text("Turn 1: Bob")
    expect(log).not_to_contain_text("open seat")
    assert not_reloaded(alice)

    # Alice's start page: Bob's move makes it her turn, in the list and in the header.
    alice.goto("/")
    mark(alice)
    entry = alice.locator(f"li[data-game-id='{game_id}']")
    badge = alice.locator("#inbox-count")
    expect(entry).to_contain_text("waiting for others")
    expect_count(badge, others)
    bob.goto(f"/play/{game_id}")
    bob.locator("[data-action=pass]").click()
    expect(entry).to_contain_text("your turn")
    expect_count(badge, others + 1)

    # Alice passes too (two passes in a row end the game): the list shows her result, the
    # count goes, and the finished game opens on its result, not as something to watch.
    version = call(alice, "GET", f"/games/{game_id}")["version"]
    call(
        alice,
        "POST",
        f"/games/{game_id}/commands",
        {"command": {"type": "pass"}, "expected_version": version},
    )
    result = call(alice, "GET", f"/games/{game_id}")["result"]
    winners, scores = result["winners"], " : ".join(map(str, result["scores"]))
    outcome = "draw" if len(winners) == 2 else "you won" if winners == [0] else "you lost"
    expect(entry).to_contain_text(f"{outcome} · {scores}")
    expect(entry.get_by_role("link", name="Result")).to_be_visible()
    expect(entry.get_by_role("link", name="Watch")).to_have_count(0)
    expect_count(badge, others)
    assert not_reloaded(alice)
    # The result table says what it counts; both players' totals show beside their cards.
    expect(bob.locator("#result thead th").last).to_have_text("Victory points (hand + area)")
    for seat, score in enumerate(result["scores"]):
        total = bob.locator(f"#board section.player[data-seat='{seat}'] h2 .sub")
        expect(total).to_contain_text(f"total {score} VP")
    assert errors == []


def test_seats_are_told_apart(new_context: Callable[..., BrowserContext]) -> None:
    first = new_context().new_page()
    second = new_context().new_page()
    errors = watch_errors(first) + watch_errors(second)
    sign_up(first, "Sam")
    sign_up(second, "Sam")

    # Three AI seats: three names, each with its level as a badge.
    made = call(first, "POST", "/games", {"game": "gangsta", "seats": 4, "ai": {1: 1, 2: 1, 3: 0}})
    first.goto(f"/play/{made['game_id']}")
    seats = first.locator("#seats .seat")
    expect(seats).to_have_count(4)
    bots = [seats.nth(i).inner_text() for i in (1, 2, 3)]
    assert all(re.search(r"^\d\s+\w+\s+AI · (greedy|random)", b) for b in bots), bots
    assert len(set(bots)) == 3

    # Two people of one name: each has their seat number beside it, in the log too.
    made = call(first, "POST", "/games", {"game": "famiglia", "seats": 2})
    call(second, "POST", f"/games/{made['game_id']}/join", {"invite": made["invites"][0]["code"]})
    second.goto(f"/play/{made['game_id']}")
    expect(second.locator("#seats")).to_contain_text("Sam (seat 1)")
    expect(second.locator("#seats")).to_contain_text("Sam (seat 2)")
    expect(second.locator("#log")).to_contain_text(re.compile(r"Sam \(seat [12]\) begins"))
    assert errors == []
