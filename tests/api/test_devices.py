"""Identity that follows the player: the sign-in link and recovery code sign a second
device in as the same player, revoking them refuses them, devices sign out one by one or all
together, sign-in attempts are rate-limited, and the store keeps only hashes of every secret."""

from __future__ import annotations

from typing import Any

import pytest
import redis
from flask import Flask

from api.app import create_app
from services.games.commands import CommandService
from services.identity.devices import FIRST, TOUCH_MS
from services.identity.players import RECHECK_MS, Players, Unauthorized
from services.platform.ratelimits import RateLimits, from_env
from tests.api.helpers import Api, Who, container_of

pytestmark = pytest.mark.server

PHONE = {"User-Agent": "Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 Chrome/131.0 Safari"}


def secret_of(link: str) -> str:
    assert "/signin#" in link, link
    return link.split("#", 1)[1]


def sign_in(api: Api, **sent: str) -> Any:
    return api.call("POST", "/signin", json=sent, headers=PHONE)


def as_device(body: dict[str, Any]) -> Who:
    return Who(body["id"], body["name"], body["token"])


def test_the_link_signs_a_second_device_in_as_the_same_player(api: Api) -> None:
    ann = api.player("Ann")
    made = api.ok("POST", "/me/signin", ann)
    assert made["link"].startswith("http") and "/signin#" in made["link"]
    assert made["qr"].startswith("<svg") and "<script" not in made["qr"]
    assert "style" not in made["qr"]  # the CSP allows no inline style
    answer = sign_in(api, link=secret_of(made["link"]))
    assert answer.status_code == 200, answer.json
    phone = as_device(answer.json)
    assert phone.id == ann.id and phone.name == "Ann"
    assert phone.token != ann.token
    assert "omerta_token=" + phone.token in answer.headers["Set-Cookie"]
    assert api.ok("GET", "/me", phone)["id"] == ann.id
    # The same games, and the same seat in them.
    game = api.new_game(ann, game="famiglia", seats=2, ai={"1": "random"})
    listed = api.ok("GET", "/me/games", phone)["games"]
    assert [g["game_id"] for g in listed] == [game["game_id"]]
    legal = api.call("GET", f"/games/{game['game_id']}/legal", phone)
    assert legal.status_code == 200 and legal.json["seat"] == 0


def test_the_recovery_code_signs_in_too_as_typed(api: Api) -> None:
    ann = api.player("Ann")
    code = api.ok("POST", "/me/signin", ann)["code"]
    groups = code.split("-")
    assert len(groups) == 4 and all(len(g) == 4 for g in groups)
    typed = " ".join(groups).lower()  # spaces instead of dashes, lower case
    answer = sign_in(api, code=typed)
    assert answer.status_code == 200, answer.json
    assert answer.json["id"] == ann.id


def test_a_revoked_or_replaced_link_signs_nobody_in(store_api: tuple[Api, redis.Redis]) -> None:
    api = store_api[0]
    ann = api.player("Ann")
    first = api.ok("POST", "/me/signin", ann)
    second = api.ok("POST", "/me/signin", ann)  # a new one revokes the old
    for sent in ({"link": secret_of(first["link"])}, {"code": first["code"]}):
        refused = sign_in(api, **sent)
        assert refused.status_code == 401
        assert refused.json["code"] == "bad_signin"
    assert sign_in(api, link=secret_of(second["link"])).status_code == 200
    assert api.ok("GET", "/me/signin", ann)["created"] == second["created"]
    assert api.call("DELETE", "/me/signin", ann).status_code == 204
    assert api.ok("GET", "/me/signin", ann) == {"created": None}
    for sent in ({"link": secret_of(second["link"])}, {"code": second["code"]}):
        assert sign_in(api, **sent).json["code"] == "bad_signin"
    assert sign_in(api, link="nothing-like-a-secret").json["code"] == "bad_signin"
    assert sign_in(api, code="not a code").json["code"] == "bad_signin"
    assert sign_in(api).json["code"] == "bad_signin"


def test_signing_out_one_device_ends_that_device_only(api: Api) -> None:
    ann = api.player("Ann")
    laptop = {"User-Agent": "Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0"}
    api.ok("GET", "/me", ann, headers=laptop)  # the first device, recorded at its first use
    secret = secret_of(api.ok("POST", "/me/signin", ann)["link"])
    phone = as_device(sign_in(api, link=secret).json)
    tablet = as_device(sign_in(api, link=secret).json)
    listed = api.ok("GET", "/me/devices", phone)["devices"]
    assert len(listed) == 3
    mine = [d for d in listed if d["current"]]
    assert len(mine) == 1 and mine[0]["label"] == "Chrome on Android"
    assert {d["label"] for d in listed} == {"Firefox on Linux", "Chrome on Android"}
    assert all(d["used"] >= d["created"] for d in listed)
    tablet_id = next(
        d["id"] for d in api.ok("GET", "/me/devices", tablet)["devices"] if d["current"]
    )
    assert api.call("DELETE", f"/me/devices/{tablet_id}", phone).status_code == 204
    assert api.call("GET", "/me", tablet).json["code"] == "bad_token"
    assert api.ok("GET", "/me", phone)["id"] == ann.id
    assert api.ok("GET", "/me", ann)["id"] == ann.id
    again = api.call("DELETE", f"/me/devices/{tablet_id}", phone)
    assert again.status_code == 404 and again.json["code"] == "unknown_device"
    assert len(api.ok("GET", "/me/devices", ann)["devices"]) == 2


