"""Gangsta! (Yves Rosenbaum, 2019) for 2-4 players: see shared/rules/GANGSTA.md and
docs/gangsta.md (the readings chosen where the rules page is unclear)."""

from domain.core import GamePackage
from domain.gangsta import evolve, messages, rules, table_hooks, view

game = GamePackage(
    "gangsta", rules.MIN_SEATS, rules.MAX_SEATS, messages, evolve, rules, view, table_hooks
)
