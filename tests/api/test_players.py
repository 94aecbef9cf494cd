"""Player identity: tokens stored only as hashes, bearer or cookie, seats and invites."""

from __future__ import annotations

import hashlib

import pytest
import redis
from flask import Flask

from services.identity.players import Players, token_key
from tests.api.helpers import Api

pytestmark = pytest.mark.server


def test_the_token_is_stored_only_as_its_hash(api: Api, real_redis: redis.Redis) -> None:
    ann = api.player("Ann")
    stored = b"".join(key + real_redis.dump(key) for key in real_redis.scan_iter("*"))
    assert ann.token.encode() not in stored
    assert real_redis.get(token_key(hashlib.sha256(ann.token.encode()).hexdigest())) == (
        ann.id.encode()
    )
    assert len(ann.token) >= 43  # 256 random bits


def test_bearer_and_cookie_identify_the_player(app: Flask, api: Api) -> None:
    ann = api.player("Ann")
    assert api.ok("GET", "/me", ann)["id"] == ann.id
    with app.test_client() as browser:  # keeps the cookie POST /players sets
        created = browser.post("/players", json={"name": "Bea"})
        cookie = created.headers["Set-Cookie"]
        assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
        assert browser.get("/me").json["id"] == created.json["id"]


def test_names_are_tidied(api: Api) -> None:
    assert api.player("  Ann   Lee ").name == "Ann Lee"


def test_an_invite_takes_its_seat_once(api: Api) -> None:
    ann, bob, cid = api.player("Ann"), api.player("Bob"), api.player("Cid")
    created = api.new_game(ann, game="gangsta", seats=3, seat=1)
    assert created["seat"] == 1
    by_seat = {i["seat"]: i["code"] for i in created["invites"]}
    assert set(by_seat) == {0, 2}
    game_id = created["game_id"]
    assert api.join(bob, game_id, by_seat[2]) == 2
    again = api.call("POST", f"/games/{game_id}/join", cid, json={"invite": by_seat[2]})
    assert (again.status_code, again.json["code"]) == (403, "bad_invite")
    assert api.join(cid, game_id, by_seat[0]) == 0
    seats = api.ok("GET", f"/games/{game_id}", cid)["seats"]
    assert [(s["seat"], s["name"]) for s in seats] == [(0, "Cid"), (1, "Ann"), (2, "Bob")]
    assert api.ok("GET", f"/games/{game_id}/view", bob)["seat"] == 2


def test_a_second_process_knows_the_seats(api: Api, real_redis: redis.Redis) -> None:
    ann, bob = api.player("Ann"), api.player("Bob")
    created = api.new_game(ann, game="famiglia", seats=2)
    fresh = Players(real_redis)  # another gunicorn worker: empty caches
    assert fresh.seat_of(created["game_id"], ann.id) == 0
    assert fresh.seat_of(created["game_id"], bob.id) is None
    api.join(bob, created["game_id"], created["invites"][0]["code"])
    assert fresh.seat_of(created["game_id"], bob.id) == 1
    assert fresh.authenticate(bob.token).id == bob.id
