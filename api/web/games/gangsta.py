"""Gangsta!'s part of the pages."""

from __future__ import annotations

import json
from functools import cache
from importlib.resources import files
from typing import Any

from api.web.games.pages import GamePages

CARD_KEYS = ("skills", "clans", "bosses", "gangsters", "heists", "snitches", "resources")


@cache
def _cards() -> dict[str, Any]:
    # The game's own data, never copied.
    raw = json.loads(files("domain.gangsta").joinpath("cards.json").read_text("utf-8"))
    return {k: raw[k] for k in CARD_KEYS}


PAGES = GamePages(
    name="gangsta",
    card_script="gangsta_cards.js",
    board_script="gangsta.js",
    help_script="gangsta_help.js",
    cards=_cards,
    rule_options=(
        "domination_snitches",
        "coop_reward_needs_partner",
        "refill",
        "pass_discard",
        "public_heist_influence",
        "min_pass_income",
        "catch_up_cash",
        "clans",
        "resources",
    ),
)
