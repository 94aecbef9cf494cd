"""AI opponents: pure functions from what one seat may know to one of its legal commands.

A bot gets exactly what a player gets: the seat's ``view(state, seat)`` and its
``legal(state, seat)`` commands, plus a generator (``domain.rng``) on the seed it is given (the
workers make it from a server-side secret, the game id, version and seat: a move can be
recomputed, not predicted; ``services.serversecret``). Never the state, the game's seed or a deck.

Levels: ``random`` (uniform over the legal commands) and ``greedy`` (one-move lookahead with a
heuristic per game, see ``famiglia.py`` and ``gangsta.py``). A numeric level (the API's
``ai: {seat: level}``) means ``random`` for 0 and ``greedy`` for anything higher: the strongest
bot there is at or below that level.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from domain.bots import famiglia, gangsta, uniform
from domain.core import RuleViolation
from domain.rng import Rng

Bot = Callable[[Any, list[Any], Rng], Any]

LEVELS: tuple[str, ...] = ("random", "greedy")

BOTS: dict[tuple[str, str], Bot] = {
    ("famiglia", "random"): uniform.choose,
    ("famiglia", "greedy"): famiglia.greedy,
    ("gangsta", "random"): uniform.choose,
    ("gangsta", "greedy"): gangsta.greedy,
}


def level_name(level: int | str) -> str:
    """The bot level a game's AI seat asks for; RuleViolation("bad_ai_level") if none fits."""
    if isinstance(level, bool):
        raise RuleViolation("bad_ai_level", f"{level!r} is not an AI level", level=str(level))
    if isinstance(level, int) and level >= 0:
        return LEVELS[min(level, len(LEVELS) - 1)]
    if level in LEVELS:
        return str(level)
    raise RuleViolation(
        "bad_ai_level",
        f"{level!r} is not an AI level (use {', '.join(LEVELS)} or 0 and up)",
        level=str(level),
        levels=list(LEVELS),
    )


def choose(game: str, level: int | str, view: Any, legal: list[Any], seed: bytes) -> Any:
    """One of ``legal``, chosen by the bot of that game and level."""
    if not legal:
        raise RuleViolation("nothing_legal", "the bot was asked to move with no legal command")
    bot = BOTS.get((game, level_name(level)))
    if bot is None:
        raise RuleViolation(
            "no_bot", f"there is no {level!r} bot for {game!r}", level=str(level), game=game
        )
    return bot(view, legal, Rng(seed, b"bot"))