def test_signing_out_the_others_or_all(store_api: tuple[Api, redis.Redis]) -> None:
    api = store_api[0]
    ann = api.player("Ann")
    secret = secret_of(api.ok("POST", "/me/signin", ann)["link"])
    phone = as_device(sign_in(api, link=secret).json)
    tablet = as_device(sign_in(api, link=secret).json)
    vague = api.call("POST", "/me/devices/signout", phone, json={"devices": "some"})
    assert vague.status_code == 400 and vague.json["code"] == "invalid_body"
    done = api.ok("POST", "/me/devices/signout", phone, json={"devices": "others"})
    assert done == {"signed_out": 2}
    assert api.call("GET", "/me", ann).status_code == 401  # the player token too
    assert api.call("GET", "/me", tablet).status_code == 401
    assert api.ok("GET", "/me", phone)["id"] == ann.id
    laptop = as_device(sign_in(api, link=secret).json)  # the link still works
    done = api.ok("POST", "/me/devices/signout", laptop, json={"devices": "all"})
    assert done == {"signed_out": 2}
    assert api.call("GET", "/me", laptop).status_code == 401
    assert api.call("GET", "/me", phone).status_code == 401


def test_the_store_keeps_only_hashes_of_every_secret(api: Api, real_redis: redis.Redis) -> None:
    ann = api.player("Ann")
    made = api.ok("POST", "/me/signin", ann)
    phone = as_device(sign_in(api, link=secret_of(made["link"])).json)
    api.ok("GET", "/me/devices", phone)
    code = made["code"]
    secrets = [ann.token, phone.token, secret_of(made["link"]), code, code.replace("-", "")]
    dump = []
    for key in real_redis.scan_iter("*"):
        dump.append(key)
        kind = real_redis.type(key)
        if kind == b"string":
            dump.append(real_redis.get(key) or b"")
        elif kind == b"hash":
            for field, value in real_redis.hgetall(key).items():
                dump += [field, value]
        elif kind == b"zset":
            dump += [m for m, _ in real_redis.zrange(key, 0, -1, withscores=True)]
    assert any(key.startswith(b"session:") for key in dump)  # the scan sees the sessions
    for secret in secrets:
        assert not any(secret.encode() in blob for blob in dump), secret


def test_the_cross_origin_and_json_checks_cover_sign_in(api: Api) -> None:
    foreign = {"Sec-Fetch-Site": "cross-site"}
    answer = api.call("POST", "/signin", json={"code": "AAAA-AAAA-AAAA-AAAA"}, headers=foreign)
    assert answer.status_code == 403 and answer.json["code"] == "cross_origin"
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    answer = api.call("POST", "/signin", data=b"code=x", headers=form)
    assert answer.status_code == 415 and answer.json["code"] == "json_required"


@pytest.fixture
def limited_app(service: CommandService, real_redis: redis.Redis) -> Flask:
    rules = RateLimits(signin="4 per hour", signin_secret="2 per hour")
    return create_app(container_of(service, rate_limits=rules), stream_seconds=0)


def test_sign_in_attempts_are_limited_per_code_and_per_address(limited_app: Flask) -> None:
    api = Api(limited_app.test_client(use_cookies=False))
    ann = api.player("Ann")
    code = api.ok("POST", "/me/signin", ann)["code"]
    assert sign_in(api, code=code).status_code == 200
    assert sign_in(api, code=code.lower()).status_code == 200  # the same code, as typed
    third = sign_in(api, code=code)
    assert third.status_code == 429 and third.json["code"] == "rate_limited"
    assert int(third.headers["Retry-After"]) >= 1
    # Other guesses from the same address: two more, then the address is out too.
    assert sign_in(api, code="AAAA-AAAA-AAAA-AAAA").json["code"] == "bad_signin"
    assert sign_in(api, code="BBBB-BBBB-BBBB-BBBB").status_code == 429


def test_the_sign_in_limits_come_from_the_environment() -> None:
    env = {"OMERTA_LIMIT_SIGNIN": "5 per minute", "OMERTA_LIMIT_SIGNIN_SECRET": "3 per day"}
    assert from_env(env) == RateLimits(signin="5 per minute", signin_secret="3 per day")


def test_a_signed_out_device_stops_working_in_another_process_soon(
    real_redis: redis.Redis,
) -> None:
    """Each web process caches a token's check for RECHECK_MS; the process that signs a device
    out forgets it at once, another one within that time. Last use is written at most once a
    minute."""
    now = [1_000_000]
    here, there = (Players(real_redis, clock=lambda: now[0]) for _ in range(2))
    ann, token = here.create("Ann")
    device, phone = here.devices.add(ann.id, "Phone", now[0])
    assert there.session(phone) == (ann, device)
    assert there.session(token, "Laptop") == (ann, FIRST)
    assert {d.label for d in here.devices.listing(ann.id)} == {"Phone", "Laptop"}
    here.forget(here.devices.revoke(ann.id, [device, FIRST]))
    for gone in (phone, token):
        with pytest.raises(Unauthorized):
            here.session(gone)
    now[0] += RECHECK_MS - 1
    assert there.session(phone) == (ann, device)  # still cached over there
    now[0] += 1
    for gone in (phone, token):
        with pytest.raises(Unauthorized):
            there.session(gone)


def test_last_use_is_written_at_most_once_a_minute(real_redis: redis.Redis) -> None:
    now = [1_000_000]
    players = Players(real_redis, clock=lambda: now[0])
    ann, _ = players.create("Ann")
    _, phone = players.devices.add(ann.id, "Phone", now[0])
    players.session(phone)
    for step in (RECHECK_MS, TOUCH_MS - RECHECK_MS - 1):
        now[0] += step
        players.session(phone)
        assert players.devices.listing(ann.id)[0].used == 1_000_000
    now[0] += RECHECK_MS  # a minute since the last write, and the cached check is stale
    players.session(phone)
    assert players.devices.listing(ann.id)[0].used == now[0]
