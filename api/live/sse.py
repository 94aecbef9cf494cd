"""Live updates of a game as server-sent events (``text/event-stream``).

Each event of the game is one SSE message: ``id`` is its version, ``event`` its type, ``data``
the history record as the caller may see it (``api.routes.games.records``: redacted while the game
runs). A client that reconnects sends ``Last-Event-ID`` (browsers' EventSource do) or
``?after=N`` and gets what it missed first.

Bounded: a response stays open at most ``stream_seconds`` (at least 80 % of it, drawn at random
so that pages which connected together do not all reconnect together; then the client
reconnects, told to wait ``retry`` ms), or until the game is over, so a gunicorn worker's
greenlet is never held for ever. An open stream holds no Redis connection: it waits on the
process's reader of the game's feeds (``services.readside.fanout``, in ``Deps.fanout``: one for
every shard on a single server, one per watched shard on a cluster), which wakes it when its game
passes the version it last sent; it then reads the new records through the service (a pooled
connection, returned at once; at most ``services.readside.fanout.READERS`` streams read at the same
time, their start included; the streams of a game that one move wakes share one read). Between
events a comment line every ``KEEP_ALIVE`` seconds keeps proxies from closing the connection. If the
store fails mid-stream, the response ends (its status was sent long ago) and the browser reconnects.
When the process stops (gunicorn's graceful shutdown, ``Fanout.close``), the stream ends at once
with a last ``retry`` (``goodbye``): the browser reconnects, to another process, with
``Last-Event-ID``.

The game's chat comes along (``services.games.chat``): a message written while the stream is open is
an SSE message ``event: chat`` (no ``id``: the last event id stays the version), ``data`` the
``ChatMessage``; with ``?chat=N`` also the messages after number N, and the stream then stays
open past the game's end (a finished game's page follows its chat, and the offer of a rematch:
``event: rematch``, ``data`` the ``Offer``). Both wake the stream through its shard's side feed,
which the same reader follows with the events' feed.

How many streams one client may hold open at once is limited in ``api.http.limits``.
"""

from __future__ import annotations

import functools
import random
import time
from collections.abc import Callable, Iterator

from flask import Blueprint, Response, request

from api.context import deps, seat_in
from api.http.jsonio import encode
from api.http.params import header_number, query_number
from api.routes.games import records
from api.schemas.play import EventOut
from services.errors import Unavailable
from services.games.reading import Loaded
from services.readside.fanout import Closing

bp = Blueprint("events", __name__)

RETRY_MS = 1000
# Seconds between comments on an idle stream: well inside the idle timeouts of proxies (nginx:
# 60 s), and rare enough to cost little (bench_streams: at 4 s, 10,000 idle streams took a third
# of a core).
KEEP_ALIVE = 15.0
SPREAD = 0.2  # a stream lasts between 80 % and all of stream_seconds
# A stopping process's pages reconnect within this many ms (``goodbye``): the processes left
# take them over spread out, not all in the same instant.
GOODBYE_MS = 3000


def goodbye() -> bytes:
    """The last message of a stream whose process stops: reconnect after a random wait."""
    return f"retry: {random.randint(RETRY_MS, GOODBYE_MS)}\n: the server restarts\n\n".encode()


def _start_after() -> int:
    """Last-Event-ID (a reconnecting EventSource) wins over ?after=; both are checked."""
    after = query_number("after", 0)
    last = header_number("Last-Event-ID")
    return after if last is None else last


@bp.get("/games/<game_id>/events")
def stream(game_id: str) -> Response:
    d = deps()  # the generator runs outside the request context: no deps() in it
    commands = d.commands
    with d.fanout.reading():
        commands.load(game_id)  # an unknown game is a 404 before the stream starts
        seat = seat_in(game_id)
    after = _start_after()
    follow_side = "chat" in request.args  # also past the end: the page follows the chat
    chat_after = query_number("chat", 0)
    # Pages that connected together (after a restart) reconnect at spread times.
    deadline = time.monotonic() + d.stream_seconds * random.uniform(1 - SPREAD, 1)
    # Before the first read: every append after that read then wakes the watch.
    watch = d.fanout.watch(game_id)
    side = watch.side
    try:
        with d.fanout.reading():
            if follow_side:
                rematch = d.rematches.of(game_id)
            else:  # only what is written from now on (a running game has no rematch)
                chat_after, rematch = d.chat.last(game_id), None
    except BaseException:
        watch.close()
        raise

    def read(seat: int | None, after: int) -> tuple[list[EventOut], Loaded]:
        return records(commands, game_id, seat, after), commands.load(game_id)

    def messages() -> Iterator[bytes]:
        nonlocal after, chat_after, side, rematch
        try:
            yield f"retry: {RETRY_MS}\n\n".encode()
            if follow_side and rematch is not None:
                yield b"event: rematch\ndata: %s\n\n" % encode(rematch)
            read_side = follow_side
            while True:
                new, loaded = watch.read((seat, after), functools.partial(read, seat, after))
                for record in new:
                    after = record.version
                    yield b"id: %d\nevent: %s\ndata: %s\n\n" % (
                        record.version,
                        record.type.encode(),
                        encode(record),
                    )
                if read_side:
                    said = functools.partial(d.chat.read, game_id, chat_after)
                    for message in watch.read(("chat", chat_after), said):
                        chat_after = message.id
                        yield b"event: chat\ndata: %s\n\n" % encode(message)
                    if rematch is None:
                        rematch = watch.read("rematch", functools.partial(d.rematches.of, game_id))
                        if rematch is not None:
                            yield b"event: rematch\ndata: %s\n\n" % encode(rematch)
                over = loaded.game.result(loaded.state) is not None and loaded.version <= after
                if over and not follow_side:
                    yield b"event: end\ndata: {}\n\n"
                    return
                while True:
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        return
                    if watch.wait(after, min(remaining, KEEP_ALIVE), side):
                        break
                    yield b": keep-alive\n\n"
                now = watch.side
                read_side, side = now != side, now
        except Unavailable:
            return  # the store failed: end the stream, the browser reconnects
        except Closing:
            yield goodbye()
        finally:
            watch.close()

    return stream_response(messages(), watch.close, "game")


def stream_response(body: Iterator[bytes], close: Callable[[], None], kind: str) -> Response:
    """A server-sent event stream, unbuffered by proxies; ``close`` runs when the client goes,
    also when the body is never read. Counted open (``kind``: game, player) until then."""
    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    response = Response(body, mimetype="text/event-stream", headers=headers)
    open_streams = deps().metrics.live_streams.labels(kind)
    open_streams.inc()

    def ended() -> None:
        close()
        open_streams.dec()

    response.call_on_close(ended)
    return response
