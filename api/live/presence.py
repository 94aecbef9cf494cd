"""A player's presence on every page: one live stream per player (``GET /me/events``) with the
number of games waiting for them, and what the player last saw of each game
(``PUT /games/{id}/seen``).

The stream sends an ``inbox`` message at once and again each time the projection has written
the player's inbox (``workers.projection.projector`` adds an entry to the inbox feed of the player's
shard, ``keys.inbox_feed_key``, in the same atomic step): ``data`` is ``{"count": <games waiting
for the player>, "games": [{"game_id", "version"}, ...]}`` (the games that changed; none in the
first message unless it resumes), ``id`` the entry of that feed it reflects. A client that
reconnects sends ``Last-Event-ID`` (browsers' EventSource do) and the first message also lists
the games that changed since (among the next ``INBOX_BATCH`` entries of that feed). Bounded as
the game streams are (``api.live.sse``: a random lifetime within ``stream_seconds``, keep-alive
comments, no Redis connection held while open: the process's reader of the player's shard,
``services.readside.fanout``, wakes it; the count is read once per change by all the streams of one
player in a process), and capped per client by ``api.http.limits`` (counted apart from the game
streams: a page holds one of each).
"""

from __future__ import annotations

import random
import re
import time
from collections.abc import Iterator

import msgspec
from flask import Blueprint, Response, request

from api.context import caller, deps
from api.http.jsonio import body, reply
from api.http.problems import ApiError
from api.live.sse import KEEP_ALIVE, RETRY_MS, SPREAD, goodbye, stream_response
from api.schemas.inbox import GameChange, InboxEvent, Seen, SeenOut
from services.errors import Unavailable
from services.readside import seen
from services.readside.fanout import Closing

bp = Blueprint("presence", __name__)

INBOX_BATCH = 1000  # inbox-feed entries a resuming stream looks through for what it missed
ENTRY_ID = re.compile(r"[0-9]{1,15}-[0-9]{1,12}")


_json = msgspec.json.Encoder()


def _resumed_from() -> bytes | None:
    sent = request.headers.get("Last-Event-ID")
    if sent is None:
        return None
    if not ENTRY_ID.fullmatch(sent):
        raise ApiError(
            400, "bad_parameter", "Last-Event-ID must be an id this stream sent",
            name="Last-Event-ID",
        )  # fmt: skip
    return sent.encode()


def _message(entry_id: bytes | None, count: int, games: dict[str, int]) -> bytes:
    data = InboxEvent(count, [GameChange(g, v) for g, v in sorted(games.items())])
    head = b"id: %s\n" % entry_id if entry_id else b""
    return head + b"event: inbox\ndata: %s\n\n" % _json.encode(data)


@bp.get("/me/events")
def player_stream() -> Response:
    d = deps()  # the generator runs outside the request context: no deps() in it
    player_id = caller().id  # 401 before the stream starts
    resumed = _resumed_from()
    models = d.read_models
    deadline = time.monotonic() + d.stream_seconds * random.uniform(1 - SPREAD, 1)
    # Before the first read: every projection after that read then wakes the watch.
    watch = d.fanout.watch_player(player_id)
    try:
        with d.fanout.reading():
            count = models.inbox_count(player_id)
            missed = models.inbox_changes(player_id, resumed, INBOX_BATCH) if resumed else {}
    except BaseException:
        watch.close()
        raise

    def messages() -> Iterator[bytes]:
        seen = watch.start
        try:
            yield f"retry: {RETRY_MS}\n\n".encode()
            yield _message(watch.position, count, missed)
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return
                if not watch.wait(seen, min(remaining, KEEP_ALIVE)):
                    yield b": keep-alive\n\n"
                    continue
                seen, last, changed = watch.changes(seen)
                now = watch.read(seen, lambda: models.inbox_count(player_id))
                yield _message(last, now, changed)
        except Unavailable:
            return  # the store failed: end the stream, the browser reconnects
        except Closing:
            yield goodbye()
        finally:
            watch.close()

    return stream_response(messages(), watch.close, "player")


@bp.put("/games/<game_id>/seen")
def see(game_id: str) -> Response:
    """The player has seen the game up to a version (their game page showed it): kept per
    player and game on the server, so "new since you last looked" follows them to any device.
    A version past the game's is taken as the game's."""
    player_id = caller().id
    sent = body(Seen)
    d = deps()
    loaded = d.commands.load(game_id)  # 404 for an unknown game
    version = min(sent.version, loaded.version)
    previous = seen.record(d.store, player_id, game_id, version)
    return reply(SeenOut(max(version, previous), previous))
