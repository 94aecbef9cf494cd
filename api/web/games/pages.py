"""What a game's web module declares: the pieces of the shared pages that are the game's own."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class GamePages:
    """One game's part of the pages. The scripts are files of ``static/``: ``card_script``
    draws the game's cards (it adds to ``Cards``); ``board_script`` defines ``GameUI`` (the
    board, the log's lines, legal moves made clickable, and what a finished game's replay
    reveals); ``help_script`` defines ``GameHelp`` (why a move is missing; the game page only).
    ``cards`` is the data the cards are drawn from, and ``rule_options`` the options the rules
    page explains, in its order."""

    name: str
    card_script: str
    board_script: str
    help_script: str
    cards: Callable[[], dict[str, Any]]
    rule_options: tuple[str, ...]

    def rules_template(self, lang: str) -> str:
        """The rules page in ``lang``: prose per language, so a translator edits one page."""
        return f"rules/{self.name}.{lang}.html"
