"""A player's presence (``api.live.presence``) through the Flask test client, the projection applied
after every append: the player stream's messages (the count at once, the games missed on a
resume), its refusals, its cap (counted apart from the game streams) and rate limit; the inbox's
waited time; the version of a game a player last saw."""

from __future__ import annotations

import json
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from api.app import create_app
from services.games.commands import CommandService
from services.platform.ratelimits import RateLimits
from tests.api.helpers import Api, Who, container_of

pytestmark = pytest.mark.server

MOST = 2


def messages(response: Any) -> list[tuple[str | None, dict[str, Any]]]:
    """The (id, data) of each ``inbox`` message of a whole (short) stream."""
    out = []
    for block in response.get_data().decode().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
        if lines.get("event") == "inbox":
            out.append((lines.get("id"), json.loads(lines["data"])))
    return out


def table(api: Api) -> tuple[Who, Who, str]:
    """Ann and Bob at a Famiglia table; the one to move first, the other, the game id."""
    ann, bob = api.player("Ann"), api.player("Bob")
    made = api.new_game(ann, game="famiglia", seats=2)
    api.join(bob, made["game_id"], made["invites"][0]["code"])
    to_act = api.ok("GET", f"/games/{made['game_id']}")["to_act"][0]
    mover = ann if to_act == made["seat"] else bob
    return mover, bob if mover is ann else ann, made["game_id"]


def move(api: Api, who: Who, game_id: str) -> None:
    """``who``'s moves until the turn passes (a Famiglia turn may take more than one command)."""
    seat = api.ok("GET", f"/games/{game_id}", who)["your_seat"]
    while True:
        legal = api.ok("GET", f"/games/{game_id}/legal", who)
        moved = api.play(who, game_id, legal["commands"][0], legal["version"])
        if seat not in moved["to_act"]:
            return


def test_the_stream_sends_the_count_at_once_and_a_resume_the_games_missed(api: Api) -> None:
    mover, other, game_id = table(api)
    # The stream's first message is the count; the live reader may add one for the join, if it
    # reads that change late (a loaded machine): it counts the same.
    (first_id, first), *later = messages(api.call("GET", "/me/events", mover))
    assert all(data["count"] == first["count"] for _, data in later)
    assert first == {"count": 1, "games": []}
    assert first_id
    assert messages(api.call("GET", "/me/events", other))[0][1]["count"] == 0

    move(api, mover, game_id)  # the opponent's turn now
    version = api.ok("GET", f"/games/{game_id}")["version"]
    resumed = api.call("GET", "/me/events", other, headers={"Last-Event-ID": first_id})
    # As above: the live reader may add one for the move it read late (a loaded run once saw it).
    (resumed_id, data), *later = messages(resumed)
    assert data == {"count": 1, "games": [{"game_id": game_id, "version": version}]}
    assert all(extra["count"] == 1 for _, extra in later)
    assert resumed_id != first_id
    again = api.call("GET", "/me/events", other, headers={"Last-Event-ID": resumed_id})
    assert messages(again)[0][1] == {"count": 1, "games": []}


def test_the_stream_needs_a_player_and_a_good_last_event_id(api: Api) -> None:
    ann = api.player("Ann")
    response = api.call("GET", "/me/events")
    assert response.status_code == 401
    response = api.call("GET", "/me/events", ann, headers={"Last-Event-ID": "7; DROP"})
    assert response.status_code == 400
    assert response.json["code"] == "bad_parameter"


@pytest.fixture
def capped(service: CommandService, real_redis: redis.Redis) -> FlaskClient:
    app = create_app(
        container_of(service, rate_limits=RateLimits(streams_open=MOST)), stream_seconds=30.0
    )
    return app.test_client(use_cookies=False)


def test_player_streams_are_capped_apart_from_game_streams(capped: FlaskClient) -> None:
    api = Api(capped)
    ann, bob = api.player("Ann"), api.player("Bob")
    game = f"/games/{api.new_game(ann, game='famiglia', seats=2)['game_id']}/events"

    def open_stream(path: str, who: Who) -> Any:
        return capped.get(path, headers=who.auth, buffered=False)

    held = [open_stream("/me/events", ann) for _ in range(MOST)]
    assert [r.status_code for r in held] == [200] * MOST
    refused = open_stream("/me/events", ann)
    assert refused.status_code == 429
    assert refused.json["code"] == "too_many_streams"
    assert refused.json["params"]["most"] == MOST
    # A game page's stream and another player's count apart.
    others = [open_stream(game, ann), open_stream("/me/events", bob)]
    assert [r.status_code for r in others] == [200, 200]
    held.pop().close()  # a place comes back
    held.append(open_stream("/me/events", ann))
    assert held[-1].status_code == 200
    for response in held + others:
        response.close()


def test_player_streams_are_rate_limited(service: CommandService, real_redis: redis.Redis) -> None:
    limits = RateLimits(streams="2 per minute")
    app = create_app(container_of(service, rate_limits=limits), stream_seconds=0)
    api = Api(app.test_client(use_cookies=False))
    ann = api.player("Ann")
    for _ in range(2):
        assert api.call("GET", "/me/events", ann).status_code == 200
    refused = api.call("GET", "/me/events", ann)
    assert refused.status_code == 429
    assert refused.json["code"] == "rate_limited"


def test_the_inbox_says_since_when_the_seat_has_waited(api: Api) -> None:
    mover, other, game_id = table(api)
    [entry] = api.ok("GET", "/me/inbox", mover)["games"]
    history = api.ok("GET", f"/games/{game_id}/history", mover)["events"]
    assert entry["waiting_since"] == history[-1]["time"]  # owed since the last event (the deal)
    assert entry["to_act"] == [entry["your_seat"]]
    move(api, mover, game_id)
    [entry] = api.ok("GET", "/me/inbox", other)["games"]
    history = api.ok("GET", f"/games/{game_id}/history", other)["events"]
    assert entry["waiting_since"] == history[-1]["time"]
    [mine] = api.ok("GET", "/me/games", mover)["games"]
    assert mine["waiting_since"] is None  # the mover owes nothing now


def test_the_version_seen_is_kept_per_player_and_game(api: Api, app: Flask) -> None:
    mover, other, game_id = table(api)
    path = f"/games/{game_id}/seen"
    version = api.ok("GET", f"/games/{game_id}")["version"]
    assert api.ok("PUT", path, other, json={"version": version}) == {
        "version": version, "previous": 0,
    }  # fmt: skip
    move(api, mover, game_id)
    now = api.ok("GET", f"/games/{game_id}")["version"]
    # Another device of the same player: what was seen follows the player.
    assert api.ok("PUT", path, other, json={"version": now}) == {
        "version": now, "previous": version,
    }  # fmt: skip
    # An older version (a stale tab) changes nothing; one past the game's is the game's.
    assert api.ok("PUT", path, other, json={"version": 1}) == {"version": now, "previous": now}
    assert api.ok("PUT", path, other, json={"version": 10**6})["version"] == now
    assert api.ok("PUT", path, mover, json={"version": 1}) == {"version": 1, "previous": 0}
    assert api.call("PUT", path, json={"version": 1}).status_code == 401
    assert api.call("PUT", "/games/nope/seen", other, json={"version": 1}).status_code == 404
    bad = api.call("PUT", path, other, json={"version": -1})
    assert bad.status_code == 400
