"""One live stream per player (``GET /me/events``, ``api.live.presence``) on the real web server
(gunicorn, gevent) with a real worker: each stream gets its player's inbox count at once and
again after an opponent's move (once the worker has projected it), and some hundreds of open
player streams hold no connection of the store each (``services.readside.fanout``'s one reader
follows
the inbox feed too)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator

import pytest

from services.platform.embedded import EmbeddedServer
from tests.api.served import call, serve
from tests.crowd import Crowd, allow_files

pytestmark = pytest.mark.server

STREAMS = 300  # per player
MOST_CLIENTS = 50  # the store's connections allowed with every stream open


@pytest.fixture
def store(embedded_server_factory: Callable[..., EmbeddedServer]) -> EmbeddedServer:
    """A store of this test's own: its connected clients are the web process's and worker's."""
    return embedded_server_factory(fsync="everysec")


@pytest.fixture
def served(store: EmbeddedServer) -> Iterator[int]:
    allow_files(4 * STREAMS + 1000)  # inherited by the server
    env = {
        **os.environ,
        "REDIS_URL": store.url,
        "OMERTA_WEB_CONNECTIONS": str(2 * STREAMS + 500),
        "OMERTA_WEB_STREAMS": str(2 * STREAMS + 100),  # this test's streams, and a few
        "OMERTA_RATE_LIMITS": "on",
        "OMERTA_STREAMS_PER_CLIENT": str(STREAMS + 10),
        "OMERTA_LIMIT_STREAMS": f"{4 * STREAMS} per minute",
    }
    worker = subprocess.Popen(
        [sys.executable, "-m", "api", "worker", "--interval", "2"],
        env=env,
        stdout=subprocess.DEVNULL,
    )
    try:
        with serve(env) as port:
            yield port
    finally:
        worker.terminate()
        try:
            worker.wait(15)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()


def wait_until(done: Callable[[], bool], what: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < deadline, what
        time.sleep(0.2)


def test_player_streams_follow_the_inbox_and_cost_no_connection_each(
    served: int, store: EmbeddedServer
) -> None:
    ann = call(served, "POST", "/players", {"name": "Ann"})[1]
    bob = call(served, "POST", "/players", {"name": "Bob"})[1]
    status, game = call(served, "POST", "/games", {"game": "famiglia", "seats": 2}, ann["token"])
    assert status == 201
    path = f"/games/{game['game_id']}"
    invite = {"invite": game["invites"][0]["code"]}
    assert call(served, "POST", f"{path}/join", invite, bob["token"])[0] == 200
    table = call(served, "GET", path)[1]
    people = [ann, bob] if game["seat"] == 0 else [bob, ann]
    mover = people[table["to_act"][0]]
    other = bob if mover is ann else ann

    def inbox(who: dict[str, str]) -> int:
        return len(call(served, "GET", "/me/inbox", token=who["token"])[1]["games"])

    wait_until(lambda: inbox(mover) == 1, "the worker never projected the join")
    assert inbox(other) == 0

    crowd = Crowd(served)
    try:
        crowd.open(["/me/events"] * STREAMS, token=mover["token"])
        crowd.open(["/me/events"] * STREAMS, token=other["token"])
        movers, others = crowd.streams[:STREAMS], crowd.streams[STREAMS:]
        wait_until(lambda: all(s.count is not None for s in crowd.streams), "no first count")
        assert {s.count for s in movers} == {1}
        assert {s.count for s in others} == {0}
        connected = store.client().info("clients")["connected_clients"]
        assert connected < MOST_CLIENTS, f"{connected} store connections for {2 * STREAMS}"

        while True:  # a Famiglia turn may take more than one command
            legal = call(served, "GET", f"{path}/legal", token=mover["token"])[1]
            move = {"command": legal["commands"][0], "expected_version": legal["version"]}
            status, accepted = call(served, "POST", f"{path}/commands", move, mover["token"])
            assert status == 200, accepted
            if accepted["to_act"] != table["to_act"]:
                break  # the turn passes to the opponent
        wait_until(
            lambda: {s.count for s in movers} == {0} and {s.count for s in others} == {1},
            "the move's projection did not reach every player stream",
        )
        assert crowd.errors == []
        assert crowd.open_count() == 2 * STREAMS
        connected = store.client().info("clients")["connected_clients"]
        assert connected < MOST_CLIENTS, f"{connected} store connections after the move"
    finally:
        crowd.close()
