"""Live updates: a waiting stream gets a new event at once; a reconnecting client with
Last-Event-ID gets exactly what it missed; the stream ends by itself (bounded) and when the
game is over; events are redacted for the caller."""

from __future__ import annotations

import threading
import time
from typing import Any

import msgspec
import pytest
from flask import Flask

from api.app import create_app
from api.live.sse import KEEP_ALIVE
from services.games.commands import CommandService
from tests.api.helpers import Api, Who, container_of

pytestmark = pytest.mark.server


@pytest.fixture
def app(service: CommandService, real_redis) -> Flask:
    return create_app(container_of(service), stream_seconds=3.0)


@pytest.fixture
def quick(service: CommandService, real_redis) -> Api:
    """The same store through an app whose streams do not wait for new events."""
    return Api(create_app(container_of(service), stream_seconds=0).test_client(use_cookies=False))


def messages(raw: bytes) -> list[dict[str, Any]]:
    out = []
    for block in raw.decode().split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
        if "data" in fields:
            out.append({**fields, "data": msgspec.json.decode(fields["data"])})
    return out


def started(api: Api) -> tuple[str, Who, Who]:
    ann, bob = api.player("Ann"), api.player("Bob")
    created = api.new_game(ann, game="famiglia", seats=2)
    api.join(bob, created["game_id"], created["invites"][0]["code"])
    return created["game_id"], ann, bob


def mover(api: Api, game_id: str, ann: Who, bob: Who) -> Who:
    return (ann, bob)[api.ok("GET", f"/games/{game_id}")["to_act"][0]]


def test_a_waiting_stream_gets_the_new_event_at_once(app: Flask, api: Api) -> None:
    game_id, ann, bob = started(api)
    version = api.ok("GET", f"/games/{game_id}")["version"]
    received: list[bytes] = []

    def listen() -> None:
        with app.test_client() as client:
            received.append(
                client.get(
                    f"/games/{game_id}/events", headers={"Last-Event-ID": str(version)}
                ).get_data()
            )

    listener = threading.Thread(target=listen)
    begun = time.monotonic()
    listener.start()
    time.sleep(0.3)
    who = mover(api, game_id, ann, bob)
    api.random_move(who, game_id, __import__("random").Random(1))
    listener.join(10)
    got = messages(received[0])
    assert got and int(got[0]["id"]) == version + 1
    assert [int(m["id"]) for m in got] == list(range(version + 1, version + 1 + len(got)))
    assert time.monotonic() - begun < 5, "the stream is bounded by stream_seconds"


def test_reconnecting_gets_what_was_missed(quick: Api) -> None:
    api = quick
    game_id, ann, bob = started(api)
    first = messages(api.call("GET", f"/games/{game_id}/events?after=0", ann).data)
    seen = int(first[-1]["id"])
    api.play(mover(api, game_id, ann, bob), game_id, {"type": "pass"})
    missed = messages(
        api.call("GET", f"/games/{game_id}/events", ann, headers={"Last-Event-ID": str(seen)}).data
    )
    history = api.ok("GET", f"/games/{game_id}/history?after={seen}", ann)["events"]
    assert [m["data"] for m in missed] == history
    assert [m["event"] for m in missed] == [e["type"] for e in history]


def test_the_stream_ends_with_the_game_and_then_reveals(api: Api, quick: Api) -> None:
    game_id, ann, bob = started(api)
    running = messages(quick.call("GET", f"/games/{game_id}/events?after=0", None).data)
    assert running[0]["data"]["event"]["secret"] is None
    for _ in range(2):  # two passes in a row end the game
        api.play(mover(api, game_id, ann, bob), game_id, {"type": "pass"})
    begun = time.monotonic()
    over = messages(api.call("GET", f"/games/{game_id}/events?after=0", None).data)
    assert time.monotonic() - begun < 1, "a finished game's stream does not wait"
    assert over[-1]["event"] == "end"
    assert over[0]["data"]["event"]["secret"] is not None


def test_events_appended_while_a_stream_waits_arrive_while_it_is_open(
    service: CommandService, real_redis, api: Api
) -> None:
    """Each move reaches the waiting stream long before the stream would end by itself (which
    is when a stream that was never woken would read them): none is missed, in order."""
    app = create_app(container_of(service), stream_seconds=60.0)
    game_id, ann, bob = started(api)
    version = api.ok("GET", f"/games/{game_id}")["version"]
    response = app.test_client().get(f"/games/{game_id}/events?after={version}", buffered=False)
    got: list[int] = []
    wanted = threading.Event()
    target = [10**9]

    def listen() -> None:  # the stream runs here, waiting between the moves
        for chunk in response.response:
            got.extend(int(m["id"]) for m in messages(chunk))
            if got and got[-1] >= target[0]:
                wanted.set()
                return

    listener = threading.Thread(target=listen, daemon=True)
    listener.start()
    rng = __import__("random").Random(2)
    begun = time.monotonic()
    for _ in range(3):
        time.sleep(0.3)  # the stream is waiting again
        api.random_move(mover(api, game_id, ann, bob), game_id, rng)
    target[0] = api.ok("GET", f"/games/{game_id}")["version"]
    if got and got[-1] >= target[0]:
        wanted.set()
    assert wanted.wait(30), f"got {got}, wanted up to {target[0]}"
    assert time.monotonic() - begun < 30, "the moves came at once, not when the stream ended"
    assert got == list(range(version + 1, target[0] + 1))
    listener.join(KEEP_ALIVE + 10)  # it sees the target at the next message at the latest
    assert not listener.is_alive()
    response.close()
