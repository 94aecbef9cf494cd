"""The operations of rematches and a game's chat."""

from __future__ import annotations

from api.openapi.games import CHAT_KEY, GAME_ID
from api.openapi.route import Route, query
from api.schemas.social import ChatIn, ChatOut, RematchOut
from services.games.chat import ChatMessage

SOCIAL_ROUTES: tuple[Route, ...] = (
    Route(
        "post",
        "/games/{game_id}/rematch",
        "Ask for (or take a seat in) the rematch of a finished game",
        (200, RematchOut),
        auth="required",
        params=(GAME_ID,),
        codes=(
            "game_expired",
            "game_not_over",
            "not_seated",
            "rate_limited",
            "rematch_pending",
            "store_unavailable",
            "unknown_game",
        ),
        description="For a seated player of a finished game (403 `not_seated` otherwise; 409 "
        "`game_not_over` while it runs). The first request makes a new game with the same "
        "seats and creation settings (options, AI seats and their levels, time control, public "
        "or not), seats the caller at their old seat and reserves each other person's old seat "
        "for that person: nobody else can take it, and they take it with this same request or "
        "`POST /games/{id}/join` without an invite. Every later request, by anyone of the old "
        "game, answers the same new game (409 `rematch_pending` only if one that is being made "
        "takes too long: retry). `GET /games/{id}` names it (`rematch`, `rematch_by`).",
    ),
    Route(
        "post",
        "/games/{game_id}/chat",
        "Write in the game's chat (a seated player)",
        (201, ChatMessage),
        body=ChatIn,
        auth="required",
        params=(GAME_ID, CHAT_KEY),
        codes=(
            "bad_chat",
            "bad_command_id",
            "game_archived",
            "idempotency_key_in_use",
            "idempotency_key_reused",
            "not_seated",
            "rate_limited",
            "store_unavailable",
            "unknown_game",
            "weak_idempotency_key",
        ),
        description="`text`: 1 to 500 characters once line breaks are made spaces and other "
        "control characters dropped (400 `bad_chat`). Spectators read but may not write (403 "
        "`not_seated`). A message is kept with the game, outside its events (the last 200). "
        "An archived game takes no more messages (409 `game_archived`): its chat is read as "
        "before. "
        "The game's live stream (`GET /games/{id}/events`) brings new messages as "
        "`event: chat`.",
    ),
    Route(
        "get",
        "/games/{game_id}/chat",
        "The game's chat, oldest first (everyone who can see the game)",
        (200, ChatOut),
        params=(GAME_ID, query("after", "only messages with a number after this one")),
        codes=("bad_parameter", "store_unavailable", "unknown_game"),
    ),
)
