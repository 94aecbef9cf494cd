"""While the other player's moves are drawn step by step (steps.js), the prompt says whom the
page waits for: never the viewer, and never nobody. Every text the prompt takes during the
other's turn is recorded in the page (a MutationObserver), so a state shown for an instant is
caught too. The other seat is played through the command service."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page

from bootstrap import Container
from tests.web.flows import my_turn_or_over, sign_up, watch_errors
from tests.web.test_ending_moves import drive, new_game

RECORD_PROMPTS = """() => {
  window.promptTexts = [];
  const prompt = document.getElementById("prompt");
  new MutationObserver(() => window.promptTexts.push(prompt.textContent)).observe(
    prompt, { childList: true, subtree: true, characterData: true });
}"""


def only_the_other_to_act(game: Any, state: Any) -> bool:
    return game.to_act(state) == {1}


def viewer_to_act(game: Any, state: Any) -> bool:
    return 0 in game.to_act(state)


@pytest.mark.parametrize("game", ["famiglia", "gangsta"])
def test_the_waiting_prompt_never_names_the_viewer_or_nobody(
    container: Container, page: Page, game: str
) -> None:
    errors = watch_errors(page)
    sign_up(page, "Nina")
    game_id = new_game(page, game)
    assert drive(container, game_id, only_the_other_to_act)
    page.goto(f"/play/{game_id}")
    page.wait_for_function("() => document.querySelector('#prompt .waiting') !== null")
    page.evaluate(RECORD_PROMPTS)
    assert drive(container, game_id, viewer_to_act)  # the other's whole turn, drawn step by step
    assert my_turn_or_over(page) == "turn"
    texts: list[str] = page.evaluate("() => window.promptTexts")
    assert texts  # the other's moves were drawn
    waiting = [text for text in texts if text.startswith("Waiting for")]
    assert not [text for text in waiting if "Nina" in text], texts
    assert "Waiting for …" not in texts and "Waiting for , " not in "".join(texts), texts
    assert errors == []
