"""Rate limits (``api.http.limits``): each limited request answers 429 problem+json with
``Retry-After`` and changes nothing, counted in the service's own store (the real server here);
one player's open public games are capped; ``OMERTA_RATE_LIMITS=off`` lifts it all."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import redis
from redis.backoff import NoBackoff
from redis.cluster import RedisCluster
from redis.retry import Retry

from api.app import create_app
from api.http.limits import storage
from services.eventstore.store import EventStore
from services.games.commands import CommandService
from services.games.repository import EventStoreRepository
from services.identity.players import Players
from services.platform.embedded import free_port
from services.platform.ratelimits import RateLimits, from_env
from tests.api.helpers import Api, Who, container_of

pytestmark = pytest.mark.server

Make = Callable[..., Api]


@pytest.fixture
def limited(service: CommandService, real_redis: redis.Redis) -> Make:
    """An API whose limits are the defaults but for the ones given."""

    def make(**tight: Any) -> Api:
        app = create_app(container_of(service, rate_limits=RateLimits(**tight)), stream_seconds=0)
        return Api(app.test_client(use_cookies=False))

    return make


def refused(response: Any, window: int) -> None:
    assert response.status_code == 429, response.json
    assert response.mimetype == "application/problem+json"
    assert response.json["code"] == "rate_limited"
    retry = int(response.headers["Retry-After"])
    assert 1 <= retry <= window + 1  # the window, rounded up to a whole second
    assert response.json["params"] == {"retry_after": retry}
    assert str(retry) in response.json["detail"]


@pytest.mark.cluster
def test_the_limits_count_on_a_cluster_too(cluster_redis: RedisCluster) -> None:
    uri, options = storage(cluster_redis)
    assert uri.startswith("redis+cluster://") and "connection_pool" not in options
    limited = RateLimits(players="2 per hour")
    app = create_app(
        container_of(
            CommandService(EventStoreRepository(EventStore(cluster_redis))), rate_limits=limited
        ),
        stream_seconds=0,
    )
    api = Api(app.test_client(use_cookies=False))
    api.player("Ann")
    api.player("Bob")
    refused(api.call("POST", "/players", json={"name": "Cy"}), 3600)
    assert len(list(cluster_redis.scan_iter("token:*"))) == 2
    assert list(cluster_redis.scan_iter("LIMITS*")), "the counters live in the cluster"


def test_player_creation_is_limited_per_address(limited: Make, real_redis: redis.Redis) -> None:
    api = limited(players="2 per hour")
    api.player("Ann")
    api.player("Bob")
    tokens = set(real_redis.scan_iter("token:*"))
    refused(api.call("POST", "/players", json={"name": "Cy"}), 3600)
    assert set(real_redis.scan_iter("token:*")) == tokens
    assert list(real_redis.scan_iter("LIMITS*")), "the counters live in the service's store"


def test_behind_a_proxy_each_forwarded_address_counts(limited: Make) -> None:
    api = limited(players="1 per hour", proxies=1)
    make = {"name": "Ann"}
    for client in ("203.0.113.1", "203.0.113.2"):
        sent = {"X-Forwarded-For": client}
        assert api.call("POST", "/players", json=make, headers=sent).status_code == 201
    # what the client itself puts in front of the proxy's entry does not make it someone else
    spoofed = {"X-Forwarded-For": "198.51.100.9, 203.0.113.1"}
    refused(api.call("POST", "/players", json=make, headers=spoofed), 3600)


def test_without_a_proxy_setting_forwarded_addresses_are_ignored(limited: Make) -> None:
    api = limited(players="1 per hour")
    api.player("Ann")
    sent = {"X-Forwarded-For": "203.0.113.7"}
    refused(api.call("POST", "/players", json={"name": "Bo"}, headers=sent), 3600)


def test_game_creation_is_limited_per_player(limited: Make, real_redis: redis.Redis) -> None:
    api = limited(games="1 per hour")
    ann, bob = api.player("Ann"), api.player("Bob")
    api.new_game(ann, game="famiglia", seats=2)
    refused(api.call("POST", "/games", ann, json={"game": "famiglia", "seats": 2}), 3600)
    assert len(Players(real_redis).games_of(ann.id)) == 1
    api.new_game(bob, game="famiglia", seats=2)  # another player has a budget of their own


def test_joins_are_limited_per_player(limited: Make, real_redis: redis.Redis) -> None:
    api = limited(joins="1 per hour")
    ann, bob = api.player("Ann"), api.player("Bob")
    first, second = (api.new_game(ann, game="famiglia", seats=2) for _ in range(2))
    api.join(bob, first["game_id"], first["invites"][0]["code"])
    invite = {"invite": second["invites"][0]["code"]}
    refused(api.call("POST", f"/games/{second['game_id']}/join", bob, json=invite), 3600)
    assert Players(real_redis).seats(second["game_id"]) == {0: ann.id}


def test_commands_are_limited_per_player(limited: Make) -> None:
    api = limited(commands="1 per minute")
    ann, bob = api.player("Ann"), api.player("Bob")
    created = api.new_game(ann, game="famiglia", seats=2)
    game_id = created["game_id"]
    api.join(bob, game_id, created["invites"][0]["code"])
    played: set[str] = set()
    while True:
        mover: Who = (ann, bob)[api.ok("GET", f"/games/{game_id}")["to_act"][0]]
        legal = api.ok("GET", f"/games/{game_id}/legal", mover)
        body = {"command": legal["commands"][0], "expected_version": legal["version"]}
        response = api.call("POST", f"/games/{game_id}/commands", mover, json=body)
        if mover.id not in played:  # each player's first move goes through
            assert response.status_code == 200, response.json
            played.add(mover.id)
            continue
        refused(response, 60)
        assert api.ok("GET", f"/games/{game_id}")["version"] == legal["version"]
        return


def test_event_streams_are_limited_per_client(limited: Make) -> None:
    api = limited(streams="2 per minute")
    ann = api.player("Ann")
    game_id = api.new_game(ann, game="famiglia", seats=2)["game_id"]
    for _ in range(2):
        assert api.call("GET", f"/games/{game_id}/events", ann).status_code == 200
    refused(api.call("GET", f"/games/{game_id}/events", ann), 60)
    # a spectator without a token counts by address, apart from the player
    for _ in range(2):
        assert api.call("GET", f"/games/{game_id}/events").status_code == 200
    refused(api.call("GET", f"/games/{game_id}/events"), 60)


def test_chat_is_limited_per_player(limited: Make) -> None:
    api = limited(chat="2 per minute")
    ann, bob = api.player("Ann"), api.player("Bob")
    created = api.new_game(ann, game="famiglia", seats=2)
    game_id = created["game_id"]
    api.join(bob, game_id, created["invites"][0]["code"])
    for text in ("one", "two"):
        api.ok("POST", f"/games/{game_id}/chat", ann, json={"text": text})
    refused(api.call("POST", f"/games/{game_id}/chat", ann, json={"text": "three"}), 60)
    api.ok("POST", f"/games/{game_id}/chat", bob, json={"text": "bob's own count"})
    texts = [m["text"] for m in api.ok("GET", f"/games/{game_id}/chat")["messages"]]
    assert texts == ["one", "two", "bob's own count"]


def test_refusals_in_japanese(limited: Make) -> None:
    api = limited(players="1 per hour")
    api.player("Ann")
    response = api.call("POST", "/players", json={"name": "Bo"}, headers={"Accept-Language": "ja"})
    assert response.status_code == 429
    assert response.json["detail"].isascii() is False


def test_one_player_cannot_fill_the_lobby(limited: Make) -> None:
    api = limited(open_games=2)
    ann, bob = api.player("Ann"), api.player("Bob")
    public = {"game": "famiglia", "seats": 2, "public": True}
    games = [api.new_game(ann, **public)["game_id"] for _ in range(2)]
    response = api.call("POST", "/games", ann, json=public)
    assert response.status_code == 409, response.json
    assert response.json["code"] == "too_many_open_games"
    assert response.json["params"] == {"max": 2}
    lobby = [g["game_id"] for g in api.ok("GET", "/lobby")["games"]]
    assert sorted(lobby) == sorted(games)
    api.new_game(ann, game="famiglia", seats=2)  # a private game is not in the lobby
    api.new_game(bob, **public)  # nor is the cap shared
    api.ok("POST", f"/games/{games[0]}/join", bob, json={})  # a filled game leaves the lobby
    api.new_game(ann, **public)


def test_the_setting_lifts_every_limit(limited: Make) -> None:
    api = limited(enabled=False, players="1 per hour", games="1 per hour", open_games=1)
    ann = api.player("Ann")
    api.player("Bob")
    for _ in range(3):
        api.new_game(ann, game="famiglia", seats=2, public=True)


def test_settings_from_the_environment() -> None:
    assert from_env({}) == RateLimits()
    env = {
        "OMERTA_RATE_LIMITS": "off",
        "OMERTA_LIMIT_PLAYERS": "5 per hour",
        "OMERTA_LIMIT_GAMES": "6 per hour",
        "OMERTA_LIMIT_JOINS": "7 per hour",
        "OMERTA_LIMIT_COMMANDS": "8 per minute",
        "OMERTA_LIMIT_STREAMS": "9 per minute",
        "OMERTA_OPEN_GAMES": "3",
        "OMERTA_LIMIT_PROXIES": "2",
    }
    assert from_env(env) == RateLimits(
        False, "5 per hour", "6 per hour", "7 per hour", "8 per minute", "9 per minute", 3, 2,
        rematches="6 per hour",  # a rematch makes a game: the creations' variable
    )  # fmt: skip
    with pytest.raises(ValueError, match="OMERTA_RATE_LIMITS"):
        from_env({"OMERTA_RATE_LIMITS": "maybe"})


def test_a_misspelt_limit_stops_the_start(limited: Make) -> None:
    """Not a limit silently skipped at every request."""
    with pytest.raises(ValueError, match="OMERTA_LIMIT_COMMANDS"):
        limited(commands="300 a minute")


def test_a_store_that_does_not_answer_is_still_a_503() -> None:
    """The limiter counts in the store: without it the request goes on to the service's own
    refusal (503 store_unavailable), not a 500 of the limiter's."""
    nowhere = redis.Redis(port=free_port(), socket_connect_timeout=1, retry=Retry(NoBackoff(), 0))
    app = create_app(
        container_of(
            CommandService(EventStoreRepository(EventStore(nowhere), hooks=[])),
            rate_limits=RateLimits(),
        )
    )
    refused = Api(app.test_client()).call("POST", "/players", json={"name": "Ann"})
    assert (refused.status_code, refused.json["code"]) == (503, "store_unavailable")
