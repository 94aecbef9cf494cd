"""Search for the strong bot levels: information-set MCTS over a game package's ``sample``,
walking the game's ``playout`` (its fast path through the rules, or ``generic(game)``)."""

from domain.search.ismcts import Sampler, search, win_chance
from domain.search.playout import MARGIN_WEIGHT, Playout, Rollout, generic, rewards

__all__ = [
    "MARGIN_WEIGHT",
    "Playout",
    "Rollout",
    "Sampler",
    "generic",
    "rewards",
    "search",
    "win_chance",
]
