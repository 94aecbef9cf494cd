"""The rules of the games, pure: no infrastructure, clock or global randomness here."""

from __future__ import annotations

from domain import table
from domain.core import Game, Result, RuleViolation, Secret, commitment
from domain.famiglia import game as famiglia
from domain.gangsta import game as gangsta

# Every game is played at the table (domain.table: concede, draws, undo, time-outs, bot seats).
GAMES: dict[str, Game] = {g.name: table.table(g) for g in (famiglia, gangsta)}

__all__ = ["GAMES", "Game", "Result", "RuleViolation", "Secret", "commitment"]
