"""Players: create one (and get its secret token), who am I, my games, my inbox, the lobby."""

from __future__ import annotations

from flask import Blueprint, Response

from api.context import COOKIE, caller, caller_or_none, deps
from api.jsonio import body, reply
from api.schemas import GameList, NewPlayer, PlayerCreated, PlayerOut
from api.tables import entry

bp = Blueprint("players", __name__)

TOKEN_COOKIE_AGE = 10 * 365 * 24 * 3600


@bp.post("/players")
def create() -> Response:
    player, token = deps().players.create(body(NewPlayer).name)
    response = reply(PlayerCreated(player.id, player.name, token), 201)
    # For the web pages; SameSite keeps other sites' forms from sending it with a POST.
    response.set_cookie(
        COOKIE, token, max_age=TOKEN_COOKIE_AGE, httponly=True, samesite="Strict", path="/"
    )
    return response


@bp.get("/me")
def me() -> Response:
    player = caller()
    return reply(PlayerOut(player.id, player.name, player.created))


def _entries(game_ids: list[str], player_id: str | None) -> list:
    d = deps()
    return [entry(d.players, g, d.service.load(g), player_id) for g in game_ids]


@bp.get("/me/games")
def my_games() -> Response:
    player = caller()
    return reply(GameList(_entries(deps().players.games_of(player.id), player.id)))


@bp.get("/me/inbox")
def inbox() -> Response:
    """The caller's games in which the caller owes a decision now."""
    player = caller()
    games = _entries(deps().players.games_of(player.id), player.id)
    return reply(GameList([g for g in games if g.your_seat in g.to_act]))


@bp.get("/lobby")
def lobby() -> Response:
    """Public games with an open seat (POST /games/{id}/join takes one)."""
    player = caller_or_none()
    return reply(GameList(_entries(deps().players.lobby(), player.id if player else None)))
