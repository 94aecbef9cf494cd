"""The operations on games and players, and the operator's (``GET /healthz`` ...)."""

from __future__ import annotations

from typing import Any

from api.openapi.route import Route, path_param, query
from api.schemas.common import COMMAND_ID_HEADER, MAX_IDEMPOTENCY_KEY
from api.schemas.games import GameCreated, GameKind, GameList, GameOut, Joined, JoinGame, NewGame
from api.schemas.inbox import Seen, SeenOut
from api.schemas.meta import Health
from api.schemas.play import Accepted, CommandIn, HistoryOut, LegalOut, ViewOut
from api.schemas.players import NewPlayer, PlayerCreated, PlayerOut
from domain.table import messages as table_messages
from services.eventstore.idempotency import MIN_PLAYER_KEY

# The table's commands (domain.table), which GET .../legal never lists.
TABLE = ", ".join(f"`{kind.__struct_config__.tag}`" for kind in table_messages.COMMANDS)
GAME_ID = path_param("game_id", about="the game's id (from POST /games)")
AFTER = query("after", "only events after this version")
CHAT = query("chat", "also the chat messages after this number, and past the game's end")
IDEMPOTENCY = {
    "name": COMMAND_ID_HEADER,
    "in": "header",
    "required": False,
    "schema": {"type": "string", "minLength": 1, "maxLength": MAX_IDEMPOTENCY_KEY},
    "description": "the command's id, unique per seat of the game: a retry with the same key "
    "appends nothing and answers as the first try did, the same key with another command is "
    "refused (409 command_id_reused); another seat's keys are its own; keys starting with ai- "
    "are the AI seats' (400 reserved_command_id); the server picks a random one when absent",
}


def _creation_key(scope: str, minimum: int = 1) -> dict[str, Any]:
    longest = MAX_IDEMPOTENCY_KEY
    return {
        "name": COMMAND_ID_HEADER,
        "in": "header",
        "required": False,
        "schema": {"type": "string", "minLength": minimum, "maxLength": longest},
        "description": f"makes a retry safe (a 503 after the write, a lost answer): {scope}; "
        "a retry with the same key and body, within 24 hours, creates nothing and gets the "
        "first answer again; the same key with another body is refused (409 "
        "idempotency_key_reused), as is a twin while the first is under way (409 "
        "idempotency_key_in_use: retry)",
    }


PLAYER_KEY = _creation_key(
    "the key alone names the request, so it must be random, of at least "
    f"{MIN_PLAYER_KEY} characters (a UUID; shorter: 400 weak_idempotency_key)",
    MIN_PLAYER_KEY,
)
GAME_KEY = _creation_key("each player's keys are their own")
JOIN_KEY = _creation_key("each player's keys are their own, per game")
WEBHOOK_KEY = _creation_key("each player's keys are their own")
CHAT_KEY = _creation_key("each seat's keys are its own, per game")
LAST_EVENT_ID = {
    "name": "Last-Event-ID",
    "in": "header",
    "required": False,
    "schema": {"type": "string", "pattern": "^[0-9]{1,12}$"},
    "description": "reconnecting: the last version received (EventSource sends it itself)",
}

INBOX_EVENT_ID = {
    "name": "Last-Event-ID",
    "in": "header",
    "required": False,
    "schema": {"type": "string", "pattern": "^[0-9]{1,15}-[0-9]{1,12}$"},
    "description": "reconnecting: the last id received (EventSource sends it itself)",
}

