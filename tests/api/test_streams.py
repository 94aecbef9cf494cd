"""Open live-event streams cost the store nothing each: 2,000 streams on one ``omerta serve``
process (gunicorn, gevent) hold a handful of the store's connections, every other request still
answers (no 5xx), and a move reaches all 2,000. Before the fan-out (``services.readside.fanout``)
each stream held a connection of the process's pool in a blocking ``XREAD``: past the pool's 100 the
process answered 503 to everything."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator

import pytest

from services.platform.embedded import EmbeddedServer
from tests.api.served import call, serve
from tests.crowd import Crowd, allow_files

pytestmark = pytest.mark.server

STREAMS = 2000
MOST_CLIENTS = 50  # the store's connections allowed with every stream open


@pytest.fixture
def store(embedded_server_factory: Callable[..., EmbeddedServer]) -> EmbeddedServer:
    """A store of this test's own: its connected clients are the web process's alone."""
    return embedded_server_factory(fsync="everysec")


@pytest.fixture
def served(store: EmbeddedServer) -> Iterator[int]:
    allow_files(2 * STREAMS + 1000)  # inherited by the server
    env = {
        **os.environ,
        "REDIS_URL": store.url,
        "OMERTA_WEB_CONNECTIONS": str(STREAMS + 500),
        "OMERTA_WEB_STREAMS": str(STREAMS + 100),  # this test's streams, and a few
        # The limits as deployed, with room for this one client's streams.
        "OMERTA_RATE_LIMITS": "on",
        "OMERTA_STREAMS_PER_CLIENT": str(STREAMS + 100),
        "OMERTA_LIMIT_STREAMS": f"{4 * STREAMS} per minute",
    }
    with serve(env) as port:
        yield port


def test_two_thousand_open_streams_cost_no_connection_each(
    served: int, store: EmbeddedServer
) -> None:
    status, ann = call(served, "POST", "/players", {"name": "Ann"})
    assert status == 201
    status, bob = call(served, "POST", "/players", {"name": "Bob"})
    assert status == 201
    status, game = call(served, "POST", "/games", {"game": "famiglia", "seats": 2}, ann["token"])
    assert status == 201
    path = f"/games/{game['game_id']}"
    invite = {"invite": game["invites"][0]["code"]}
    assert call(served, "POST", f"{path}/join", invite, bob["token"])[0] == 200
    crowd = Crowd(served)
    try:
        crowd.open([f"{path}/events?after={game['version']}"] * STREAMS)
        assert crowd.open_count() == STREAMS
        connected = store.client().info("clients")["connected_clients"]
        assert connected < MOST_CLIENTS, f"{connected} store connections for {STREAMS} streams"

        assert call(served, "GET", "/healthz")[0] == 200
        status, table = call(served, "GET", path)
        assert status == 200
        mover = [ann, bob][table["to_act"][0]]["token"]
        status, legal = call(served, "GET", f"{path}/legal", token=mover)
        assert status == 200
        move = {"command": legal["commands"][0], "expected_version": legal["version"]}
        status, accepted = call(served, "POST", f"{path}/commands", move, mover)
        assert status == 200, accepted
        deadline = time.monotonic() + 60
        while any(s.seen < accepted["version"] for s in crowd.streams):
            assert time.monotonic() < deadline, "the move did not reach every stream"
            time.sleep(0.2)
        assert call(served, "GET", path)[0] == 200
        assert crowd.errors == []
        assert crowd.open_count() == STREAMS
        connected = store.client().info("clients")["connected_clients"]
        assert connected < MOST_CLIENTS, f"{connected} store connections after the move"
    finally:
        crowd.close()
