"""The table's controls on the game page (table.js): Undo appears only when the
API allows it and takes the move back; a draw offer of the other player is answered with the
keyboard; Concede asks first (Escape says no), then ends a 2-player game as a loss. A game the
table ended reads as over, as one ended by the rules. The other seat is played through the
command service."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from bootstrap import Container
from domain.gangsta.messages import ChooseHeist
from tests.web.conftest import screenshot
from tests.web.flows import shown_version, sign_up, wait_past, watch_errors
from tests.web.test_ending_moves import drive, new_game, play


def heist_to_choose(game: Any, state: Any) -> bool:
    return 0 in game.to_act(state) and any(isinstance(c, ChooseHeist) for c in game.legal(state, 0))


def test_undo_a_draw_offer_and_concede_on_the_page(container: Container, page: Page) -> None:
    errors = watch_errors(page)
    sign_up(page, "Una")
    game_id = new_game(page, "gangsta")
    assert drive(container, game_id, heist_to_choose)
    page.set_viewport_size({"width": 360, "height": 740})  # a phone
    page.goto(f"/play/{game_id}")
    undo = page.locator("#table-actions button[data-type=undo]")
    concede = page.locator("#table-actions button[data-type=concede]")
    expect(concede).to_be_visible()
    expect(undo).to_have_count(0)  # nothing to take back at the start of a turn

    before = shown_version(page)
    page.locator("button[data-type=choose_heist]").first.click()
    wait_past(page, before)
    expect(undo).to_be_visible()
    screenshot(page, "table-undo")
    page.wait_for_function(  # the controls fit the phone's width (they wrap)
        "() => [...document.querySelectorAll('#table-actions button')].every("
        "b => b.getBoundingClientRect().right <= 360)"
    )
    undo.focus()
    before = shown_version(page)
    page.keyboard.press("Enter")
    wait_past(page, before)
    expect(undo).to_have_count(0)
    expect(page.locator("#log li[data-type=undone]")).to_contain_text("Una took back")
    expect(page.locator("button[data-type=choose_heist]").first).to_be_visible()

    before = shown_version(page)
    play(container, game_id, 1, {"type": "offer_draw"})
    wait_past(page, before)
    expect(page.locator("#table-actions .draw-offer")).to_contain_text("offers a draw")
    page.locator("#table-actions button[data-type=decline_draw]").focus()
    before = shown_version(page)
    page.keyboard.press("Enter")
    wait_past(page, before)
    expect(page.locator("#log li[data-type=draw_declined]")).to_contain_text("declined")
    expect(page.locator("#table-actions .draw-offer")).to_have_count(0)

    concede.click()
    dialog = page.locator("dialog.confirm")
    expect(dialog).to_contain_text("as your loss")
    page.keyboard.press("Escape")  # the safe answer
    expect(dialog).to_have_count(0)
    assert container.commands.load(game_id).state.ended is None  # the table's ending: none
    concede.click()
    page.locator("dialog.confirm [data-answer=yes]").click()
    expect(page.locator("#result")).to_be_visible()
    expect(page.locator("#result .reason")).to_have_text("A player conceded.")
    expect(page.locator("#log li[data-type=conceded]")).to_contain_text("Una conceded")
    expect(page.locator("#table-actions")).to_be_hidden()
    result = container.commands.load(game_id)
    assert result.game.result(result.state).winners == [1]
    assert errors == []


def end_at_the_table(container: Container, game_id: str, how: str) -> None:
    """Seat 1 (played here) concedes or forfeits on time, or seat 0's draw offer is taken."""
    if how == "conceded":
        play(container, game_id, 1, {"type": "concede"})
    elif how == "timed_out":
        container.commands.time_out(game_id, container.commands.load(game_id).version, 1, True)
    else:
        play(container, game_id, 0, {"type": "offer_draw"})
        play(container, game_id, 1, {"type": "accept_draw"})


@pytest.mark.parametrize("how", ["conceded", "timed_out", "draw_agreed"])
def test_a_famiglia_game_the_table_ended_reads_as_over_after_a_reload(
    container: Container, page: Page, new_context: Callable[..., BrowserContext], how: str
) -> None:
    """No "Waiting for ..." is left, for the seat or a spectator; both hands are face up."""
    errors = watch_errors(page)
    sign_up(page, "Olga")
    game_id = new_game(page, "famiglia")
    end_at_the_table(container, game_id, how)
    spectator = new_context().new_page()
    for viewer in (page, spectator):
        viewer.goto(f"/play/{game_id}")
        expect(viewer.locator("#result")).to_be_visible()
        viewer.reload()
        expect(viewer.locator("#result")).to_be_visible()
        expect(viewer.locator("#prompt")).to_have_text("The game is over.")
        expect(viewer.locator("#board .cards.backs")).to_have_count(0)
    assert errors == []