GAME_ROUTES: tuple[Route, ...] = (
    Route(
        "get",
        "/games",
        "The games on offer, with their option and command schemas",
        (200, list[GameKind]),
    ),
    Route(
        "post",
        "/games",
        "Create a game; the caller takes a seat, open seats get invites",
        (201, GameCreated),
        body=NewGame,
        auth="required",
        params=(GAME_KEY,),
        codes=(
            "bad_ai",
            "bad_ai_level",
            "bad_clock",
            "bad_command_id",
            "bad_on_timeout",
            "bad_options",
            "bad_seats",
            "idempotency_key_in_use",
            "idempotency_key_reused",
            "rate_limited",
            "store_unavailable",
            "too_many_open_games",
            "unknown_game",
            "unknown_game_name",
            "weak_idempotency_key",
        ),
    ),
    Route(
        "get",
        "/games/{game_id}",
        "A game's table: seats, version, who is to act, result",
        (200, GameOut),
        auth="optional",
        params=(GAME_ID,),
        codes=("store_unavailable", "unknown_game"),
    ),
    Route(
        "post",
        "/games/{game_id}/join",
        "Take a seat with an invite (or in a public game)",
        (200, Joined),
        body=JoinGame,
        auth="required",
        params=(GAME_ID, JOIN_KEY),
        codes=(
            "bad_command_id",
            "bad_invite",
            "game_expired",
            "idempotency_key_in_use",
            "idempotency_key_reused",
            "no_open_seat",
            "rate_limited",
            "store_unavailable",
            "unknown_game",
            "weak_idempotency_key",
        ),
    ),
    Route(
        "get",
        "/games/{game_id}/view",
        "What the caller's seat (or a spectator) sees now",
        (200, ViewOut),
        auth="optional",
        params=(GAME_ID,),
        codes=("store_unavailable", "unknown_game"),
    ),
    Route(
        "get",
        "/games/{game_id}/legal",
        "The game's own moves the caller may send now (not the table's commands)",
        (200, LegalOut),
        auth="required",
        params=(GAME_ID,),
        description=f"Lists the moves of the game's rules only. The table's commands ({TABLE}) "
        "are never listed: any seat may send `concede` while the game goes on, and the game's "
        "`table` (GET /games/{id} or .../view) says when the others apply: `can_offer_draw`, "
        "`draw_offer` (the other seat's offer: `accept_draw` or `decline_draw`), `can_undo`.",
        codes=("not_seated", "store_unavailable", "unknown_game"),
    ),
    Route(
        "post",
        "/games/{game_id}/commands",
        "Send a command for the caller's seat",
        (200, Accepted),
        body=CommandIn,
        auth="required",
        params=(GAME_ID, IDEMPOTENCY),
        rules=True,
        codes=(
            "bad_command",
            "bad_command_id",
            "bad_expected_version",
            "command_id_reused",
            "conflict",
            "game_archived",
            "not_seated",
            "not_your_seat",
            "rate_limited",
            "reserved_command_id",
            "seat_taken_over",
            "store_unavailable",
            "unknown_command",
            "unknown_game",
            "wrong_game_command",
            "wrong_seat",
        ),
    ),
    Route(
        "get",
        "/games/{game_id}/history",
        "The events as the caller may see them (everything, seed too, once the game is over)",
        (200, HistoryOut),
        auth="optional",
        params=(GAME_ID, AFTER),
        description="A game's shuffles come from a secret fixed at its start. Its first "
        "event (`game_started`) carries `commitment`: the hex SHA-256 of the secret's `salt` "
        "bytes followed by its `seed` bytes. The event that ends the game reveals the "
        "`secret` (`seed` and `salt`, base64): a client checks that SHA-256(salt + seed) is "
        "the commitment, so the cards were not chosen after the start. While the game runs "
        "the secret and the hidden cards are left out of what the caller may not see.",
        codes=("bad_parameter", "store_unavailable", "unknown_game", "wrong_seat"),
    ),
    Route(
        "get",
        "/games/{game_id}/replay/{version}",
        "The caller's view of the game as it stood at a version",
        (200, ViewOut),
        auth="optional",
        params=(GAME_ID, path_param("version", "integer", "1 to the game's version")),
        codes=("store_unavailable", "unknown_game", "unknown_version"),
    ),
    Route(
        "get",
        "/games/{game_id}/events",
        "Live events (server-sent events), redacted",
        (200, None),
        auth="optional",
        params=(GAME_ID, AFTER, LAST_EVENT_ID, CHAT),
        codes=(
            "bad_parameter",
            "rate_limited",
            "store_unavailable",
            "streams_full",
            "too_many_streams",
            "unknown_game",
            "wrong_seat",
        ),
        media="text/event-stream",
        description="Each message: `id` the version, `event` the type, `data` an EventOut. "
        "Chat messages written meanwhile come as `event: chat` (no `id`), `data` a "
        "ChatMessage; with `chat` also those after that number, and a finished game's stream "
        "then stays open, with `event: rematch` (`data` an Offer) when one is asked for. "
        "The response ends after a bounded time or when the game is over; reconnect with "
        "Last-Event-ID. A client (player, or address without a token) holds a limited number "
        "of streams open at once: one more is 429 `too_many_streams` with Retry-After. A "
        "server process serves a limited number of streams, leaving connections for requests: "
        "one more is 503 `streams_full` with Retry-After.",
    ),
    Route(
        "get",
        "/lobby",
        "Public games with an open seat",
        (200, GameList),
        auth="optional",
        codes=("store_unavailable",),
        tag="players",
    ),
    Route(
        "post",
        "/players",
        "Create a player; the answer holds its secret token (once)",
        (201, PlayerCreated),
        body=NewPlayer,
        params=(PLAYER_KEY,),
        codes=(
            "bad_command_id",
            "bad_name",
            "idempotency_key_in_use",
            "idempotency_key_reused",
            "player_exists",
            "rate_limited",
            "store_unavailable",
            "weak_idempotency_key",
        ),
        tag="players",
        description="Also sets the token as an HttpOnly cookie for the web pages. When the "
        "request's cookie already names a player, the answer is 409 `player_exists` unless "
        'the body says `"replace": true`: that player lived only in the cookie, and a '
        "new one replaces it (the old one's seats are lost to this browser).",
    ),
    Route(
        "get",
        "/me",
        "The caller",
        (200, PlayerOut),
        auth="required",
        codes=("store_unavailable",),
        tag="players",
    ),
    Route(
        "get",
        "/me/games",
        "The caller's games",
        (200, GameList),
        auth="required",
        codes=("store_unavailable",),
        tag="players",
    ),
    Route(
        "get",
        "/me/inbox",
        "The caller's games waiting for the caller",
        (200, GameList),
        auth="required",
        codes=("store_unavailable",),
        tag="players",
        description="Waiting longest first; `waiting_since` (ms) is when the caller's seat "
        "began to owe its decision, `to_act` the seats to act.",
    ),
    Route(
        "get",
        "/me/events",
        "The caller's live presence (server-sent events): how many games wait for them",
        (200, None),
        auth="required",
        params=(INBOX_EVENT_ID,),
        codes=("bad_parameter", "store_unavailable", "streams_full", "too_many_streams"),
        media="text/event-stream",
        tag="players",
        description="One stream per player for every page. Each message: `event` `inbox`, "
        "`data` an InboxEvent (`count`: the games waiting for the caller, as GET /me/inbox "
        "lists them; `games`: the caller's games whose read models changed, id and version), "
        "`id` the position in the inbox feed. Sent at once, then each time the workers have "
        "projected a change of one of the caller's games (a move, a seat taken, an end). The "
        "response ends after a bounded time; reconnect with Last-Event-ID to also learn the "
        "games that changed meanwhile. A client holds a limited number of these streams open "
        "at once (counted apart from the game streams): one more is 429 `too_many_streams`; "
        "a server process's streams, counted with the game streams, are limited too (503 "
        "`streams_full`).",
    ),
    Route(
        "put",
        "/games/{game_id}/seen",
        "Record the version of the game the caller has seen (their game page showed it)",
        (200, SeenOut),
        body=Seen,
        auth="required",
        params=(GAME_ID,),
        codes=("store_unavailable", "unknown_game"),
        description="Kept per player and game on the server (so it follows the player to "
        "every device); an older version than the stored one changes nothing, one past the "
        "game's is taken as the game's. The answer's `previous` is what was stored before: "
        "the page marks what happened after it as new since the player last looked.",
    ),
    Route("get", "/healthz", "The process is up", (200, Health), tag="operations"),
    Route(
        "get",
        "/readyz",
        "The event store answers and takes writes to every shard",
        (200, Health),
        codes=("bad_parameter", "store_degraded", "store_unavailable"),
        tag="operations",
        params=(
            {
                "name": "degraded",
                "in": "query",
                "required": False,
                "schema": {"type": "string", "enum": ["ok"]},
                "description": "`ok`: a store that answers but is degraded is a 200 whose "
                "`status` is `degraded` (a proxy choosing among web processes), not a 503 "
                "`store_degraded`",
            },
        ),
    ),
    Route(
        "get",
        "/metrics",
        "The web server's metrics, for Prometheus (text exposition format)",
        (200, None),
        codes=("bad_token", "missing_token", "not_found"),
        tag="operations",
        media="text/plain",
        description="For the operator's Prometheus, not for players: the bearer token is "
        "`OMERTA_METRICS_TOKEN`'s (401 `missing_token`, `bad_token` without it); while that "
        "setting is unset the route is 404 `not_found`. The figures of every process of the "
        "web server, and the store's read at the request (the operators' guide lists them).",
    ),
    Route("get", "/openapi.json", "This document", (200, None), tag="operations"),
    Route("get", "/docs", "The API page (HTML)", (200, None), tag="operations", media="text/html"),
)
