"""The rating arithmetic: one OpenSkill rating (Plackett-Luce, ``openskill``) per (player, game)
from the finished games, AI levels included. Pure: ``services.readside.ratings`` keeps the
ratings and their inputs in the store.

Who is rated: a seat's identity is its person's player id (``services.games.seats`` seats hash;
a seat a bot took over still counts for its person), or ``ai:<level name>`` for a seat the
game was created with an AI on (``GameMeta.ai``; every AI seat at a level counts for that
level's identity). Left out of a game's rating: the seats its result lists in
``details["unrated"]`` (a conceding or forfeiting seat in a 3-4 player game), and a seat with
nobody in it (an open seat: no person ever joined it). The others are rated among themselves;
a game left with fewer than two identities rates nobody.

Ranks (``ranks``): the winners share rank 1 (a draw: everybody wins), the others follow by score,
equal scores sharing a rank. Two seats of one identity in a game (two ``greedy`` bots) are rated
as two entrants, and the identity's rating moves by the sum of their two moves (mu) and shrinks
by the product of their shrinkings (sigma); it counts one game played.

The order of games (``order``): finished games are folded by (finish time, game id), the finish
time being the final event's envelope time (``Summary.updated``).
"""

from __future__ import annotations

import math

import msgspec
from openskill.models import PlackettLuce

from domain.bots import level_name
from domain.core import Result
from services.eventstore.records import GameMeta

MODEL = PlackettLuce()
AI_PREFIX = "ai:"
DISPLAY_SCALE = 40
DISPLAY_BASE = 1000
"""The shown rating: ``DISPLAY_BASE + DISPLAY_SCALE * (mu - 3 sigma)``; a newcomer shows 1000,
and the number grows as the rating's lower bound does (conservative: few games, low number)."""


def ai_identity(level: int | str) -> str:
    return AI_PREFIX + level_name(level)


class Rating(msgspec.Struct, frozen=True, array_like=True):
    mu: float
    sigma: float
    games: int

    @property
    def ordinal(self) -> float:
        return MODEL.rating(self.mu, self.sigma).ordinal()

    @property
    def display(self) -> int:
        return round(DISPLAY_BASE + DISPLAY_SCALE * self.ordinal)


NEW = Rating(MODEL.mu, MODEL.sigma, 0)


class RatedGame(msgspec.Struct, frozen=True, array_like=True):
    """What one finished game rates: its kind, finish time and (identity, rank) per rated
    seat, in seat order."""

    game: str
    time: int
    seats: list[tuple[str, int]]


def ranks(result: Result) -> list[int]:
    """Each seat's rank, 1 + the number of seats ahead of it: winners are ahead of every other
    seat, and the others are ordered by score (equal scores share a rank)."""
    winners = set(result.winners)
    others = [s for s in range(len(result.scores)) if s not in winners]
    out = []
    for seat, score in enumerate(result.scores):
        ahead = (
            0
            if seat in winners
            else len(winners) + sum(1 for o in others if result.scores[o] > score)
        )
        out.append(1 + ahead)
    return out


def identities(meta: GameMeta, owners: dict[int, str]) -> dict[int, str]:
    """The identity of every seat that has one (open seats have none)."""
    out: dict[int, str] = {}
    for seat in range(meta.seats):
        if seat in meta.ai:
            out[seat] = ai_identity(meta.ai[seat])
        elif seat in owners:
            out[seat] = owners[seat]
    return out


def rated_game(meta: GameMeta, owners: dict[int, str], result: Result, time: int) -> RatedGame:
    unrated = set(result.details.get("unrated", []))
    who = identities(meta, owners)
    seat_ranks = ranks(result)
    seats = [(who[s], seat_ranks[s]) for s in sorted(who) if s not in unrated]
    return RatedGame(meta.game, time, seats)


def fold(ratings: dict[str, Rating], game: RatedGame) -> dict[str, Rating]:
    """The new ratings of the game's identities (``ratings`` holds their current ones; a
    missing one is new); empty when the game rates nobody."""
    if len({identity for identity, _ in game.seats}) < 2:
        return {}
    before = [ratings.get(identity, NEW) for identity, _ in game.seats]
    teams = [[MODEL.rating(r.mu, r.sigma)] for r in before]
    after = MODEL.rate(teams, ranks=[float(rank) for _, rank in game.seats])
    moved: dict[str, list[tuple[float, float]]] = {}
    for (identity, _), (new,) in zip(game.seats, after, strict=True):
        moved.setdefault(identity, []).append((new.mu, new.sigma))
    out = {}
    for identity, results in moved.items():
        old = ratings.get(identity, NEW)
        if len(results) == 1:
            mu, sigma = results[0]
        else:
            mu = old.mu + sum(m - old.mu for m, _ in results)
            sigma = old.sigma * math.prod(s / old.sigma for _, s in results)
        out[identity] = Rating(mu, sigma, old.games + 1)
    return out


def order(inputs: dict[str, RatedGame]) -> list[str]:
    """The game ids in fold order: finish time, then game id."""
    return sorted(inputs, key=lambda game_id: (inputs[game_id].time, game_id))
