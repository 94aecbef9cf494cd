"""The rules of the games, pure: no infrastructure, clock or global randomness here."""

from __future__ import annotations

from domain.core import Game, Result, RuleViolation, Secret, commitment
from domain.famiglia import game as famiglia
from domain.gangsta import game as gangsta

GAMES: dict[str, Game] = {famiglia.name: famiglia, gangsta.name: gangsta}

__all__ = ["GAMES", "Game", "Result", "RuleViolation", "Secret", "commitment"]
