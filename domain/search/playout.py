"""The playout contract: the fast path through a game's rules that the search walks.

A game package may have a ``playout`` module (``domain/<game>/playout.py``) with seven
module-level functions, the ``Playout`` protocol below: a compact search state entered from a
full game state, the rules on it (``to_act``, ``legal``, ``step``, ``done``, equal to the game's
own, kept so by the game's property tests) and the game's own rollout policy (``playout``: each
seat's reward from here on). ``generic(game)`` builds one from any ``Game`` package, for games
without a ``playout`` module and for tests.
"""

from __future__ import annotations

import typing
from collections.abc import Callable, Collection
from typing import Any, Protocol, TypeVar

from domain.core import C, E, Game, Result, S
from domain.rng import Rng

# A share of the reward for the score margin, so that a lost game is still lost by less.
MARGIN_WEIGHT = 0.1
# A guard against a rules defect looping a rollout forever (games end far sooner).
MAX_COMMANDS = 100_000

# (game, state, seat, legal, rng) -> the command ``seat`` plays in a rollout.
Rollout = Callable[[Game[S, C, Any, Any], S, int, list[C], Rng], C]

# A game's full state, which a search enters from (Playout's only parameter it only takes).
F_contra = TypeVar("F_contra", contravariant=True)


class Playout(Protocol[F_contra, S, C]):
    """What search needs of a game (a module with these functions fits): entered from the
    game's full state ``F_contra``, it walks search states ``S`` by commands ``C``."""

    def enter(self, state: F_contra) -> S:
        """A search state from a full game state (called once per iteration on the sample)."""

    def to_act(self, s: S) -> Collection[int]:
        """The seats that owe a decision (``game.to_act``)."""

    def legal(self, s: S, seat: int) -> list[C]:
        """``game.legal``: the same commands in the same order."""

    def step(self, s: S, seat: int, command: C) -> S:
        """The state after ``seat`` plays ``command`` (one of ``legal``; no checks needed)."""

    def done(self, s: S) -> Result | None:
        """``game.result``."""

    def playout(self, s: S, rng: Rng, margin: float = MARGIN_WEIGHT) -> list[float]:
        """Each seat's reward in [0, 1] from here on, by the game's rollout policy, with
        ``margin`` as in ``rewards`` (0: the win share alone, the review's win chance)."""

    def considered(self, legal: list[C]) -> list[C]:
        """The legal commands a search weighs for its move: a game may leave out one that only
        takes back the seat's own last decision, which a search values like the position before
        and so could play back and forth (never all of them)."""


def rewards(result: Result, seats: int, margin: float = MARGIN_WEIGHT) -> list[float]:
    """Each seat's reward in [0, 1]: mostly its share of the win (1 alone, 1/k shared with k
    winners, 0 for a loss), plus ``margin`` (``MARGIN_WEIGHT``) for its score margin against the
    best other seat, scaled by the largest score, so a bot that cannot win still loses by as
    little as it can and one that wins keeps its lead. With ``margin`` 0: the win share alone."""
    scores = result.scores
    scale = max(1, max(abs(s) for s in scores))
    out = []
    for seat in range(seats):
        win = 1.0 / len(result.winners) if seat in result.winners else 0.0
        best_other = max(s for other, s in enumerate(scores) if other != seat)
        lead = max(-1.0, min(1.0, (scores[seat] - best_other) / scale))
        out.append((1 - margin) * win + margin * (1 + lead) / 2)
    return out


def uniform(game: Game[S, C, Any, Any], state: S, seat: int, legal: list[C], rng: Rng) -> C:
    """The default rollout policy: uniform over the legal commands."""
    return legal[rng.below(len(legal))]


class Generic(typing.Generic[S, C, E]):
    """``Playout`` for any ``Game`` package: its full state is the search state, a step folds
    ``decide`` through ``evolve``, and a rollout plays ``policy`` (lowest waiting seat first,
    as ``domain.play.play``) to the end of the game."""

    def __init__(self, game: Game[S, C, E, Any], policy: Rollout[S, C] = uniform) -> None:
        self.game = game
        self.policy = policy

    def enter(self, state: S) -> S:
        return state

    def to_act(self, s: S) -> Collection[int]:
        return self.game.to_act(s)

    def legal(self, s: S, seat: int) -> list[C]:
        return self.game.legal(s, seat)

    def step(self, s: S, seat: int, command: C) -> S:
        for event in self.game.decide(s, seat, command):
            s = self.game.evolve(s, event)
        return s

    def done(self, s: S) -> Result | None:
        return self.game.result(s)

    def considered(self, legal: list[C]) -> list[C]:
        return legal

    def playout(self, s: S, rng: Rng, margin: float = MARGIN_WEIGHT) -> list[float]:
        result = self.game.result(s)
        steps = 0
        while result is None:
            steps += 1
            if steps > MAX_COMMANDS:
                raise RuntimeError(f"rollout did not end within {MAX_COMMANDS} commands")
            waiting = self.game.to_act(s)
            if not waiting:
                raise RuntimeError("game is not over but nobody is to act")
            seat = min(waiting)
            legal = self.game.legal(s, seat)
            s = self.step(s, seat, self.policy(self.game, s, seat, legal, rng))
            result = self.game.result(s)
        return rewards(result, len(result.scores), margin)


def generic(game: Game[S, C, E, Any], policy: Rollout[S, C] = uniform) -> Playout[S, S, C]:
    """A ``Playout`` for the inner game package ``game`` (rollouts by ``policy``)."""
    return Generic(game, policy)
