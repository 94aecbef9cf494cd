"""``omerta serve`` (gunicorn, gevent workers) keeps answering while many live-event streams are
open (a stream waits for the process's reader of the store without holding a thread), keeps
idle streams open with keep-alive comments, and a move reaches every open stream at once."""

from __future__ import annotations

import http.client
import os
import time
from collections.abc import Iterator

import pytest

from api.app import STREAM_SECONDS
from api.live.sse import KEEP_ALIVE
from tests.api.served import call, serve

pytestmark = pytest.mark.server

STREAMS = 60  # far more than a thread pool per process would have had (8)
# Seconds every stream waits for the move: more than redis-py's socket timeout (5 s) and than one
# keep-alive period.
IDLE = KEEP_ALIVE + 2


@pytest.fixture
def served(redis_url: str) -> Iterator[int]:
    with serve({**os.environ, "REDIS_URL": redis_url}) as port:
        yield port


def test_many_open_streams_do_not_stop_the_api(served: int) -> None:
    status, ann = call(served, "POST", "/players", {"name": "Ann"})
    assert status == 201
    status, game = call(served, "POST", "/games", {"game": "famiglia", "seats": 2}, ann["token"])
    assert status == 201
    path = f"/games/{game['game_id']}"
    streams: list[tuple[http.client.HTTPConnection, http.client.HTTPResponse]] = []
    begun = time.monotonic()
    try:
        for _ in range(STREAMS):
            conn = http.client.HTTPConnection("127.0.0.1", served, timeout=10)
            conn.request("GET", f"{path}/events")
            response = conn.getresponse()
            assert response.status == 200
            assert response.readline().startswith(b"retry:")  # the stream is open and waiting
            streams.append((conn, response))
        opened = time.monotonic()
        status, bob = call(served, "POST", "/players", {"name": "Bob"})
        assert (status, bob["name"]) == (201, "Bob")
        invite = {"invite": game["invites"][0]["code"]}
        assert call(served, "POST", f"{path}/join", invite, bob["token"])[0] == 200
        status, table = call(served, "GET", path)
        assert status == 200 and table["version"] == game["version"]
        # All open at once, and answered meanwhile: well before the first stream ends
        # (STREAM_SECONDS), which is when a thread per stream would have freed the first threads.
        assert time.monotonic() - begun < STREAM_SECONDS / 2
        time.sleep(max(0.0, opened + IDLE - time.monotonic()))
        mover = [ann, bob][table["to_act"][0]]["token"]
        legal = call(served, "GET", f"{path}/legal", token=mover)[1]
        move = {"command": legal["commands"][0], "expected_version": legal["version"]}
        status, accepted = call(served, "POST", f"{path}/commands", move, mover)
        assert status == 200
        for _, response in (streams[0], streams[-1]):  # the move reached the streams
            wanted, lines = b"id: %d\n" % accepted["version"], []
            while (line := response.readline()) != wanted:
                assert line, "the stream ended before the move arrived"
                lines.append(line)
            assert b": keep-alive\n" in lines  # idle for longer than one blocking read
    finally:
        for conn, _ in streams:
            conn.close()
