"""Famiglia's step-by-step moves on boards set up by hand: the page's own GameUI builds each
command from the legal moves given to it, and sends exactly the one the clicks chose."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from bootstrap import Container
from tests.web.flows import watch_errors

# Draws GameUI's prompt and board into the page for a made-up view and legal moves; every
# command sent is kept in window.sent instead of going to the server.
HARNESS = """([view, legal]) => {
  window.sent = [];
  const box = document.getElementById("main");
  const ctx = { view, legal, seat: 0, names: ["Ann", "Ben"], version: 1,
                send: (c) => window.sent.push(c), redraw: () => draw() };
  function draw() {
    box.replaceChildren(
      Omerta.el("section", { id: "h-prompt" }, GameUI.prompt(ctx)),
      Omerta.el("section", { id: "h-board" }, GameUI.board(ctx).filter(Boolean)));
  }
  GameUI.reset();
  draw();
}"""


def board(street: list[tuple[str, int]], hand: list[str], area: list[str]) -> dict[str, Any]:
    return {
        "seat": 0,
        "phase": "recruit",
        "to_move": 0,
        "turn": 3,
        "deck_size": 20,
        "deck_pass": 1,
        "final_turns": None,
        "street": [{"card": c, "rank": r} for c, r in street],
        "discard": [],
        "areas": [area, []],
        "hand_sizes": [len(hand), 4],
        "hand": hand,
    }


@pytest.fixture
def harness(container: Container, page: Page) -> Iterator[Page]:
    """A Famiglia page of the live server (its scripts loaded), emptied for the harness; no
    script error may happen meanwhile."""
    errors = watch_errors(page)
    game_id = container.commands.create_game("famiglia", 2)
    page.goto(f"/play/{game_id}/replay")
    expect(page.locator("#board .card").first).to_be_visible()
    yield page
    assert errors == []


def sent(page: Page) -> list[dict[str, Any]]:
    return page.evaluate("window.sent")


def test_recruit_free_copy_or_pair(harness: Page) -> None:
    view = board([("red-2", 0), ("red-2", 2), ("blue-1", 1)], ["red-1", "red-1", "green-0"], [])
    free = {"type": "recruit", "card": "red-2", "to_area": None, "back_to_hand": None}
    paired = {"type": "recruit", "card": "red-2", "to_area": "red-1", "back_to_hand": "red-1"}
    legal = [free, paired, {"type": "pass"}]
    for choice, expected in (("free", free), ("red-1+red-1", paired)):
        harness.evaluate(HARNESS, [view, legal])
        harness.locator("[data-action=recruit]").click()
        street = harness.locator("#h-board .zone-street button.pickable")
        expect(street).to_have_count(2)  # both copies of red-2; blue-1 cannot be recruited
        street.first.click()
        expect(harness.locator("#h-prompt .ask")).to_have_text("Choose the two cards to show.")
        harness.locator(f"#h-prompt button[data-pair='{choice}']").click()
        assert sent(harness) == [expected]  # identical pair: nothing left to choose


def test_recruit_with_a_mercenary_asks_which_card_goes_to_the_area(harness: Page) -> None:
    view = board([("red-3", 3)], ["red-2", "green-3", "green-4"], [])
    legal = [
        {"type": "recruit", "card": "red-3", "to_area": a, "back_to_hand": b}
        for a, b in (
            ("red-2", "green-3"),
            ("green-3", "red-2"),
            ("red-2", "green-4"),
            ("green-4", "red-2"),
        )
    ] + [{"type": "pass"}]
    harness.evaluate(HARNESS, [view, legal])
    harness.locator("[data-action=recruit]").click()
    harness.locator("#h-board .zone-street button.pickable").click()
    expect(harness.locator("#h-prompt button.pair")).to_have_count(2)
    harness.locator("#h-prompt button[data-pair='green-4+red-2']").click()
    ask = harness.locator("#h-prompt .ask")
    expect(ask).to_contain_text("Which of the two goes to your area?")
    harness.locator("#h-prompt button.to-area[data-card='green-4']").click()
    assert sent(harness) == [legal[3]]


def test_brute_card_target_amount_and_cancel(harness: Page) -> None:
    view = board([("red-3", 3), ("blue-1", 1)], ["yellow-2", "red-0"], [])
    legal = [
        {"type": "play_brute", "card": "yellow-2", "target": t, "amount": n}
        for t, n in (("red-3", 1), ("red-3", 2), ("blue-1", 1))
    ] + [{"type": "pass"}]
    harness.evaluate(HARNESS, [view, legal])
    harness.locator("[data-action=play_brute]").click()
    expect(harness.locator("#h-board .zone-street button.pickable")).to_have_count(0)
    harness.locator("#h-board .zone-hand button.pickable").click()  # only yellow-2
    harness.get_by_role("button", name="Cancel").click()  # back to the choice of action
    expect(harness.locator("[data-action=play_brute]")).to_be_visible()
    harness.locator("[data-action=play_brute]").click()
    harness.locator("#h-board .zone-hand button.pickable").click()
    harness.locator("#h-board .zone-street button.pickable[data-card='red-3']").click()
    harness.get_by_role("button", name="Lower by 2").click()
    assert sent(harness) == [legal[1]]


def test_accountant_exchange_then_end(harness: Page) -> None:
    view = dict(board([("red-3", 3)], ["red-1", "green-2"], ["blue-2", "red-2"]), phase="swap")
    legal = [
        {"type": "end_swaps"},
        {"type": "swap", "hand_card": "red-1", "area_card": "red-2"},
        {"type": "swap", "hand_card": "green-2", "area_card": "red-2"},
    ]
    harness.evaluate(HARNESS, [view, legal])
    expect(harness.locator("#h-prompt .ask")).to_contain_text("exchange a hand card")
    harness.locator("#h-board .zone-hand button.pickable[data-card='green-2']").click()
    area = harness.locator("#h-board .zone-area button.pickable")
    expect(area).to_have_count(1)  # the Accountant just played (blue-2) is not offered
    area.click()
    assert sent(harness) == [legal[2]]
    harness.locator("[data-action=end_swaps]").click()
    assert sent(harness) == [legal[2], legal[0]]
