"""A game's chat (``services.games.chat``): seated players write, everyone who can see the
game reads; live, the messages come with the game's events (``api.live.sse``)."""

from __future__ import annotations

from flask import Blueprint, Response, request

from api.context import caller, deps
from api.http.jsonio import body, reply
from api.http.params import query_number
from api.http.problems import ApiError
from api.schemas.common import COMMAND_ID_HEADER
from api.schemas.social import ChatIn, ChatOut
from services.eventstore import idempotency

bp = Blueprint("chat", __name__)


@bp.post("/games/<game_id>/chat")
def post(game_id: str) -> Response:
    player = caller()
    d = deps()
    d.commands.load(game_id)  # an unknown game is a 404
    seat = d.players.seat_of(game_id, player.id)
    if seat is None:
        raise ApiError(403, "not_seated", "only the game's players write in its chat", case="chat")
    sent = body(ChatIn)
    key = idempotency.check_key(request.headers.get(COMMAND_ID_HEADER))
    message = d.chat.post(game_id, seat, sent.text, key, idempotency.fingerprint(sent))
    return reply(message, 201)


@bp.get("/games/<game_id>/chat")
def read(game_id: str) -> Response:
    d = deps()
    d.commands.load(game_id)
    messages = d.chat.read(game_id, query_number("after", 0))
    return reply(ChatOut(game_id, messages))
