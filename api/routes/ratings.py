"""Ratings (``services.readside.ratings``): a game's leaderboard and a player's page, for anybody.

A player id is public already (every game's seat list shows it) and grants nothing: acting as
a player takes their token (``services.identity.players``), a device session's token or a sign-in
secret (``services.identity.devices``), all of them separate random secrets kept only as hashes. So
the pages and these routes name players by their id. An AI level's id is ``ai:<level>``.

The web pages (``api.web.ratings``) render the same answers (``leaderboard``, ``profile``).
"""

from __future__ import annotations

from typing import Literal

import msgspec
from flask import Blueprint, Response

from api.context import deps
from api.games.tables import entries
from api.http.jsonio import reply
from api.http.params import query_number
from api.http.problems import ApiError
from api.schemas.games import SeatOut
from domain import GAMES
from domain.bots import LEVELS, SEARCH_LEVELS
from domain.core import Result
from services.readside import ratingmath
from services.readside import ratings as rt
from services.readside.reviews import Reviews

bp = Blueprint("ratings", __name__)

MAX_LIMIT = 100
DEFAULT_LIMIT = 50
HISTORY_POINTS = 200  # the latest ratings a player page plots, per game


class RatedEntry(msgspec.Struct, frozen=True):
    """One line of a leaderboard: ``rating`` is the shown number (1000 + 40 (mu - 3 sigma)),
    ``player`` a player id or ``ai:<level>``, ``name`` the player's name or the AI level."""

    rank: int
    player: str
    kind: Literal["player", "ai"]
    name: str | None
    rating: int
    mu: float
    sigma: float
    games: int


class LeaderboardOut(msgspec.Struct, frozen=True):
    game: str
    total: int
    offset: int
    limit: int
    entries: list[RatedEntry]


class GameRating(msgspec.Struct, frozen=True):
    """The player's rating in one game and place (``rank``) on its leaderboard."""

    game: str
    rank: int
    rating: int
    mu: float
    sigma: float
    games: int


class RatingPoint(msgspec.Struct, frozen=True):
    time: int  # when the game finished (ms)
    game_id: str
    rating: int


class RatingHistory(msgspec.Struct, frozen=True):
    """The player's rating after each of their latest rated games, oldest first."""

    game: str
    points: list[RatingPoint]


class PlayerGame(msgspec.Struct, frozen=True):
    """A game of the player: ``their_seats`` are the player's (an AI level may have several);
    ``accuracy`` theirs in the game's review (the mean of their seats' that have one), null
    without a review or when none of their seats took a decision."""

    game_id: str
    game: str
    created: int
    over: bool
    seats: list[SeatOut]
    their_seats: list[int]
    result: Result | None
    accuracy: float | None = None


class _Accuracy(msgspec.Struct):
    seat: int
    accuracy: float | None


class _Accuracies(msgspec.Struct):
    """The part of a stored review (``domain.review.Review``) a player's games show."""

    players: list[_Accuracy]


def _accuracy(reviews: Reviews, game_id: str, seats: list[int]) -> float | None:
    stored = reviews.read(game_id)
    if stored is None or not seats:
        return None
    found = msgspec.json.decode(stored, type=_Accuracies).players
    figures = [p.accuracy for p in found if p.seat in seats and p.accuracy is not None]
    return round(sum(figures) / len(figures), 1) if figures else None


class ProfileOut(msgspec.Struct, frozen=True):
    """A player's (or an AI level's) ratings and games. A person's games are every game they
    sit in; an AI level's are its latest rated games (those its ``history`` plots)."""

    player: str
    kind: Literal["player", "ai"]
    name: str | None
    ratings: list[GameRating]
    history: list[RatingHistory]
    total_games: int
    offset: int
    limit: int
    games: list[PlayerGame]  # newest first, from ``offset``


