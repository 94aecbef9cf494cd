"""AI opponents: pure functions from what one seat may know to one of its legal commands.

A bot gets exactly what a player gets: the seat's ``view(state, seat)`` and its
``legal(state, seat)`` commands, plus a generator (``domain.rng``) on the seed it is given (the
workers make it from a server-side secret, the game id, version and seat: a move can be
recomputed, not predicted; ``services.eventstore.serversecret``). Never the state, the game's
seed or a deck.

Levels: ``random`` (uniform over the legal commands) and ``greedy`` (one-move lookahead with a
heuristic per game, see ``famiglia.py`` and ``gangsta.py``). A numeric level (the API's
``ai: {seat: level}``) means ``random`` for 0 and ``greedy`` for anything higher: the strongest
bot there is at or below that level.

The search levels ``medium`` (0.1 s a move) and ``expert`` (1 s) run information-set MCTS
(``domain.search``) and need more of what the seat has seen: its seat number, its history (the
game's events as ``redact`` gives them to it, see ``seen_history``) and a clock, in ``Seen``.
They are offered for a game whose package has a ``sample`` module (``domain/<game>/sample.py``),
and only then; the search walks the package's ``playout`` module (its fast path through the
rules and its rollout policy, ``domain.search.playout``) if it has one, else the plain rules,
and starts from the greedy bot's choice (its prior: the search leaves it on evidence only).
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Sequence
from typing import Any

import msgspec

from domain import search
from domain.bots import famiglia, gangsta, uniform
from domain.core import Game, RuleViolation
from domain.rng import Rng
from domain.table import Table
from domain.table.messages import EVENTS, Undone

Bot = Callable[[Any, list[Any], Rng], Any]

LEVELS: tuple[str, ...] = ("random", "greedy")

BOTS: dict[tuple[str, str], Bot] = {
    ("famiglia", "random"): uniform.choose,
    ("famiglia", "greedy"): famiglia.greedy,
    ("gangsta", "random"): uniform.choose,
    ("gangsta", "greedy"): gangsta.greedy,
}

# The search levels and their time budget per move, in seconds.
SEARCH_LEVELS: dict[str, float] = {"medium": 0.1, "expert": 1.0}


class Seen(msgspec.Struct, frozen=True):
    """What a search level needs beyond the view and legal commands: the seat, the game's
    events as that seat was shown them (``seen_history``) and a clock (seconds). The rest is
    for measuring and tuning (the tournament): a budget in place of the level's, an iteration
    cap (alone, without a budget: a reproducible search, the clock unread), and ``report``,
    told how many iterations the move took."""

    seat: int
    history: list[Any]
    clock: Callable[[], float]
    budget: float | None = None
    iterations: int | None = None
    report: Callable[[int], None] | None = None


def _module(game: str, name: str) -> Any:
    """``domain.<game>.<name>``, or None if the game package has no such module."""
    module = f"domain.{game}.{name}"
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name is None or not module.startswith(exc.name):
            raise  # a module it imports is missing: a defect, not an absent module
        return None


@functools.cache
def sampler(game: str) -> search.Sampler | None:
    """The game package's ``sample`` function, or None while it has none (the search levels are
    then not offered for that game)."""
    module = _module(game, "sample")
    return module.sample if module is not None else None


@functools.cache
def playout(game: str) -> search.Playout:
    """The game package's ``playout`` module (its fast path for search), or while it has none
    ``search.generic`` over its rules (uniform rollouts)."""
    module = _module(game, "playout")
    return module if module is not None else search.generic(_inner(game))


def _inner(game: str) -> Game:
    return importlib.import_module(f"domain.{game}").game


def levels(game: str) -> tuple[str, ...]:
    """The levels offered for ``game``."""
    searched = tuple(SEARCH_LEVELS) if sampler(game) is not None else ()
    return LEVELS + searched


def standing(table: Table, events: Sequence[Any]) -> list[tuple[int, Any]]:
    """The game's own events (not the table's) that stand, each with its position in
    ``events`` (the stored events, not redacted): the moves an undo took back are left out,
    as they no longer happened."""
    kept: list[tuple[int, Any]] = []
    state = None
    for position, event in enumerate(events):
        if isinstance(event, Undone):
            point = state.point if state is not None else None
            del kept[len(kept) - (point.since if point is not None else 0) :]
        elif not isinstance(event, EVENTS):
            kept.append((position, event))
        state = table.evolve(state, event)
    return kept


def seen_history(table: Table, events: Sequence[Any], seat: int) -> list[Any]:
    """The game's own events that stand (``standing``), as ``seat`` is shown them while the
    game runs: ``events`` are the stored events, not redacted (server side)."""
    return [table.inner.redact(event, seat) for _, event in standing(table, events)]


def level_name(level: int | str) -> str:
    """The bot level a game's AI seat asks for; RuleViolation("bad_ai_level") if none fits."""
    if isinstance(level, bool):
        raise RuleViolation("bad_ai_level", f"{level!r} is not an AI level", level=str(level))
    if isinstance(level, int) and level >= 0:
        return LEVELS[min(level, len(LEVELS) - 1)]
    searched = tuple(SEARCH_LEVELS) if any(sampler(g) for g, _ in BOTS) else ()
    if level in LEVELS or level in searched:
        return str(level)
    raise RuleViolation(
        "bad_ai_level",
        f"{level!r} is not an AI level (use {', '.join(LEVELS + searched)} or 0 and up)",
        level=str(level),
        levels=list(LEVELS + searched),
    )


def choose(
    game: str, level: int | str, view: Any, legal: list[Any], seed: bytes, seen: Seen | None = None
) -> Any:
    """One of ``legal``, chosen by the bot of that game and level (a search level needs
    ``seen``)."""
    if not legal:
        raise RuleViolation("nothing_legal", "the bot was asked to move with no legal command")
    name = level_name(level)
    sample = sampler(game) if name in SEARCH_LEVELS else None
    if sample is not None:
        if seen is None:
            raise ValueError(f"the {name} level needs the seat, its history and a clock")
        return _search(game, name, view, legal, seed, seen, sample)
    bot = BOTS.get((game, name))
    if bot is None:
        raise RuleViolation(
            "no_bot", f"there is no {level!r} bot for {game!r}", level=str(level), game=game
        )
    return bot(view, legal, Rng(seed, b"bot"))


def _search(
    game: str, name: str, view: Any, legal: list[Any], seed: bytes, seen: Seen, sample: Any
) -> Any:
    # An iteration cap alone makes a reproducible search: no clock stops it.
    clock = None if seen.iterations is not None and seen.budget is None else seen.clock
    budget = SEARCH_LEVELS[name] if seen.budget is None else seen.budget
    start = clock() if clock is not None else 0.0
    module = playout(game)
    weighed = module.considered(legal)
    # The greedy bot's choice is the search's prior; its time comes out of the budget.
    greedy = BOTS.get((game, "greedy"))
    prior = greedy(view, weighed, Rng(seed, b"prior")) if greedy and len(weighed) > 1 else None
    if clock is not None:
        budget -= clock() - start
    return search.search(
        module,
        seen.seat,
        view,
        weighed,
        seen.history,
        sample,
        Rng(seed, b"bot"),
        clock=clock,
        budget=budget,
        iterations=seen.iterations,
        report=seen.report,
        prior=prior,
    )
