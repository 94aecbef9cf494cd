"""Creating a player, creating a game and joining take an ``Idempotency-Key`` (issue 13, finding
6): a retry after an answer that never arrived (a 503 after the write) returns the first answer
and creates nothing new; the same key with another body is refused."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import msgspec
import pytest
import redis
from flask import Flask

from api.schemas.games import NewGame
from services.errors import Unavailable
from services.eventstore import idempotency, keys
from services.eventstore.store import EventStore
from services.games.commands import CommandService
from services.games.seats import player_games_key
from services.identity.players import Players
from tests.api.helpers import Api, Who

pytestmark = pytest.mark.server

KEY = "0b7e5c1a-9d2f-4e1b-8c3a-6f5d4e3c2b1a"


def keyed(key: str = KEY) -> dict[str, str]:
    return {"Idempotency-Key": key}


def players_in(client: redis.Redis) -> set[bytes]:
    return {k for k in client.scan_iter("player:{*}") if not k.endswith(b":games")}


def games_in(client: redis.Redis) -> list[bytes]:
    return list(client.scan_iter(keys.META_PATTERN))


@pytest.fixture
def fail_once(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[Any, str], None]]:
    """Make ``owner.name`` do its work, then fail the request with a 503, once."""

    def arm(owner: Any, name: str) -> None:
        real = getattr(owner, name)

        def failing(*args: Any, **kwargs: Any) -> Any:
            real(*args, **kwargs)
            monkeypatch.setattr(owner, name, real)
            raise Unavailable("the store stopped answering")

        monkeypatch.setattr(owner, name, failing)

    yield arm


def refused(response: Any, status: int, code: str) -> None:
    assert response.status_code == status, response.json
    assert response.mimetype == "application/problem+json"
    assert response.json["code"] == code


# -- players ----------------------------------------------------------------------------------


def test_a_player_retried_after_a_lost_answer_is_the_same_player(
    store_api: tuple[Api, redis.Redis], fail_once: Callable[[Any, str], None]
) -> None:
    api, real_redis = store_api
    fail_once(Players, "create")
    lost = api.call("POST", "/players", json={"name": "Ann"}, headers=keyed())
    refused(lost, 503, "store_unavailable")
    assert len(players_in(real_redis)) == 1  # the write happened

    first = api.call("POST", "/players", json={"name": "Ann"}, headers=keyed())
    again = api.call("POST", "/players", json={"name": "Ann"}, headers=keyed())
    assert first.status_code == again.status_code == 201
    assert first.json == again.json and first.json["name"] == "Ann"
    assert "omerta_token=" + first.json["token"] in again.headers["Set-Cookie"]
    assert len(players_in(real_redis)) == 1
    me = api.ok("GET", "/me", Who(first.json["id"], "Ann", first.json["token"]))
    assert me["id"] == first.json["id"]


def test_a_player_key_with_another_body_is_refused(store_api: tuple[Api, redis.Redis]) -> None:
    api, real_redis = store_api
    api.ok("POST", "/players", json={"name": "Ann"}, headers=keyed())
    reused = api.call("POST", "/players", json={"name": "Bob"}, headers=keyed())
    refused(reused, 409, "idempotency_key_reused")
    assert len(players_in(real_redis)) == 1


def test_a_key_used_again_after_its_record_expired_makes_another_player(
    api: Api, real_redis: redis.Redis
) -> None:
    first = api.ok("POST", "/players", json={"name": "Ann"}, headers=keyed())
    (record,) = real_redis.scan_iter("idem:players:*")
    real_redis.delete(record)  # as its expiry would
    second = api.ok("POST", "/players", json={"name": "Ann"}, headers=keyed())
    assert second["id"] != first["id"] and second["token"] != first["token"]
    for made in (first, second):  # each token still names its own player
        assert api.ok("GET", "/me", Who(made["id"], "Ann", made["token"]))["id"] == made["id"]


def test_without_a_key_every_request_is_a_new_player(api: Api, real_redis: redis.Redis) -> None:
    one, two = api.player("Ann"), api.player("Ann")
    assert one.id != two.id and len(players_in(real_redis)) == 2


@pytest.mark.parametrize(("key", "code"), [("", "bad_command_id"), ("x" * 129, "bad_command_id"),
                                           ("abc123", "weak_idempotency_key")])  # fmt: skip
def test_a_player_key_must_be_long_and_random(
    api: Api, real_redis: redis.Redis, key: str, code: str
) -> None:
    refused(api.call("POST", "/players", json={"name": "Ann"}, headers=keyed(key)), 400, code)
    assert players_in(real_redis) == set()


def test_keys_are_kept_hashed_and_expire(api: Api, real_redis: redis.Redis) -> None:
    ann = api.ok("POST", "/players", json={"name": "Ann"}, headers=keyed())
    who = Who(ann["id"], "Ann", ann["token"])
    game = api.ok("POST", "/games", who, json={"game": "famiglia", "seats": 2}, headers=keyed())
    bob = api.player("Bob")
    invite = {"invite": game["invites"][0]["code"]}
    api.ok("POST", f"/games/{game['game_id']}/join", bob, json=invite, headers=keyed())
    records = list(real_redis.scan_iter("idem:*"))
    assert len(records) == 3
    for record in records:
        assert 0 < real_redis.pttl(record) <= 24 * 3600 * 1000
    for key in real_redis.scan_iter("*"):
        assert KEY.encode() not in key
        if real_redis.type(key) == b"string":
            value = real_redis.get(key)
            assert KEY.encode() not in value and ann["token"].encode() not in value


# -- games ------------------------------------------------------------------------------------

NEW = {"game": "gangsta", "seats": 3, "public": True}


def test_a_game_retried_after_a_lost_answer_is_the_same_game(
    api: Api, service: CommandService, real_redis: redis.Redis,
    fail_once: Callable[[Any, str], None],
) -> None:  # fmt: skip
    ann = api.player("Ann")
    fail_once(service, "notify")
    refused(api.call("POST", "/games", ann, json=NEW, headers=keyed()), 503, "store_unavailable")
    assert len(games_in(real_redis)) == 1

    first = api.call("POST", "/games", ann, json=NEW, headers=keyed())
    again = api.call("POST", "/games", ann, json=NEW, headers=keyed())
    assert first.status_code == again.status_code == 201
    assert first.json == again.json and len(first.json["invites"]) == 2
    assert first.headers["Location"] == again.headers["Location"]
    assert len(games_in(real_redis)) == 1
    game_id = first.json["game_id"]
    assert api.ok("GET", "/me/games", ann)["games"][0]["game_id"] == game_id
    bob = api.player("Bob")  # the invites of the answer open the seats
    assert api.join(bob, game_id, first.json["invites"][1]["code"]) == 2


def assert_retries_give(api: Api, ann: Who, real_redis: redis.Redis) -> None:
    """A retry of ``NEW`` by Ann answers with the one game stored, as every later retry does."""
    first = api.call("POST", "/games", ann, json=NEW, headers=keyed())
    again = api.call("POST", "/games", ann, json=NEW, headers=keyed())
    assert first.status_code == again.status_code == 201, first.json
    assert first.json == again.json and len(first.json["invites"]) == 2
    stored = games_in(real_redis)
    assert len(stored) == 1 and first.json["game_id"].encode() in stored[0]
    assert real_redis.zrange(player_games_key(ann.id), 0, -1) == [first.json["game_id"].encode()]


def test_a_game_retried_after_its_append_lost_its_answer_is_the_same_game(
    store_api: tuple[Api, redis.Redis], fail_once: Callable[[Any, str], None]
) -> None:
    api, real_redis = store_api
    ann = api.player("Ann")
    fail_once(EventStore, "append")  # stored, but the answer is lost (a master killed)
    refused(api.call("POST", "/games", ann, json=NEW, headers=keyed()), 503, "store_unavailable")
    assert len(games_in(real_redis)) == 1
    assert_retries_give(api, ann, real_redis)


def is_final_record(name: Any, value: Any = b"", *args: Any, **kwargs: Any) -> bool:
    return str(name).startswith("idem:") and b'"pending":true' not in bytes(value)


@pytest.mark.parametrize("pending", ["released", "expired"])
def test_a_game_retried_after_its_record_was_not_written_is_the_same_game(
    api: Api, real_redis: redis.Redis, monkeypatch: pytest.MonkeyPatch, pending: str
) -> None:
    """The game is appended, then writing its idempotency record fails: the pending record is
    given back at once, or (the process lost) expires; either way the retry finds the game."""
    ann = api.player("Ann")
    real_set = real_redis.set

    def failing_set(*args: Any, **kwargs: Any) -> Any:
        if is_final_record(*args, **kwargs):
            raise Unavailable("the store stopped answering")
        return real_set(*args, **kwargs)

    def lost(*args: Any) -> None:
        raise Unavailable("the process was lost")

    monkeypatch.setattr(real_redis, "set", failing_set)
    if pending == "expired":
        monkeypatch.setattr(idempotency, "release_game", lost)
    refused(api.call("POST", "/games", ann, json=NEW, headers=keyed()), 503, "store_unavailable")
    monkeypatch.undo()
    assert len(games_in(real_redis)) == 1
    records = list(real_redis.scan_iter("idem:*:games:*"))
    if pending == "expired":
        assert len(records) == 1
        real_redis.delete(*records)  # as its expiry would
    else:
        assert records == []
    assert_retries_give(api, ann, real_redis)


def test_a_game_key_with_another_body_is_refused(api: Api, real_redis: redis.Redis) -> None:
    ann = api.player("Ann")
    api.ok("POST", "/games", ann, json=NEW, headers=keyed())
    other = {**NEW, "seats": 2}
    refused(api.call("POST", "/games", ann, json=other, headers=keyed()), 409,
            "idempotency_key_reused")  # fmt: skip
    assert len(games_in(real_redis)) == 1


def test_a_refused_creation_leaves_the_key_free(api: Api, real_redis: redis.Redis) -> None:
    ann = api.player("Ann")
    bad = {**NEW, "options": {"no_such_option": True}}
    refused(api.call("POST", "/games", ann, json=bad, headers=keyed()), 400, "bad_options")
    assert api.call("POST", "/games", ann, json=NEW, headers=keyed()).status_code == 201
    assert len(games_in(real_redis)) == 1


def test_a_twin_of_a_creation_under_way_is_told_to_retry(api: Api, real_redis: redis.Redis) -> None:
    ann = api.player("Ann")
    same = idempotency.fingerprint(msgspec.convert(NEW, NewGame))  # as the API reads the body
    assert idempotency.begin_game(real_redis, ann.id, KEY, same) is None
    twin = api.call("POST", "/games", ann, json=NEW, headers=keyed())
    refused(twin, 409, "idempotency_key_in_use")
    assert games_in(real_redis) == []


def test_game_keys_are_each_players_own(api: Api, real_redis: redis.Redis) -> None:
    ann, bob = api.player("Ann"), api.player("Bob")
    one = api.ok("POST", "/games", ann, json=NEW, headers=keyed())
    two = api.ok("POST", "/games", bob, json=NEW, headers=keyed())
    assert one["game_id"] != two["game_id"] and len(games_in(real_redis)) == 2


# -- joins ------------------------------------------------------------------------------------


def test_a_join_retried_after_a_lost_answer_is_the_same_seat(
    api: Api, service: CommandService, fail_once: Callable[[Any, str], None]
) -> None:
    ann, bob = api.player("Ann"), api.player("Bob")
    game = api.new_game(ann, **NEW)
    path = f"/games/{game['game_id']}/join"
    invite = {"invite": game["invites"][1]["code"]}
    fail_once(service, "notify")
    refused(api.call("POST", path, bob, json=invite, headers=keyed()), 503, "store_unavailable")

    first = api.call("POST", path, bob, json=invite, headers=keyed())
    again = api.call("POST", path, bob, json=invite, headers=keyed())
    assert first.status_code == again.status_code == 200
    assert first.json == again.json == {"game_id": game["game_id"], "seat": 2}
    seats = api.ok("GET", f"/games/{game['game_id']}")["seats"]
    assert [s["seat"] for s in seats if s.get("player") == bob.id] == [2]
    refused(api.call("POST", path, bob, json=invite), 409, "no_open_seat")  # no key: no replay


def test_a_join_key_with_another_body_is_refused(api: Api) -> None:
    ann, bob = api.player("Ann"), api.player("Bob")
    game = api.new_game(ann, **NEW)
    path = f"/games/{game['game_id']}/join"
    api.ok("POST", path, bob, json={"invite": game["invites"][0]["code"]}, headers=keyed())
    other = {"invite": game["invites"][1]["code"]}
    refused(api.call("POST", path, bob, json=other, headers=keyed()), 409, "idempotency_key_reused")
    carol = api.player("Carol")  # the other seat is still open
    assert api.join(carol, game["game_id"], other["invite"]) == 2


def test_a_double_click_on_start_playing_gets_the_first_player(
    app: Flask, real_redis: redis.Redis
) -> None:
    """A browser's repeat carries the cookie the first answer set: it is the first answer
    again, not 409 ``player_exists``; another key from that browser still is."""
    with app.test_client() as browser:  # keeps cookies, as a browser does
        first = browser.post("/players", json={"name": "Ann"}, headers=keyed())
        again = browser.post("/players", json={"name": "Ann"}, headers=keyed())
        assert first.status_code == again.status_code == 201, again.json
        assert again.json == first.json
        other = browser.post("/players", json={"name": "Ann"}, headers=keyed(KEY[::-1]))
        refused(other, 409, "player_exists")
    assert len(players_in(real_redis)) == 1
