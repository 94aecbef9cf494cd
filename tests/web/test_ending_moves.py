"""A move that ends the game is confirmed on the page first, with the score as it would be:
a Famiglia pass after the other player's pass, a Famiglia move in the last turn, a Gangsta! hire
in Domination that makes the ninth gangster. "Cancel" sends nothing. Games are set up through
the API and the command service, the moves before the scenario played by the bots."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from typing import Any

import msgspec
from playwright.sync_api import BrowserContext, Page, Route, expect

from bootstrap import Container
from domain import bots
from domain.famiglia.state import REFRESH
from tests.web.conftest import screenshot
from tests.web.flows import sign_up, watch_errors

_ids = itertools.count()


def api(page: Page) -> str:
    return str(page.evaluate("document.body.dataset.api"))


def new_game(page: Page, game: str, options: dict[str, Any] | None = None) -> str:
    """A two-seat game created by the page's player (seat 0); seat 1 stays open and is played
    here through the command service."""
    made = page.request.post(
        f"{api(page)}/games", data={"game": game, "seats": 2, "options": options or {}}
    ).json()
    return str(made["game_id"])


def play(container: Container, game_id: str, seat: int, command: Any) -> None:
    container.commands.handle(game_id, seat, command, f"test-end-{next(_ids)}")


def bot_move(container: Container, game_id: str, seat: int, level: str = "greedy") -> None:
    game, state, version, _ = container.commands.load(game_id)
    view = game.view(state, seat)
    legal = game.legal(state, seat)
    play(container, game_id, seat, bots.choose(game.name, level, view, legal, b"%d" % version))


def greedy(container: Container, game_id: str, _state: Any, seat: int) -> None:
    bot_move(container, game_id, seat)


def drive(
    container: Container,
    game_id: str,
    stop: Callable[[Any, Any], bool],
    choose: Callable[[Container, str, Any, int], None] = greedy,
    limit: int = 3000,
) -> bool:
    """Moves (``choose(container, game_id, state, seat)``) until ``stop(game, state)`` or the
    end; True if stopped in a running game."""
    for _ in range(limit):
        game, state, _, _ = container.commands.load(game_id)
        if game.result(state) is not None:
            return False
        if stop(game, state):
            return True
        choose(container, game_id, state, sorted(game.to_act(state))[0])
    raise AssertionError("the game went on too long")


def ask(page: Page, button: str) -> str:
    """Clicks ``button`` and returns the question the page asks."""
    page.locator(button).click()
    dialog = page.locator("dialog.confirm")
    expect(dialog).to_be_visible()
    return dialog.locator(".confirm-text").inner_text()


def cancel_sends_nothing(container: Container, page: Page, game_id: str, button: str) -> str:
    before = container.commands.load(game_id).version
    question = ask(page, button)
    page.locator("dialog.confirm [data-answer=no]").click()
    expect(page.locator("dialog.confirm")).to_have_count(0)
    page.wait_for_timeout(500)
    assert container.commands.load(game_id).version == before  # nothing was sent
    expect(page.locator("#result")).to_be_hidden()
    return question


def confirm(page: Page, button: str) -> None:
    ask(page, button)
    page.locator("dialog.confirm [data-answer=yes]").click()
    expect(page.locator("#result")).to_be_visible()


def scores_in(text: str) -> list[int]:
    return [int(n) for n in re.findall(r" (\d+)(?= :|\.| で|。)", text)]


def test_famiglia_pass_after_the_other_players_pass(container: Container, page: Page) -> None:
    errors = watch_errors(page)
    sign_up(page, "Ulla")
    for _ in range(20):  # the start player is random: the other one has to pass first
        game_id = new_game(page, "famiglia")
        if container.commands.load(game_id).state.game.current == 1:
            break
    play(container, game_id, 1, {"type": "pass"})
    page.goto(f"/play/{game_id}")
    expect(page.locator("#prompt .ask")).to_be_visible()
    question = cancel_sends_nothing(container, page, game_id, "[data-action=pass]")
    # Both hands are the starting ones: one rank-0 card of each family, 1 VP.
    assert question == "This ends the game, Ulla 1 : open seat 1. Pass anyway?"
    screenshot(page, "end-famiglia-double-pass", full_page=False)
    confirm(page, "[data-action=pass]")
    expect(page.locator("#result")).to_contain_text("Both players passed in a row.")
    assert errors == []


def test_famiglia_pass_asked_in_japanese(
    container: Container, new_context: Callable[..., BrowserContext]
) -> None:
    page = new_context(locale="ja-JP").new_page()
    errors = watch_errors(page)
    page.goto("/")
    page.locator("#name").fill("Yui")
    page.locator("#name-form button").click()
    expect(page.locator("#hello-title")).to_have_text("ようこそ、Yui さん")
    for _ in range(20):
        game_id = new_game(page, "famiglia")
        if container.commands.load(game_id).state.game.current == 1:
            break
    play(container, game_id, 1, {"type": "pass"})
    page.goto(f"/play/{game_id}")
    question = cancel_sends_nothing(container, page, game_id, "[data-action=pass]")
    assert question == "これでゲームが終わります。Yui 1 : 空席 1。それでもパスしますか?"
    ask(page, "[data-action=pass]")
    expect(page.locator("dialog.confirm [data-answer=yes]")).to_have_text("パスして終了")
    expect(page.locator("dialog.confirm .note").first).to_have_text(
        "相手は前の手番でパスしました。2回続けてパスするとゲーム終了です。"
    )
    screenshot(page, "end-famiglia-ja", full_page=False)
    page.keyboard.press("Escape")  # the keyboard's way to say no
    expect(page.locator("dialog.confirm")).to_have_count(0)
    assert container.commands.load(game_id).state.game.ended is None
    assert errors == []


def test_famiglia_last_turn_shows_the_final_score(container: Container, page: Page) -> None:
    errors = watch_errors(page)
    sign_up(page, "Vera")

    def last_turn_is_mine(game: Any, state: Any) -> bool:
        own = state.game  # the game's own state, inside the table's
        return bool(own.final_turns == 0 and own.current == 0 and own.stage == REFRESH)

    for _ in range(10):  # the last turn may be the other player's
        game_id = new_game(page, "famiglia", {"double_pass_ends": False})
        if drive(container, game_id, last_turn_is_mine):
            break
    else:
        raise AssertionError("no game came to a last turn of seat 0")
    # The history comes late (a loaded server): the moves may not be offered before it, since
    # the other hand is tracked from it.
    held: list[Route] = []
    page.route("**/history", lambda route: held.append(route))
    page.goto(f"/play/{game_id}")
    for _ in range(30):
        if page.locator("#prompt .ask").is_visible():
            break
        page.wait_for_timeout(100)
    else:
        for route in held:
            route.continue_()
        held.clear()
    expect(page.locator("#prompt .ask")).to_be_visible()
    question = ask(page, "[data-action=pass]")
    for route in held:
        route.continue_()
    page.unroute("**/history")
    page.locator("dialog.confirm [data-answer=no]").click()
    expect(page.locator("dialog.confirm")).to_have_count(0)
    assert question.startswith("This ends the game, Vera ")
    shown = scores_in(question)
    confirm(page, "[data-action=pass]")
    result = container.commands.load(game_id)
    assert result.game.result(result.state) is not None
    # The other hand, tracked from the public log, gives the exact final score.
    assert shown == list(result.game.result(result.state).scores)
    assert errors == []


def ninth_hire_is_mine(game: Any, state: Any) -> bool:
    view = msgspec.to_builtins(game.view(state, 0))
    return bool(
        view["chapter"] == 3
        and view["stage"] == "turn"
        and 0 in game.to_act(state)
        and len(view["players"][0]["gang"]) == 8
        and any(c["type"] == "hire" for c in msgspec.to_builtins(game.legal(state, 0)))
    )


def growing(container: Container, game_id: str, state: Any, seat: int) -> None:
    """Seat 0 hires whenever it can (its gang grows), else plays greedy; seat 1 plays random."""
    game = container.commands.load(game_id).game
    legal = msgspec.to_builtins(game.legal(state, seat))
    hires = [c for c in legal if c["type"] in ("hire", "fast_recruit")]
    if seat == 0 and hires:
        play(container, game_id, 0, hires[0])
    else:
        bot_move(container, game_id, seat, "greedy" if seat == 0 else "random")


def test_gangsta_ninth_hire_in_domination(container: Container, page: Page) -> None:
    errors = watch_errors(page)
    sign_up(page, "Wanda")
    for _ in range(12):  # a game may end otherwise first (the third snitch)
        game_id = new_game(page, "gangsta")
        if drive(container, game_id, ninth_hire_is_mine, growing):
            break
    else:
        raise AssertionError("no game reached a ninth hire")
    page.goto(f"/play/{game_id}")
    expect(page.locator("#prompt .ask")).to_be_visible()
    hire = ".rows button[data-type=hire] >> nth=0"
    question = cancel_sends_nothing(container, page, game_id, hire)
    assert question.startswith("This ends the game: points you can see, Wanda ")
    expect(page.locator("dialog.confirm")).to_have_count(0)
    ask(page, hire)
    screenshot(page, "end-gangsta-ninth", full_page=False)
    note = page.locator("dialog.confirm .note").first.inner_text()
    assert "reaches 9 gangsters" in note
    page.locator("dialog.confirm [data-answer=yes]").click()
    expect(page.locator("#result")).to_be_visible()
    loaded = container.commands.load(game_id)
    result = loaded.game.result(loaded.state)
    assert result is not None and result.reason == "nine_gangsters"
    shown = scores_in(question)
    hidden = result.details["heist_influence"][1]
    # Wanda's own score is exact; the other's lacks only the face-down heists' influence.
    assert shown == [result.scores[0], result.scores[1] - hidden]
    assert errors == []
