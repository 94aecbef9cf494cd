"""Finished games for the review's tests: greedy bots, a fixed secret, the stored events."""

from __future__ import annotations

import functools
from typing import Any

from domain import GAMES
from domain.bots import choose
from domain.play import play, secret_for


def _greedy(game: str) -> Any:
    def policy(seat: int, view: Any, legal: list[Any]) -> Any:
        return choose(game, "greedy", view, legal, b"test-%d-%d" % (seat, len(legal)))

    return policy


@functools.cache
def finished(game: str, seats: int, n: int = 3, resources: bool = False) -> tuple[Any, ...]:
    """The stored events of game number ``n``, played to the end by greedy bots (Gangsta!:
    with the resources module, whose kept cards are hidden a while, if ``resources``)."""
    inner = GAMES[game].inner
    options = inner.options({"resources": True} if resources else None)
    events = list(inner.start(seats, secret_for(n), options))
    for step in play(inner, seats, secret_for(n), options, [_greedy(game)] * seats):
        events.extend(step.events)
    return tuple(events)
