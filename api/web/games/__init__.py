"""Each game's part of the pages, one module per game, found here by the game's name (the keys
of ``domain.GAMES``): a new game adds its module and one line below."""

from __future__ import annotations

from api.web.games import famiglia, gangsta
from api.web.games.pages import GamePages

WEB_GAMES: dict[str, GamePages] = {g.name: g for g in (famiglia.PAGES, gangsta.PAGES)}
