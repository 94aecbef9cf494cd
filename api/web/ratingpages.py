"""The leaderboard page (``/rankings/<game>``) and the player page (``/profile/<id>``), drawn on
the server from the same answers as ``GET /leaderboard/{game}`` and ``GET /players/{id}``
(``api.routes.ratings``): plain links and tables, the rating plot an SVG element, no script.

The pages have paths of their own, as the other pages do (``/play/<id>`` for ``/games/{id}``):
the API's paths answer JSON.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from flask import Blueprint, Flask, Response, make_response, request

from api.http.params import whole_number
from api.http.problems import ApiError
from api.routes import ratings
from api.web import _page, i18n
from api.web.plot import rating_plot
from domain import GAMES
from services.readside.ratingmath import ai_identity, ranks

bp = Blueprint("ratingpages", __name__)

PAGE_SIZE = 50


def register(app: Flask) -> None:
    app.register_blueprint(bp)


def _offset() -> int | None:
    """The page's offset; None for a bad one (the page then starts at 0)."""
    try:
        return whole_number("offset", request.args.get("offset", "0"))
    except ApiError:
        return None


def _not_found() -> Response:
    return make_response(_page("not_found.html", "ratings.not_found"), 404)


@bp.get("/rankings/<game>")
def leaderboard_page(game: str) -> Response:
    if game not in GAMES:
        return _not_found()
    board = ratings.leaderboard(game, _offset() or 0, PAGE_SIZE)
    return make_response(
        _page(
            "leaderboard.html",
            "page.leaderboard",
            board=board,
            kinds=sorted(GAMES),
            pages=_pages(board.offset, board.total),
        )
    )


@bp.get("/profile/<player_id>")
def profile_page(player_id: str) -> Response:
    try:
        shown = ratings.profile(player_id, _offset() or 0, PAGE_SIZE)
    except ApiError as exc:
        if exc.status == 404:
            return _not_found()
        raise
    lang = i18n.language()
    plots = {
        h.game: rating_plot(
            [(p.time, p.rating) for p in h.points],
            i18n.translate(lang, "profile.plot", game=i18n.translate(lang, f"game.{h.game}")),
            i18n.translate(lang, "profile.axis_time"),
            i18n.translate(lang, "ratings.rating"),
            lang,
        )
        for h in shown.history
        if h.points
    }
    return make_response(
        _page(
            "profile.html",
            "page.profile",
            shown=shown,
            plots=plots,
            outcomes={g.game_id: _outcome(g) for g in shown.games},
            day=partial(i18n.day, lang),
            iso_day=i18n.iso_day,
            ai_id=ai_identity,
            pages=_pages(shown.offset, shown.total_games),
        )
    )


def _pages(offset: int, total: int) -> dict[str, int | None]:
    """The offsets of the previous and next pages (None: there is none)."""
    return {
        "previous": max(offset - PAGE_SIZE, 0) if offset > 0 else None,
        "next": offset + PAGE_SIZE if offset + PAGE_SIZE < total else None,
    }


def _outcome(game: ratings.PlayerGame) -> tuple[str, dict[str, Any]]:
    """The message key (and its values) of how the game went for the player."""
    result = game.result
    if result is None:
        return "profile.running", {}
    if result.reason == "expired":
        return "reason.expired", {"days": f"{result.details['days']:g}"}
    if len(result.winners) == len(result.scores) > 1:
        return "profile.draw", {}
    if any(s in result.winners for s in game.their_seats):
        return "profile.won", {}
    if not game.their_seats:
        return "profile.over", {}
    place = min(ranks(result)[s] for s in game.their_seats)
    return "profile.place", {"n": place, "of": len(result.scores)}
