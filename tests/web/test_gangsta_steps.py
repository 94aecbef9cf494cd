"""Gangsta!'s moves on boards set up by hand: every legal command becomes a button on the card
or player it names, with the words of the rules, and sends exactly that command."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import msgspec
import pytest
from playwright.sync_api import Page, expect

from bootstrap import Container
from domain.gangsta.cards import GANGSTERS
from tests.web.flows import watch_errors
from tests.web.test_famiglia_steps import HARNESS


@pytest.fixture
def harness(container: Container, page: Page) -> Iterator[tuple[Page, dict[str, Any]]]:
    """A Gangsta! page of the live server and a real view of a new game, as seat 0 sees it."""
    errors = watch_errors(page)
    game_id = container.commands.create_game("gangsta", 2)
    page.goto(f"/play/{game_id}/replay")
    expect(page.locator("#board .card").first).to_be_visible()
    game, state, _, _ = container.commands.load(game_id)
    view = msgspec.to_builtins(game.view(state, 0))
    yield page, view
    assert errors == []


def sent(page: Page) -> list[dict[str, Any]]:
    return page.evaluate("window.sent")


def test_theft_buttons_on_the_opponent_and_decline_in_the_prompt(
    harness: tuple[Page, dict[str, Any]],
) -> None:
    page, view = harness
    view.update(stage="reward", rewards=["theft"], heist=403, to_act=[0], active=0)
    legal = [{"type": "theft", "target": 1, "amount": n} for n in (1, 2)] + [{"type": "skip"}]
    page.evaluate(HARNESS, [view, legal])
    expect(page.locator("#h-prompt .ask")).to_have_text(
        "Theft: choose an opponent and how much to take."
    )
    expect(page.locator("#h-prompt button")).to_have_text(["Decline: Theft"])
    victim = page.locator("#h-board .player[data-seat='1']")
    expect(victim.locator("button")).to_have_text(["Steal $1", "Steal $2"])
    victim.get_by_role("button", name="Steal $2").click()
    assert sent(page) == [legal[1]]


def test_heist_commit_shows_what_is_still_needed(harness: tuple[Page, dict[str, Any]]) -> None:
    page, view = harness
    # Heist 201 (Armored van) needs a Leader and a Mercenary. Every Boss brings a Leader, and
    # Boss 103 a Mercenary too: the game's random Boss is replaced by Boss 101 (Leader, Sniper).
    me = view["players"][0]
    me.update(boss=101, clan="bratva", gang=[{**me["gang"][0], "card": 101}])
    view.update(stage="heist", heist=201, committed=[101], to_act=[0], active=0)
    legal = [{"type": "cancel_heist"}]
    page.evaluate(HARNESS, [view, legal])
    ask = page.locator("#h-prompt .ask")
    expect(ask).to_contain_text("Armored van: commit Available gangsters one by one.")
    expect(ask.locator(".glyph")).to_have_count(1)
    expect(ask.locator(".glyph title")).to_have_text(["Mercenary (grey)"])
    page.get_by_role("button", name="Put the heist back").click()
    assert sent(page) == [{"type": "cancel_heist"}]


def test_a_discard_chosen_for_the_opponent(harness: tuple[Page, dict[str, Any]]) -> None:
    page, view = harness
    theirs = view["players"][1]
    hired = [
        {"card": 111, "engaged": False, "learned": None},
        {"card": 112, "engaged": True, "learned": None},
    ]
    theirs["gang"] = [*theirs["gang"], *hired]
    view.update(
        stage="gang_war", to_act=[0], owed=[{"seat": 1, "chooser": 0, "reason": "gang_war"}]
    )
    legal = [{"type": "discard", "gangster": 111}, {"type": "discard", "gangster": 112}]
    page.evaluate(HARNESS, [view, legal])
    expect(page.locator("#h-prompt .ask")).to_have_text(
        "Choose which gangster Ben discards (gang war)."
    )
    victim = page.locator("#h-board .player[data-seat='1']")
    expect(victim.locator(".gcard.engaged")).to_have_count(1)
    expect(victim.get_by_role("button", name="Discard")).to_have_count(2)
    victim.locator(".gcard[data-card='112']").get_by_role("button", name="Discard").click()
    assert sent(page) == [legal[1]]


def test_hire_shows_the_price_with_the_clan_discount(
    harness: tuple[Page, dict[str, Any]],
) -> None:
    page, view = harness
    boss = view["players"][0]["boss"]
    own = 10 * (boss - 100) + 101  # Boss 10x leads clan x, whose gangsters are 1x1..1x7
    other = 117 if own != 111 else 157  # the last gangster of another clan
    assert GANGSTERS[own].clan == GANGSTERS[boss].clan != GANGSTERS[other].clan
    options = {**view["options"], "clans": True}
    view.update(stage="turn", market=[own, other], to_act=[0], active=0, options=options)
    legal = [{"type": "hire", "gangster": g} for g in (own, other)] + [{"type": "pass"}]
    page.evaluate(HARNESS, [view, legal])
    expect(page.locator("#h-board button[data-type=hire]")).to_have_text(
        [f"Hire (${GANGSTERS[own].cost - 1})", f"Hire (${GANGSTERS[other].cost})"]
    )
    page.locator(f"#h-board button[data-type=hire][data-card='{other}']").click()
    assert sent(page) == [legal[1]]


def test_an_empty_market_is_drawn_with_a_note_and_no_hire(
    harness: tuple[Page, dict[str, Any]],
) -> None:
    # Lost gangsters leave the game: once the deck and its discards are used up, the market
    # stays empty; the page says so and offers no hire.
    page, view = harness
    view.update(stage="turn", market=[], gangster_deck=0, to_act=[0], active=0)
    page.evaluate(HARNESS, [view, [{"type": "pass"}]])
    market = page.locator("#h-board section[aria-label='Gangsters for hire']")
    expect(market.locator(".empty")).to_have_text(
        "No gangsters left to hire: the deck and its discards are used up."
    )
    expect(market.locator(".gcard")).to_have_count(0)
    expect(page.locator("#h-board button[data-type=hire]")).to_have_count(0)
    view.update(market=[123])  # a short market: the cards left, no note
    page.evaluate(HARNESS, [view, [{"type": "pass"}]])
    expect(market.locator(".gcard")).to_have_count(1)
    expect(market.locator(".empty")).to_have_count(0)


def test_resource_abilities_are_buttons_and_only_the_owner_sees_the_deck_top(
    harness: tuple[Page, dict[str, Any]],
) -> None:
    page, view = harness
    options = {**view["options"], "resources": True}
    me, them = view["players"]
    # The deck's top is never in the row (the new game's row is random).
    top = next(h for h in range(201, 231) if h not in view["heist_row"])
    me.update(resource_chosen=True, resource=903, resource_active=True, peek_heist=top)
    them.update(resource_chosen=True, resource=911, resource_active=False, hospital=[123])
    view.update(stage="turn", to_act=[0], active=0, options=options)
    legal = [{"type": "headquarters"}, {"type": "choose_heist", "heist": top}, {"type": "pass"}]
    page.evaluate(HARNESS, [view, legal])
    mine = page.locator("#h-board .player[data-seat='0'] .resources")
    expect(mine.locator(".rcard[data-card='903'] .state")).to_have_text("active")
    expect(mine).to_contain_text("Only you see: the top of the heist deck")
    expect(mine.locator(f".hcard[data-card='{top}'] button")).to_have_text("Do this heist ($1)")
    theirs = page.locator("#h-board .player[data-seat='1'] .resources")
    expect(theirs.locator(".rcard[data-card='911'] .state")).to_have_text("not active yet")
    expect(theirs.locator(".hospital .gcard[data-card='123']")).to_be_visible()
    expect(theirs).not_to_contain_text("Only you see")
    page.get_by_role("button", name="Headquarters: whole gang Available ($1)").click()
    mine.locator(f".hcard[data-card='{top}'] button").click()
    assert sent(page) == legal[:2]


def test_a_private_jet_decision_of_a_player_who_is_not_active(
    harness: tuple[Page, dict[str, Any]],
) -> None:
    page, view = harness
    me = view["players"][0]
    me["gang"] = [*me["gang"], {"card": 114, "engaged": True, "learned": None}]
    view.update(
        stage="reward",
        rewards=["rally"],
        to_act=[0],
        active=1,
        jets=[0],
        heist=303,
        options={**view["options"], "resources": True},
    )
    legal = [{"type": "private_jet", "gangster": 114}, {"type": "skip"}]
    page.evaluate(HARNESS, [view, legal])
    expect(page.locator("#h-prompt .ask")).to_have_text(
        "Private jet: choose one of your Engaged gangsters to make Available."
    )
    expect(page.locator("#h-prompt button")).to_have_text(["No, thanks (Private jet)"])
    page.locator("#h-board .gcard[data-card='114']").get_by_role(
        "button", name="Make Available (Private jet)"
    ).click()
    assert sent(page) == [legal[0]]
