"""Rematch: a seated player of a finished game asks for a new game with the same
seats and settings; everyone of the old game gets the same one (``services.games.rematch``)."""

from __future__ import annotations

from flask import Blueprint, Response

from api.context import caller, deps
from api.http.jsonio import reply
from api.schemas.social import RematchOut

bp = Blueprint("rematch", __name__)


@bp.post("/games/<game_id>/rematch")
def rematch(game_id: str) -> Response:
    player = caller()
    made, seat = deps().tables.rematch(game_id, player.id)
    return reply(RematchOut(made.game, made.by, seat))
