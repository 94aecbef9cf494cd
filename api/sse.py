"""Live updates of a game as server-sent events (``text/event-stream``).

Each event of the game is one SSE message: ``id`` is its version, ``event`` its type, ``data``
the history record as the caller may see it (``api.routes.games.records``: redacted while the game
runs). A client that reconnects sends ``Last-Event-ID`` (browsers' EventSource do) or
``?after=N`` and gets what it missed first.

Bounded: a response stays open at most ``stream_seconds`` (then the client reconnects, told
to wait ``retry`` ms), or until the game is over, so a gunicorn worker thread is never held for
ever. Waiting is a blocking ``XREAD`` on the game's stream, so a new event goes out at once;
between events a comment line keeps proxies from closing the connection.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

from flask import Blueprint, Response

from api.context import deps, seat_in
from api.jsonio import encode
from api.params import header_number, query_number
from api.routes.games import records
from services import keys
from services.commands import CommandService
from services.store import unavailable

bp = Blueprint("events", __name__)

RETRY_MS = 1000
# Seconds between keep-alive comments: one XREAD blocks at most this long, which must stay below
# the client's socket timeout (redis-py's default: 5 s), or the read fails and the stream ends.
MAX_BLOCK = 4.0


def _start_after() -> int:
    """Last-Event-ID (a reconnecting EventSource) wins over ?after=; both are checked."""
    after = query_number("after", 0)
    last = header_number("Last-Event-ID")
    return after if last is None else last


@bp.get("/games/<game_id>/events")
def stream(game_id: str) -> Response:
    svc = deps().service  # the generator runs outside the request context: no deps() in it
    svc.load(game_id)  # an unknown game is a 404 before the stream starts
    seat = seat_in(game_id)
    after = _start_after()
    deadline = time.monotonic() + deps().stream_seconds

    def messages() -> Iterator[bytes]:
        nonlocal after
        yield f"retry: {RETRY_MS}\n\n".encode()
        while True:
            for record in records(svc, game_id, seat, after):
                after = record.version
                yield b"id: %d\nevent: %s\ndata: %s\n\n" % (
                    record.version,
                    record.type.encode(),
                    encode(record),
                )
            loaded = svc.load(game_id)
            if loaded.game.result(loaded.state) is not None and loaded.version <= after:
                yield b"event: end\ndata: {}\n\n"
                return
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return
            if not _wait(svc, game_id, after, min(remaining, MAX_BLOCK)):
                yield b": keep-alive\n\n"

    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    return Response(messages(), mimetype="text/event-stream", headers=headers)


def _wait(svc: CommandService, game_id: str, after: int, seconds: float) -> bool:
    """Block until the game has an event after version ``after`` or ``seconds`` pass."""
    client = svc.store.redis
    with unavailable():
        found = client.xread(
            {keys.events_key(game_id): f"{after}-0"}, count=1, block=max(1, int(seconds * 1000))
        )
    return bool(found)
