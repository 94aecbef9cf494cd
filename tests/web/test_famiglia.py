"""A person plays Famiglia in the browser against the greedy AI, by clicking, until the result."""

from __future__ import annotations

import json

from playwright.sync_api import Page, Route, expect

from tests.web.conftest import PHONE, screenshot
from tests.web.famiglia_turns import play_turn
from tests.web.flows import (
    create_game,
    my_turn_or_over,
    shown_version,
    sign_up,
    wait_past,
    watch_errors,
)

MAX_TURNS = 120  # decisions; the greedy AI ends a game in about 30 of our turns


def test_a_whole_game_against_the_ai(page: Page) -> None:
    errors = watch_errors(page)
    sign_up(page, "Alice")
    game_id, links = create_game(page, "Famiglia", ["ai-1"])
    assert links == []  # the only other seat is the AI's
    expect(page.locator("#seats")).to_contain_text("AI · greedy")
    screenshot(page, "famiglia-start")

    done: list[str] = []
    while my_turn_or_over(page) == "turn":
        assert len(done) < MAX_TURNS, "the game should have ended"
        if len(done) == 4:
            screenshot(page, "famiglia-midgame")
        before = shown_version(page)
        done.append(play_turn(page, done))
        wait_past(page, before)
    assert "recruit" in done

    result = page.locator("#result")
    expect(result).to_contain_text("Game over")
    expect(result.locator("table.scores tbody tr")).to_have_count(2)
    scores = [int(s) for s in result.locator("td.score").all_inner_texts()]
    api = page.request.get(f"/games/{game_id}").json()
    assert scores == api["result"]["scores"]
    bot = api["seats"][1]["name"]
    winner = "you win!" if 0 in api["result"]["winners"] else f"{bot} wins"
    expect(result.locator("h2")).to_contain_text(winner)
    expect(page.locator("#prompt")).to_have_text("The game is over.")
    # The end reveals the AI's hand (the view of a finished game holds both hands).
    sizes = page.request.get(f"/games/{game_id}/view").json()["view"]["hand_sizes"]
    expect(page.locator("#board .zone-other-hand .card")).to_have_count(sizes[1])
    expect(page.locator("#board .backs")).to_have_count(0)
    screenshot(page, "famiglia-over")

    # The replay of the finished game shows both hands, step by step.
    page.get_by_role("link", name="Replay").click()
    expect(page.locator("#step-label")).to_contain_text("Step 1 of")
    page.get_by_role("button", name="Next step").click()
    page.get_by_role("button", name="Next step").click()
    expect(page.locator("#step-label")).to_contain_text("Step 3 of")
    hidden_backs = page.locator(".card.back:not(.pile .card)")
    expect(page.locator("#board [aria-label^='Hand of'] .card")).to_have_count(8)
    assert hidden_backs.count() == 0
    page.get_by_role("button", name="Last step").click()
    expect(page.locator("#result")).to_contain_text("Game over")
    # The AI's hand, followed card by card through the history, is the hand the end revealed.
    ended = page.request.get(f"/games/{game_id}/history").json()["events"][-1]["event"]
    shown = page.locator("#board .zone-other-hand .card")
    expect(shown).to_have_count(len(ended["hands"][1]))
    assert [c.get_attribute("data-card") for c in shown.all()] == ended["hands"][1]
    screenshot(page, "famiglia-replay")
    assert errors == []


def test_a_refused_move_shows_the_rules_message(page: Page) -> None:
    """A command the rules refuse leaves the game as it was and shows the rule's message."""
    errors = watch_errors(page, expected="401|422")
    sign_up(page, "Carla")
    game_id, _ = create_game(page, "Famiglia", ["ai-0"])
    my_turn_or_over(page)
    version = page.request.get(f"/games/{game_id}").json()["version"]

    def tamper(route: Route) -> None:
        # A client's own mistake: the rank-0 Brute has no power (every starting hand holds it).
        sent = json.loads(route.request.post_data or "{}")
        sent["command"] = {"type": "play_brute", "card": "yellow-0", "target": "red-1", "amount": 1}
        route.continue_(post_data=json.dumps(sent))

    page.route("**/commands", tamper)
    page.locator("[data-action=pass]").click()
    page.wait_for_function(
        "() => document.querySelector('dialog.confirm[open], #prompt .refusal') !== null"
    )
    if page.locator("dialog.confirm[open]").count():  # the AI passed: this pass would end it
        page.locator("dialog.confirm [data-answer=yes]").click()
    # In the page's words: the card named as on the board.
    expect(page.locator("#prompt .refusal")).to_have_text("Brute 0 has rank 0: it has no power.")
    assert page.request.get(f"/games/{game_id}").json()["version"] == version
    expect(page.locator("[data-action=pass]")).to_be_visible()  # still this player's turn
    assert errors == []


def test_the_game_page_on_a_phone(new_context) -> None:  # type: ignore[no-untyped-def]
    page = new_context(viewport=PHONE).new_page()
    errors = watch_errors(page)
    sign_up(page, "Dora")
    create_game(page, "Famiglia", ["ai-1"])
    my_turn_or_over(page)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"]  # nothing sticks out sideways
    screenshot(page, "famiglia-phone")
    # Keyboard only: the action buttons and the cards to pick are real buttons in tab order.
    # A turn that can recruit nothing can refresh the Street: both start by picking a card.
    action = page.locator("[data-action=recruit], [data-action=refresh]").first
    action.focus()
    page.keyboard.press("Enter")
    street_card = page.locator(".zone-street button.pickable").first
    expect(street_card).to_be_focused()
    ask = page.locator("#prompt .ask").inner_text()
    page.keyboard.press("Enter")
    expect(page.locator("#prompt .ask")).not_to_have_text(ask)
    assert errors == []
