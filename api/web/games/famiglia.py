"""Famiglia's part of the pages."""

from __future__ import annotations

from functools import cache
from typing import Any

from api.web.games.pages import GamePages
from domain.famiglia import cards


@cache
def _cards() -> dict[str, Any]:
    # The game's own data, never copied.
    return {
        "families": list(cards.FAMILIES),
        "points": {f: list(p) for f, p in cards.POINTS_BY_RANK.items()},
    }


PAGES = GamePages(
    name="famiglia",
    card_script="famiglia_cards.js",
    board_script="famiglia.js",
    help_script="famiglia_help.js",
    cards=_cards,
    rule_options=("double_pass_ends", "mercenary_for_green"),
)
