"""The operations on ratings: a game's leaderboard, a player's page."""

from __future__ import annotations

from api.openapi.route import Route, path_param, query
from api.routes import ratings
from domain import GAMES

PAGE = (
    query("offset", "skip this many entries"),
    query("limit", f"at most this many entries (default {ratings.DEFAULT_LIMIT})",
          1, ratings.MAX_LIMIT),
)  # fmt: skip
RATING = (
    "Ratings are OpenSkill (Plackett-Luce) per player and game, from finished games: `rating` "
    "is the shown number, 1000 + 40 (mu - 3 sigma), which grows as the rating gets surer. "
    "AI levels are rated too, as the players `ai:random` and `ai:greedy`."
)
RATING_ROUTES: tuple[Route, ...] = (
    Route(
        "get",
        "/leaderboard/{game}",
        "A game's leaderboard: rated players and AI levels, best first",
        (200, ratings.LeaderboardOut),
        params=(path_param("game", about=" or ".join(GAMES)), *PAGE),
        codes=("bad_parameter", "store_unavailable", "unknown_leaderboard"),
        tag="ratings",
        description=RATING,
    ),
    Route(
        "get",
        "/players/{player_id}",
        "A player (or an AI level): ratings per game, their history, games newest first",
        (200, ratings.ProfileOut),
        params=(
            path_param("player_id", about="a player id (from a game's seats) or ai:<level>"),
            *PAGE,
        ),
        codes=("bad_parameter", "store_unavailable", "unknown_player"),
        tag="ratings",
        description=RATING + " `offset` and `limit` page the games.",
    ),
)
