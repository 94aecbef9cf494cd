"""Rematch (issue 15): a seated player of a finished game asks for a new game with the same
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
    d = deps()
    made, seat = d.rematches.offer(game_id, player.id)
    d.chat.signal(game_id)  # the old game's open pages show the offer (again: harmless)
    return reply(RematchOut(made.game, made.by, seat))
