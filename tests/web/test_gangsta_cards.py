"""Gangsta!'s cards on a game's page read on a phone and on a desktop: the words on a card
(a Boss's tag, a clan, a gang member's state) wrap between words, never inside one ("Bo ss",
"AVAILAB LE" and "ENGAGE D" were drawn on two lines)."""

from __future__ import annotations

import random
from collections.abc import Callable

import msgspec
import pytest
from playwright.sync_api import BrowserContext, expect

from bootstrap import Container
from tests.services.helpers import pick_move
from tests.web.conftest import screenshot
from tests.web.flows import split_words, watch_errors

CARDS = "#board .card:is(.gcard, .hcard, .scard)"


@pytest.fixture(scope="module")
def engaged_game(container: Container) -> str:
    """A three-player Gangsta! game played (random legal moves) until a gangster is engaged in
    a heist: the board shows Bosses, available and engaged gang members, heists."""
    svc = container.commands
    game_id = svc.create_game("gangsta", 3)
    rng = random.Random(32)
    for sent in range(500):
        _, state, _, _ = svc.load(game_id)
        if any(m.engaged for p in state.game.players for m in p.gang):
            return game_id
        move = pick_move(svc, game_id, rng)
        assert move is not None, "the game ended before a gangster was engaged"
        seat, command = move
        svc.handle(game_id, seat, msgspec.to_builtins(command), f"g{sent}")
    raise AssertionError("no gangster engaged after 500 moves")


@pytest.mark.parametrize(
    ("locale", "width"),
    [("en-GB", 360), ("en-GB", 390), ("en-GB", 1280), ("ja-JP", 360), ("ja-JP", 390),
     ("ja-JP", 1280)],
)  # fmt: skip
def test_the_words_on_gangsta_cards_wrap_between_words(
    engaged_game: str, new_context: Callable[..., BrowserContext], locale: str, width: int
) -> None:
    phone = width < 720
    page = new_context(
        viewport={"width": width, "height": 800 if phone else 900}, locale=locale, mobile=phone
    ).new_page()
    errors = watch_errors(page)
    page.goto(f"/play/{engaged_game}")
    expect(page.locator(f"{CARDS} .state").first).to_be_visible()
    expect(page.locator("#board .gcard.engaged").first).to_be_visible()
    screenshot(page, f"gangsta-cards-{locale[:2]}-{width}")
    words, split = split_words(page, CARDS)
    if locale == "en-GB":
        assert words >= {"Boss", "Available", "Engaged"}, words
    else:
        assert any(w.startswith("$") for w in words), words  # the figures, in Japanese too
    assert split == [], split
    assert errors == []
