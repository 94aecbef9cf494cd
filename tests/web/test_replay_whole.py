"""The replay of a finished game of each game, stepped through to its very end: every step is
drawn without a page or console error, and no caption shows "[object" (a list of cards is drawn
as the cards, separated by ", ")."""

from __future__ import annotations

import random

from playwright.sync_api import Page, expect

from bootstrap import Container
from tests.web.flows import watch_errors


def famiglia_ended_by_two_passes(container: Container) -> str:
    game_id = container.commands.create_game("famiglia", 2)
    for n in range(2):
        loaded = container.commands.load(game_id)
        [seat] = loaded.game.to_act(loaded.state)
        container.commands.handle(game_id, seat, {"type": "pass"}, f"pass-{n}")
    assert (
        container.commands.load(game_id).game.result(container.commands.load(game_id).state)
        is not None
    )
    return game_id


def gangsta_played_to_the_end(container: Container, seats: int, seed: int) -> str:
    """Random legal moves for every seat until the game ends."""
    game_id = container.commands.create_game("gangsta", seats)
    rng = random.Random(seed)
    for n in range(3000):
        game, state, _, _ = container.commands.load(game_id)
        if game.result(state) is not None:
            return game_id
        seat = min(game.to_act(state))
        container.commands.handle(game_id, seat, rng.choice(game.legal(state, seat)), f"move-{n}")
    raise AssertionError("the Gangsta! game did not end")


# Once step n is drawn: its caption and step label (the board and result are drawn by then).
DRAWN = """n => document.body.dataset.step === String(n)
  && [document.getElementById("step-event").innerText,
      document.getElementById("step-label").innerText]"""


def step_through(page: Page, game_id: str, press: str | None) -> list[str]:
    """Open the replay and go to the last step, one step at a time (``press``: a key, or None
    for the "Next step" button); returns every step's caption."""
    page.goto(f"/play/{game_id}/replay")
    total = len(page.request.get(f"/games/{game_id}/history").json()["events"])
    next_button = page.get_by_role("button", name="Next step")
    captions = []
    for step in range(1, total + 1):
        if step > 1:
            if press is None:
                next_button.click()
            else:
                page.keyboard.press(press)
        caption, label = page.wait_for_function(DRAWN, arg=step).json_value()
        assert label == f"Step {step} of {total}"
        captions.append(caption)
    expect(page.locator("#result")).to_be_visible()
    return captions


def test_a_famiglia_game_ended_by_two_passes_replays_to_the_end(
    container: Container, page: Page
) -> None:
    errors = watch_errors(page)
    game_id = famiglia_ended_by_two_passes(container)
    captions = step_through(page, game_id, press=None)
    assert [c for c in captions if "[object" in c] == []
    assert len(captions) == 7  # started, Street, turn, pass, turn, pass, end
    # Step 2 is the Street's six cards: drawn as six cards separated by ", ".
    page.get_by_role("button", name="First step").click()
    page.get_by_role("button", name="Next step").click()
    page.wait_for_function("() => document.body.dataset.step === '2'")
    expect(page.locator("#step-event .chip")).to_have_count(6)
    assert captions[1].count(", ") == 5, captions[1]
    # The game's live log draws its lines the same way.
    page.goto(f"/play/{game_id}")
    line = page.locator("#log li[data-type=street_revealed]")
    expect(line.locator(".chip")).to_have_count(6)
    assert line.inner_text().count(", ") == 5
    assert errors == []


def test_a_whole_gangsta_game_replays_to_the_end_by_keyboard(
    container: Container, page: Page
) -> None:
    errors = watch_errors(page)
    game_id = gangsta_played_to_the_end(container, 2, seed=4)
    captions = step_through(page, game_id, press="ArrowRight")
    assert [c for c in captions if "[object" in c] == []
    dealt = [
        e["version"]
        for e in page.request.get(f"/games/{game_id}/history").json()["events"]
        if e["type"] == "cards_dealt" and len(e["event"]["cards"]) > 1
    ]
    assert dealt and all(captions[v - 1].count(", ") >= 1 for v in dealt)
    assert errors == []
