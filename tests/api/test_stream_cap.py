"""One client holds at most ``OMERTA_STREAMS_PER_CLIENT`` live-event streams open at once
(per process, ``api.http.limits.OpenStreams``): one more is 429 ``too_many_streams`` with
``Retry-After``; a place comes back when a stream's response is closed (the stream ended, or its
client left), also one never read; other clients and anonymous spectators count apart. What a
process serves in all, whatever the clients (thousands of pages, each far under this cap), is
capped apart: ``tests/api/test_stream_capacity.py``."""

from __future__ import annotations

from typing import Any

import pytest
import redis
from flask.testing import FlaskClient

from api.app import create_app
from services.games.commands import CommandService
from services.platform.ratelimits import RateLimits, from_env
from tests.api.helpers import Api, container_of

pytestmark = pytest.mark.server

MOST = 3


@pytest.fixture
def client(service: CommandService, real_redis: redis.Redis) -> FlaskClient:
    app = create_app(
        container_of(service, rate_limits=RateLimits(streams_open=MOST)), stream_seconds=30.0
    )
    return app.test_client(use_cookies=False)


def open_stream(client: FlaskClient, path: str, token: str | None = None) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return client.get(path, headers=headers, buffered=False)


def refused(response: Any) -> None:
    assert response.status_code == 429, response.get_data()
    assert response.mimetype == "application/problem+json"
    assert response.json["code"] == "too_many_streams"
    retry = int(response.headers["Retry-After"])
    assert 1 <= retry <= 31  # when the oldest stream ends (30 s after it began)
    assert response.json["params"] == {"most": MOST, "retry_after": retry}


def test_a_client_holds_at_most_the_cap_and_closing_frees_a_place(client: FlaskClient) -> None:
    api = Api(client)
    ann, bob = api.player("Ann"), api.player("Bob")
    path = f"/games/{api.new_game(ann, game='famiglia', seats=2)['game_id']}/events"
    held = [open_stream(client, path, ann.token) for _ in range(MOST)]
    assert [r.status_code for r in held] == [200] * MOST
    refused(open_stream(client, path, ann.token))

    # Another player, and a spectator without a token, count apart from Ann.
    others = [open_stream(client, path, bob.token), open_stream(client, path)]
    assert [r.status_code for r in others] == [200, 200]

    # A stream read for a while, then left by its client: its place comes back.
    first = held.pop(0)
    assert next(iter(first.response)).startswith(b"retry:")
    first.close()
    held.append(open_stream(client, path, ann.token))
    assert held[-1].status_code == 200
    refused(open_stream(client, path, ann.token))

    # A response never read at all gives its place back when closed too.
    held.pop().close()
    held.append(open_stream(client, path, ann.token))
    assert held[-1].status_code == 200
    for response in held + others:
        response.close()


def test_a_refused_stream_request_takes_no_place(client: FlaskClient) -> None:
    api = Api(client)
    ann = api.player("Ann")
    # An unknown game is a 404: no place is kept for it.
    for _ in range(MOST + 1):
        assert open_stream(client, "/games/nope/events", ann.token).status_code == 404
    path = f"/games/{api.new_game(ann, game='famiglia', seats=2)['game_id']}/events"
    held = [open_stream(client, path, ann.token) for _ in range(MOST)]
    assert [r.status_code for r in held] == [200] * MOST
    for response in held:
        response.close()


def test_the_cap_is_set_by_the_environment() -> None:
    assert from_env({}).streams_open == 20
    assert from_env({"OMERTA_STREAMS_PER_CLIENT": "5"}).streams_open == 5
    assert from_env({"OMERTA_STREAMS_PER_CLIENT": "0"}).streams_open == 0