def _page() -> tuple[int, int]:
    offset = query_number("offset", 0)
    limit = query_number("limit", DEFAULT_LIMIT)
    if not 1 <= limit <= MAX_LIMIT:
        raise ApiError(
            400,
            "bad_parameter",
            f"limit must be from 1 to {MAX_LIMIT}",
            name="limit",
            case="range",
            min=1,
            max=MAX_LIMIT,
        )
    return offset, limit


def _ratings() -> rt.Ratings:
    return rt.Ratings(deps().store)


def _ai_level(identity: str) -> str | None:
    level = identity.removeprefix(ratingmath.AI_PREFIX)
    known = level in LEVELS or level in SEARCH_LEVELS
    return level if identity.startswith(ratingmath.AI_PREFIX) and known else None


def leaderboard(game: str, offset: int, limit: int) -> LeaderboardOut:
    if game not in GAMES:
        raise ApiError(404, "unknown_leaderboard", f"there is no game {game!r}", game=game)
    total, rows = _ratings().leaderboard(game, offset, limit)
    names = deps().players.names(i for i, _ in rows if _ai_level(i) is None)
    out = []
    for rank, (identity, rating) in enumerate(rows, start=offset + 1):
        level = _ai_level(identity)
        out.append(
            RatedEntry(
                rank,
                identity,
                "player" if level is None else "ai",
                level or names.get(identity),
                rating.display,
                rating.mu,
                rating.sigma,
                rating.games,
            )
        )
    return LeaderboardOut(game, total, offset, limit, out)


def profile(identity: str, offset: int, limit: int) -> ProfileOut:
    level = _ai_level(identity)
    person = None if level is not None else deps().players.get(identity)
    if level is None and person is None:
        raise ApiError(404, "unknown_player", f"there is no player {identity!r}", player=identity)
    ratings = _ratings()
    rated = ratings.of(identity, GAMES)
    history = [
        RatingHistory(
            game,
            [
                RatingPoint(p.time, p.game_id, p.rating.display)
                for p in ratings.history(identity, game, HISTORY_POINTS)
            ],
        )
        for game in sorted(rated)
    ]
    if person is not None:
        game_ids = deps().players.games_of(identity)
    else:  # an AI level plays everywhere: its rated games, from its history
        played = {p.game_id: p.time for h in history for p in h.points}
        game_ids = sorted(played, key=lambda g: (played[g], g), reverse=True)
    shown = deps().read_models.summaries(game_ids[offset : offset + limit])
    games = []
    reviews = Reviews.of(deps().commands.store)
    for entry in entries(deps().players, shown, None):
        mine = [s.seat for s in entry.seats if s.player == identity or _is_level(s, level)]
        accuracy = _accuracy(reviews, entry.game_id, mine) if entry.over else None
        games.append(
            PlayerGame(
                entry.game_id, entry.game, entry.created, entry.over, entry.seats, mine,
                entry.result, accuracy,
            )
        )  # fmt: skip
    return ProfileOut(
        identity,
        "ai" if level is not None else "player",
        level if person is None else person.name,
        [
            GameRating(game, place, r.display, r.mu, r.sigma, r.games)
            for game, (r, place) in sorted(rated.items())
        ],
        history,
        len(game_ids),
        offset,
        limit,
        games,
    )


def _is_level(seat: SeatOut, level: str | None) -> bool:
    """Whether the seat is one of the level's: an AI seat of the game's creation (a seat a bot
    took over from a person names the person, and counts for them)."""
    if level is None or seat.kind != "ai" or seat.player is not None or seat.level is None:
        return False
    return ratingmath.ai_identity(seat.level) == ratingmath.AI_PREFIX + level


@bp.get("/leaderboard/<game>")
def show_leaderboard(game: str) -> Response:
    offset, limit = _page()
    return reply(leaderboard(game, offset, limit))


@bp.get("/players/<player_id>")
def show_player(player_id: str) -> Response:
    offset, limit = _page()
    return reply(profile(player_id, offset, limit))
