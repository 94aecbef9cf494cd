"""Help on the game page: why an action is missing (from the view and the legal moves), which
cards can be clicked, the explanations of special rewards, resource cards and rule options, and
the buttons of a move in several steps within reach on a phone."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import msgspec
from playwright.sync_api import BrowserContext, Page, expect

from bootstrap import Container
from domain.famiglia.cards import RANK
from tests.web.conftest import screenshot
from tests.web.flows import sign_up, watch_errors
from tests.web.test_ending_moves import bot_move, drive, new_game, play


def moves(game: Any, state: Any, seat: int = 0) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = msgspec.to_builtins(game.legal(state, seat))
    return found


SMALL_PHONE = {"width": 375, "height": 667}


def legal(container: Container, game_id: str, seat: int = 0) -> list[dict[str, Any]]:
    loaded = container.commands.load(game_id)
    moves: list[dict[str, Any]] = msgspec.to_builtins(loaded.game.legal(loaded.state, seat))
    return moves


def my_first_famiglia_turn(container: Container, page: Page) -> str:
    for _ in range(20):  # the start player is random
        game_id = new_game(page, "famiglia")
        if container.commands.load(game_id).state.game.current == 0:
            return game_id
    raise AssertionError("seat 0 never started")


def test_famiglia_says_why_actions_are_missing(
    container: Container, new_context: Callable[..., BrowserContext]
) -> None:
    for locale, texts in (
        (
            "en-GB",
            {
                "accountant": "you hold no Accountant (blue) of rank 1 or more.",
                "refresh": "the Street holds a rank-0 card",
                "recruit": "no Street card matches a pair in your hand",
                "chip_refresh": "Action 1: refresh",
            },
        ),
        (
            "ja-JP",
            {
                "accountant": "ランク1以上のインテリ(青)を手札に持っていません。",
                "refresh": "ストリートにランク0のカード",
                "recruit": "手札にストリートのカードに合うペアがありません",
                "chip_refresh": "アクション1: 補充",
            },
        ),
    ):
        page = new_context(locale=locale).new_page()
        errors = watch_errors(page)
        page.goto("/")
        page.locator("#name").fill("Xena")
        page.locator("#name-form button").click()
        page.wait_for_function("() => document.getElementById('hello').hidden === false")
        game_id = my_first_famiglia_turn(container, page)
        page.goto(f"/play/{game_id}")
        expect(page.locator("#prompt .ask")).to_be_visible()
        offered = {c["type"] for c in legal(container, game_id)}
        street = container.commands.load(game_id).state.game.street
        why = page.locator("#prompt .why-not")
        why.locator("summary").click()
        # The starting hand holds rank-0 cards only: no Accountant or Brute to play.
        expect(why.locator("[data-why=play_accountant]")).to_contain_text(texts["accountant"])
        chip = page.locator(".middle .info")
        if any(RANK[c] == 0 for c in street):  # a free recruit, no refresh
            assert "refresh" not in offered and "recruit" in offered
            expect(why.locator("[data-why=refresh]")).to_contain_text(texts["refresh"])
            expect(chip).not_to_contain_text(texts["chip_refresh"])
        else:  # no pair for anything, but the Street may be refreshed
            assert "refresh" in offered and "recruit" not in offered
            expect(why.locator("[data-why=recruit]")).to_contain_text(texts["recruit"])
            expect(chip).to_contain_text(texts["chip_refresh"])
        for action in offered:  # an offered action never gets a reason
            expect(why.locator(f"[data-why={action}]")).to_have_count(0)
        screenshot(page, f"why-famiglia-{locale[:2]}")
        assert errors == []


def test_famiglia_clickable_cards_are_marked(container: Container, page: Page) -> None:
    sign_up(page, "Yara")
    for _ in range(30):
        game_id = my_first_famiglia_turn(container, page)
        if any(c["type"] == "refresh" for c in legal(container, game_id)):
            break
    page.goto(f"/play/{game_id}")
    page.locator("[data-action=refresh]").click()
    pickable = page.locator(".zone-street button.card.pickable")
    expect(pickable).to_have_count(6)
    assert (pickable.first.get_attribute("aria-label") or "").endswith("· can be chosen")
    pickable.first.focus()
    expect(pickable.first).to_be_focused()
    expect(page.locator(".zone-hand button.card")).to_have_count(0)  # nothing else to click


def test_gangsta_says_why_a_heist_cannot_be_started(container: Container, page: Page) -> None:
    errors = watch_errors(page)
    sign_up(page, "Zoe")
    for _ in range(20):
        game_id = new_game(page, "gangsta")
        loaded = container.commands.load(game_id)
        startable = {c["heist"] for c in legal(container, game_id) if c["type"] == "choose_heist"}
        row = loaded.state.game.heist_row
        if loaded.state.game.active == 0 and len(startable) < len(row):
            break
    page.goto(f"/play/{game_id}")
    expect(page.locator("#prompt .ask")).to_be_visible()
    for heist in row:
        card = page.locator(f".rows .hcard[data-card='{heist}']")
        if heist in startable:
            expect(card.locator(".cannot")).to_have_count(0)
            expect(card).to_have_class(re.compile("has-actions"))
        else:
            expect(card.locator(".cannot")).to_contain_text("Not now: Available gangsters lack")
            assert "Not now" in (card.get_attribute("aria-label") or "")
    if not startable:
        expect(page.locator("#prompt [data-why=choose_heist]")).to_contain_text(
            "no heist in the row can be started now"
        )
    screenshot(page, "why-gangsta", full_page=False)
    assert errors == []


def test_gangsta_hire_missing_when_nobody_is_affordable(container: Container, page: Page) -> None:
    sign_up(page, "Abby")

    def broke_on_my_turn(game: Any, state: Any) -> bool:
        view = msgspec.to_builtins(game.view(state, 0))
        return bool(
            view["stage"] == "turn"
            and 0 in game.to_act(state)
            and view["market"]
            and not any(c["type"] == "hire" for c in moves(game, state))
        )

    for _ in range(10):
        game_id = new_game(page, "gangsta")
        if drive(container, game_id, broke_on_my_turn, limit=400):
            break
    page.goto(f"/play/{game_id}")
    item = page.locator("#prompt [data-why=hire]")
    expect(item).to_have_count(1)
    expect(item).to_contain_text("you cannot afford anyone in the market (the cheapest costs $")


def test_reward_resource_and_option_explanations(
    container: Container,
    new_context: Callable[..., BrowserContext],
) -> None:
    for locale, theft, police, option in (
        (
            "en-GB",
            "Take up to this much money from one opponent.",
            "Police station",
            "A pass may discard a row card",
        ),
        (
            "ja-JP",
            "相手1人から、この金額までのお金を奪います。",
            "警察署",
            "パス時に場のカードを1枚捨てられる",
        ),
    ):
        page = new_context(locale=locale).new_page()
        errors = watch_errors(page)
        game_id = container.commands.create_game("gangsta", 2)
        page.goto(f"/play/{game_id}")
        expect(page.locator("#board .hcard").first).to_be_visible()
        # A heist with a theft reward (317, Rival gangs: Theft $2), drawn as the board does.
        page.evaluate("""() => document.getElementById('board').prepend(
            Omerta.el('div', { id: 'probe' }, Cards.heist(317), Cards.resourceTip(901)))""")
        tip = page.locator("#probe .hcard .special .tip").first
        summary = tip.locator("summary")
        assert summary.get_attribute("title") == theft
        expect(tip.locator(".tip-text")).to_be_hidden()
        summary.focus()
        page.keyboard.press("Enter")  # the keyboard opens it, as a tap does
        expect(tip.locator(".tip-text")).to_have_text(theft)
        resource = page.locator("#probe > .tip")
        expect(resource.locator("summary")).to_have_text(police)
        # Options of this game, each explained, on the game page.
        box = page.locator("#options-box")
        box.locator("summary").first.click()
        item = box.locator("li[data-option=pass_discard]")
        expect(item).to_contain_text(option)
        item.locator("summary").click()
        expect(item.locator(".tip-text")).to_be_visible()
        item.scroll_into_view_if_needed()
        screenshot(page, f"options-{locale[:2]}", full_page=False)
        assert errors == []


def buttons_in_view(page: Page, selector: str) -> None:
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    page.wait_for_timeout(200)
    box = page.locator(selector).first.bounding_box()
    assert box is not None
    assert box["y"] >= 0 and box["y"] + box["height"] <= SMALL_PHONE["height"], box


def test_multi_step_buttons_stay_in_reach_on_a_phone(
    container: Container,
    new_context: Callable[..., BrowserContext],
) -> None:
    page = new_context(viewport=SMALL_PHONE).new_page()
    errors = watch_errors(page)
    sign_up(page, "Bea")

    # Gangsta!: a heist under way, more gangsters to commit.
    def committing(game: Any, state: Any) -> bool:
        return state.game.stage == "heist" and state.game.active == 0

    def heist_first(container: Container, game_id: str, state: Any, seat: int) -> None:
        choices = [c for c in legal(container, game_id, seat) if c["type"] == "choose_heist"]
        if seat == 0 and choices:
            play(container, game_id, 0, choices[0])
        else:
            bot_move(container, game_id, seat)

    for _ in range(10):
        game_id = new_game(page, "gangsta")
        if drive(container, game_id, committing, heist_first, limit=400):
            break
    page.goto(f"/play/{game_id}")
    expect(page.locator("#prompt .commit-bar button").first).to_be_visible()
    assert page.evaluate("document.body.scrollHeight") > 2 * SMALL_PHONE["height"]  # long
    buttons_in_view(page, "#prompt .commit-bar button")
    screenshot(page, "reach-gangsta-phone", full_page=False)

    # Famiglia: a recruit with a pair to choose.
    def pair_to_show(game: Any, state: Any) -> bool:
        return state.game.current == 0 and any(
            c["type"] == "recruit" and c["to_area"] for c in moves(game, state)
        )

    for _ in range(10):
        game_id = new_game(page, "famiglia")
        if drive(container, game_id, pair_to_show, limit=600):
            break
    page.goto(f"/play/{game_id}")
    page.locator("[data-action=recruit]").click()
    target = next(
        c["card"] for c in legal(container, game_id) if c["type"] == "recruit" and c["to_area"]
    )
    page.locator(f".zone-street button[data-card='{target}']").first.click()
    buttons_in_view(page, "#prompt button.cancel")
    screenshot(page, "reach-famiglia-phone", full_page=False)
    assert errors == []


# GameHelp on a Famiglia page for made-up positions: the reasons and the warning it derives.
HELP = """([view, legal, command]) => {
  const ctx = { view, legal, seat: 0, names: ["Ann", "Ben"], events: [], version: 9 };
  const box = Omerta.el("div", {}, GameHelp.prompt(ctx));
  const why = Object.fromEntries([...box.querySelectorAll("li")].map((li) =>
    [li.dataset.why, li.textContent]));
  return { why, warning: command ? GameHelp.endWarning(ctx, command) : null };
}"""


def famiglia_view(**changes: Any) -> dict[str, Any]:
    view: dict[str, Any] = {
        "seat": 0,
        "phase": "refresh",
        "actions": ["play_accountant", "play_brute", "recruit", "pass"],
        "to_move": 0,
        "turn": 30,
        "deck_size": 4,
        "deck_pass": 2,
        "final_turns": None,
        "passes_in_row": 0,
        "options": {"double_pass_ends": True},
        "street": [{"card": "red-2", "rank": 2}],
        "discard": [],
        "areas": [["red-3"], ["blue-1"]],
        "hand_sizes": [2, 1],
        "hand": ["yellow-1", "red-1"],
    }
    view.update(changes)
    return view


def test_famiglia_refresh_reasons_and_the_last_turn_recruit(
    container: Container, page: Page
) -> None:
    game_id = container.commands.create_game("famiglia", 2)
    page.goto(f"/play/{game_id}/replay")
    expect(page.locator("#board .card").first).to_be_visible()
    page.add_script_tag(url="/web/static/famiglia_help.js")
    legal = [
        {"type": "play_brute", "card": "yellow-1", "target": "red-2", "amount": 1},
        {"type": "pass"},
    ]
    used = page.evaluate(HELP, [famiglia_view(), legal, None])["why"]
    assert "only once a turn, and you already have" in used["refresh"]
    assert "no Accountant (blue)" in used["play_accountant"]
    assert "play_brute" not in used and "no Street card matches a pair" in used["recruit"]
    gone = page.evaluate(HELP, [famiglia_view(deck_size=0), legal, None])["why"]
    assert "the deck is gone" in gone["refresh"]
    flat = famiglia_view(
        street=[{"card": "red-2", "rank": 0}], phase="recruit", actions=["recruit", "pass"]
    )
    later = page.evaluate(HELP, [flat, [{"type": "pass"}], None])["why"]
    assert (
        "action 1 is over" in later["refresh"] and "already played a Brute" in later["play_brute"]
    )
    # The last turn: a recruit ends the game with the recruited card's points added (red-2: 6).
    recruit = {"type": "recruit", "card": "red-2", "to_area": "red-1", "back_to_hand": "red-1"}
    last = famiglia_view(final_turns=0, hand=["red-1", "red-1"], areas=[["red-3"], ["blue-1"]])
    warning = page.evaluate(HELP, [last, [recruit, {"type": "pass"}], recruit])["warning"]
    # Ann: hand 3 + 3, area 10, recruit 6 = 22; Ben: area 1, hand as the (empty) log shows: 0.
    assert warning["text"] == "This ends the game, Ann 22 : Ben 1. Recruit anyway?"
    assert warning["note"][0] == "This is the last turn of the game."
