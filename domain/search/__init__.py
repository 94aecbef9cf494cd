"""Search for the strong bot levels: information-set MCTS over a game package's ``sample``."""

from domain.search.ismcts import Sampler, rewards, search

__all__ = ["Sampler", "rewards", "search"]
