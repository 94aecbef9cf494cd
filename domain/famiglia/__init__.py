"""Famiglia (Friedemann Friese, 2010) for 2 players: see shared/rules/FAMIGLIA.md.

The readings of points the rules page leaves open are in docs/famiglia.md.
"""

from domain.core import GamePackage
from domain.famiglia import messages, rules, state, table_hooks, view

game = GamePackage("famiglia", rules.SEATS, rules.SEATS, messages, state, rules, view, table_hooks)
