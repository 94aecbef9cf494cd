"""An agreed draw reads the same on every page of its player, in English and Japanese: "draw"
in "Your games" and on the profile (it read "shared win" in the list)."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from bootstrap import Container
from tests.web.flows import PROJECTED_MS, reload_until, sign_up, watch_errors
from tests.web.test_ending_moves import new_game, play


def test_an_agreed_draw_is_a_draw_in_the_list_and_on_the_profile(
    container: Container, page: Page
) -> None:
    errors = watch_errors(page)
    sign_up(page, "Dario")
    game_id = new_game(page, "famiglia")
    play(container, game_id, 1, {"type": "offer_draw"})
    play(container, game_id, 0, {"type": "accept_draw"})
    game, state, _, _ = container.commands.load(game_id)
    scores = " : ".join(map(str, game.result(state).scores))
    me = page.evaluate("() => fetch('/me').then(r => r.json())")["id"]
    for lang, draw in (("en", "draw"), ("ja", "引き分け")):
        page.goto(f"/language/{lang}?next=/")
        expect(page.locator(f"li[data-game-id='{game_id}'] .status")).to_have_text(
            f" · {draw} · {scores}", timeout=PROJECTED_MS
        )
        row = page.locator(f"#games tr:has(a[href='/play/{game_id}'])")
        reload_until(page, f"/profile/{me}", row)
        expect(row.locator("td.outcome")).to_have_text(draw)  # beside it: the accuracy
    assert errors == []
