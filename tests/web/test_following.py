"""Following the AI: each of its moves is drawn at its own version for a moment, with what it
changed highlighted, so a person can follow several AI turns in a row; the viewer's own moves
are drawn at once."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

from playwright.sync_api import Page

from tests.web.flows import create_game, my_turn_or_over, sign_up, watch_errors

# Records every version the page draws, with the time it was drawn.
RECORD = """() => {
  window.shown = [];
  new MutationObserver(() => window.shown.push(
    [Number(document.body.dataset.version), performance.now(),
     document.querySelectorAll('#log li').length, document.querySelectorAll('.changed').length]))
    .observe(document.body, { attributes: true, attributeFilter: ['data-version'] });
}"""


def history(page: Page, game_id: str) -> list[dict[str, Any]]:
    api = page.evaluate("document.body.dataset.api")
    events: list[dict[str, Any]] = page.request.get(f"{api}/games/{game_id}/history").json()[
        "events"
    ]
    return events


def back_to_me(page: Page, game_id: str, after: int) -> None:
    """Until the game is the viewer's (seat 0) again after version ``after``, and the page
    shows that version."""
    api = page.evaluate("document.body.dataset.api")
    for _ in range(300):
        game = page.request.get(f"{api}/games/{game_id}").json()
        if game["version"] > after and (0 in game["to_act"] or game["result"]):
            page.wait_for_function(
                "v => Number(document.body.dataset.version) >= v",
                arg=game["version"],
                timeout=30_000,
            )
            return
        page.wait_for_timeout(100)
    raise AssertionError("the AI never gave the turn back")


def ai_commands(events: list[dict[str, Any]], after: int, seat: int) -> list[tuple[int, int]]:
    """(actor, last version) of each command by another seat after version ``after``."""
    last: dict[str, tuple[int, int]] = {}
    for e in events:
        if e["version"] > after and e["actor"] is not None and e["actor"] != seat:
            last[e["command_id"]] = (e["actor"], e["version"])
    return sorted(last.values(), key=lambda x: x[1])


def test_three_ai_turns_are_shown_one_step_at_a_time(page: Page) -> None:
    errors = watch_errors(page)
    sign_up(page, "Stella")
    game_id, _ = create_game(page, "Gangsta!", ["ai-0", "ai-0", "ai-0"])
    assert my_turn_or_over(page) == "turn"
    page.evaluate(RECORD)
    before = int(page.evaluate("Number(document.body.dataset.version)"))
    page.locator("#prompt button.act-pass").click()
    page.locator("#prompt button[data-type=skip]").click()  # no pass discard
    back_to_me(page, game_id, before + 2)
    shown = page.evaluate("window.shown")
    steps = ai_commands(history(page, game_id), before, 0)
    assert {actor for actor, _ in steps} == {1, 2, 3}  # three AI turns came in between
    drawn = {v: (t, logs, changed) for v, t, logs, changed in shown}
    ai_versions = [v for _, v in steps]
    assert all(v in drawn for v in ai_versions), (ai_versions, shown)
    # One after another, each on screen for a moment, the log growing with each.
    times = [drawn[v][0] for v in ai_versions]
    assert all(b - a >= 500 for a, b in pairwise(times)), (steps, shown)
    logs = [drawn[v][1] for v in ai_versions]
    assert logs == sorted(logs) and len(set(logs)) == len(logs), logs
    # The last step's log lines stay highlighted, and only those.
    fresh = page.locator("#log li.fresh").evaluate_all("els => els.map(e => +e.dataset.version)")
    last = ai_versions[-1]
    assert fresh and max(fresh) == last and all(v > ai_versions[-2] for v in fresh), fresh
    assert errors == []


def test_famiglia_ai_moves_are_each_drawn(page: Page) -> None:
    errors = watch_errors(page)
    sign_up(page, "Tessa")
    game_id, _ = create_game(page, "Famiglia", ["ai-1"])
    assert my_turn_or_over(page) == "turn"
    page.evaluate(RECORD)
    before = int(page.evaluate("Number(document.body.dataset.version)"))
    page.locator("[data-action=pass]").click()
    page.wait_for_timeout(300)
    if page.locator("dialog.confirm").count():  # the AI passed before: this pass ends the game
        page.locator("dialog.confirm [data-answer=yes]").click()
    back_to_me(page, game_id, before + 1)
    shown = page.evaluate("window.shown")
    drawn = {v for v, *_ in shown}
    steps = ai_commands(history(page, game_id), before, 0)
    assert steps and all(v in drawn for _, v in steps), (steps, shown)
    assert errors == []
