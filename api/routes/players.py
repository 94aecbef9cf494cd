"""Players: create one (and get its secret token), who am I, my games, my inbox, the lobby."""

from __future__ import annotations

from typing import TypeVar

from flask import Blueprint, Response, request
from werkzeug.wrappers import Response as BaseResponse

from api.context import COOKIE, caller, caller_or_none, cookie_player, deps
from api.games.tables import entries
from api.http.jsonio import body, reply
from api.http.problems import ApiError
from api.schemas.common import COMMAND_ID_HEADER
from api.schemas.games import GameList
from api.schemas.players import NewPlayer, PlayerCreated, PlayerOut
from services.eventstore import idempotency
from services.readside.readmodels import ReadModels

bp = Blueprint("players", __name__)

TOKEN_COOKIE_AGE = 10 * 365 * 24 * 3600


@bp.post("/players")
def create() -> Response:
    new = body(NewPlayer)
    d = deps()
    sent = request.headers.get(COMMAND_ID_HEADER)
    # Nobody is signed in yet: the key alone names the request, so it must be unguessable.
    key = idempotency.check_key(sent, idempotency.MIN_PLAYER_KEY)
    present = None if new.replace else cookie_player()
    # A repeat of this browser's creation carries the cookie its first answer set: it gets
    # that answer again.
    if present is not None and (key is None or d.players.made_with(key) != present.id):
        raise ApiError(
            409,
            "player_exists",
            "this browser already has a player; send replace: true to start as a new one",
        )
    player, token = d.players.create(new.name, key, idempotency.fingerprint(new))
    return with_cookie(reply(PlayerCreated(player.id, player.name, token), 201), token)


# A reply, or a redirect (typed as Werkzeug's response, Flask's base class).
AnyResponse = TypeVar("AnyResponse", bound=BaseResponse)


def with_cookie(response: AnyResponse, token: str) -> AnyResponse:
    """The token as the web pages' cookie too; SameSite keeps other sites' forms from sending
    it with a POST."""
    response.set_cookie(
        COOKIE,
        token,
        max_age=TOKEN_COOKIE_AGE,
        httponly=True,
        samesite="Strict",
        secure=deps().settings.secure_cookies,
        path="/",
    )
    return response


@bp.get("/me")
def me() -> Response:
    player = caller()
    return reply(PlayerOut(player.id, player.name, player.created))


def _read_models() -> ReadModels:
    return deps().read_models


@bp.get("/me/games")
def my_games() -> Response:
    """The caller's games (as far as the workers have projected them), newest first."""
    player = caller()
    summaries = _read_models().summaries(deps().players.games_of(player.id))
    return reply(GameList(entries(deps().players, summaries, player.id)))


@bp.get("/me/inbox")
def inbox() -> Response:
    """The caller's games in which the caller owes a decision, waiting longest first."""
    player = caller()
    summaries = _read_models().inbox(player.id)
    return reply(GameList(entries(deps().players, summaries, player.id)))


@bp.get("/lobby")
def lobby() -> Response:
    """Public games with an open seat, newest first (POST /games/{id}/join takes one)."""
    player = caller_or_none()
    summaries = _read_models().lobby()
    return reply(GameList(entries(deps().players, summaries, player.id if player else None)))
