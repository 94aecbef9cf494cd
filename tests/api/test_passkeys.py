"""Passkeys: a signed-in player registers one; another device signs in with it alone
(no name: a discoverable credential) and gets a device session; every answer that is not the
answer to a live challenge of the server's, for this, from the service's origin, with a passkey
someone has, is refused; sign-ins are rate-limited; the relying party follows the public URL.

The authenticator is ``tests.authenticator`` (real keys and signatures, no browser)."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
import redis
from flask import Flask

from api.app import create_app
from services.games.commands import CommandService
from services.identity import passkeys as passkeys_module
from services.identity.passkeys import RelyingParty, relying_party
from services.platform.ratelimits import RateLimits
from tests.api.helpers import Api, Who, container_of
from tests.authenticator import Authenticator, b64url, unb64url

pytestmark = pytest.mark.server

ORIGIN = "http://localhost:8000"  # the tests' public URL is http://127.0.0.1:8000
PHONE = {"User-Agent": "Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 Chrome/131.0 Safari"}


def register(api: Api, who: Who, device: Authenticator, origin: str = ORIGIN) -> Any:
    options = api.ok("POST", "/me/passkeys/options", who)
    answer = {"credential": device.create(options, origin)}
    return api.call("POST", "/me/passkeys", who, json=answer)


def sign_in_answer(api: Api, device: Authenticator, origin: str = ORIGIN) -> dict[str, Any]:
    options = api.ok("POST", "/signin/passkey/options")
    return {"credential": device.get(options, origin)}


def sign_in(api: Api, answer: dict[str, Any]) -> Any:
    return api.call("POST", "/signin/passkey", json=answer, headers=PHONE)


def test_a_passkey_signs_a_new_device_in_as_its_player(api: Api) -> None:
    ann, laptop = api.player("Ann"), Authenticator()
    options = api.ok("POST", "/me/passkeys/options", ann)
    assert options["rp"] == {"id": "localhost", "name": "Omerta"}
    assert options["authenticatorSelection"]["residentKey"] == "required"
    made = register(api, ann, laptop)
    assert made.status_code == 201, made.json
    assert made.json["used"] == 0 and made.json["label"] == ""  # the test client names no device
    game = api.new_game(ann, game="famiglia", seats=2, ai={"1": "random"})

    answer = sign_in(api, sign_in_answer(api, laptop))
    assert answer.status_code == 200, answer.json
    assert answer.json["id"] == ann.id and answer.json["name"] == "Ann"
    assert "omerta_token=" + answer.json["token"] in answer.headers["Set-Cookie"]
    phone = Who(ann.id, "Ann", answer.json["token"])
    assert [g["game_id"] for g in api.ok("GET", "/me/games", phone)["games"]] == [game["game_id"]]
    devices = api.ok("GET", "/me/devices", phone)["devices"]
    assert any(d["label"] == "Chrome on Android" and d["current"] for d in devices)
    (listed,) = api.ok("GET", "/me/passkeys", ann)["passkeys"]
    assert listed["id"] == made.json["id"] and listed["used"] > 0
    # Again: the counter went up, the server follows it.
    assert sign_in(api, sign_in_answer(api, laptop)).status_code == 200


def test_passkeys_are_listed_renamed_and_deleted(api: Api) -> None:
    ann, bob = api.player("Ann"), api.player("Bob")
    first = register(api, ann, Authenticator()).json
    second = register(api, ann, Authenticator()).json
    listed = api.ok("GET", "/me/passkeys", ann)["passkeys"]
    assert {p["id"] for p in listed} == {first["id"], second["id"]}
    renamed = api.ok("PUT", f"/me/passkeys/{first['id']}", ann, json={"label": "Work laptop"})
    assert renamed["label"] == "Work laptop"
    assert api.call("DELETE", f"/me/passkeys/{first['id']}", bob).json["code"] == "unknown_passkey"
    assert api.call("DELETE", f"/me/passkeys/{first['id']}", ann).status_code == 204
    assert [p["id"] for p in api.ok("GET", "/me/passkeys", ann)["passkeys"]] == [second["id"]]
    gone = api.call("PUT", f"/me/passkeys/{first['id']}", ann, json={"label": "x"})
    assert gone.status_code == 404 and gone.json["code"] == "unknown_passkey"
    assert api.call("GET", "/me/passkeys").status_code == 401


def test_a_deleted_or_never_registered_passkey_signs_nobody_in(api: Api) -> None:
    ann, laptop, stranger = api.player("Ann"), Authenticator(), Authenticator()
    made = register(api, ann, laptop).json
    # A credential the authenticator made for this site, never registered here.
    stranger.create({"rp": {"id": "localhost"}, "user": {"id": b64url(b"x")}, "challenge": ""}, "")
    refused = sign_in(api, sign_in_answer(api, stranger))
    assert refused.status_code == 401 and refused.json["code"] == "unknown_credential"
    api.call("DELETE", f"/me/passkeys/{made['id']}", ann)
    refused = sign_in(api, sign_in_answer(api, laptop))
    assert refused.status_code == 401 and refused.json["code"] == "unknown_credential"


def test_a_user_handle_of_another_player_is_refused(api: Api) -> None:
    ann, laptop = api.player("Ann"), Authenticator()
    register(api, ann, laptop)
    laptop.credentials[-1].user_handle = b"someone-else"
    refused = sign_in(api, sign_in_answer(api, laptop))
    assert refused.status_code == 401 and refused.json["code"] == "unknown_credential"


def test_an_answer_from_another_origin_is_refused(api: Api) -> None:
    ann, laptop = api.player("Ann"), Authenticator()
    refused = register(api, ann, laptop, origin="http://127.0.0.1:8000")
    assert refused.status_code == 400 and refused.json["code"] == "bad_passkey"
    assert api.ok("GET", "/me/passkeys", ann)["passkeys"] == []
    assert register(api, ann, laptop).status_code == 201
    refused = sign_in(api, sign_in_answer(api, laptop, origin="https://evil.example"))
    assert refused.status_code == 400 and refused.json["code"] == "bad_passkey"


def test_each_challenge_answers_once_and_only_for_what_it_was_made_for(api: Api) -> None:
    ann, bob, laptop = api.player("Ann"), api.player("Bob"), Authenticator()
    register(api, ann, laptop)
    answer = sign_in_answer(api, laptop)
    assert sign_in(api, answer).status_code == 200
    replayed = sign_in(api, answer)  # the same answer again: its challenge is used
    assert replayed.status_code == 400 and replayed.json["code"] == "passkey_challenge"
    # A challenge the server never made.
    made_up = {"rpId": "localhost", "challenge": b64url(b"0" * 32)}
    refused = sign_in(api, {"credential": laptop.get(made_up, ORIGIN)})
    assert refused.json["code"] == "passkey_challenge"
    # A registration's challenge does not sign in; Ann's registration is not Bob's.
    options = api.ok("POST", "/me/passkeys/options", ann)
    as_signin = {"rpId": "localhost", "challenge": options["challenge"]}
    assert sign_in(api, {"credential": laptop.get(as_signin, ORIGIN)}).json["code"] == (
        "passkey_challenge"
    )
    options = api.ok("POST", "/me/passkeys/options", ann)
    answer = {"credential": Authenticator().create(options, ORIGIN)}
    stolen = api.call("POST", "/me/passkeys", bob, json=answer)
    assert stolen.status_code == 400 and stolen.json["code"] == "passkey_challenge"
    # A bad answer uses its challenge up too: it cannot be tried again with a good one.
    answer = sign_in_answer(api, laptop)
    broken = {"credential": {**answer["credential"], "response": {
        **answer["credential"]["response"], "signature": b64url(b"no")}}}  # fmt: skip
    assert sign_in(api, broken).json["code"] == "bad_passkey"
    assert sign_in(api, answer).json["code"] == "passkey_challenge"


def test_an_expired_challenge_is_refused(
    api: Api, monkeypatch: pytest.MonkeyPatch, real_redis: redis.Redis
) -> None:
    ann, laptop = api.player("Ann"), Authenticator()
    register(api, ann, laptop)
    monkeypatch.setattr(passkeys_module, "CHALLENGE_SECONDS", 1)
    answer = sign_in_answer(api, laptop)
    assert 0 < real_redis.ttl(f"webauthn:{answer_challenge(answer)}") <= 1
    time.sleep(1.5)  # past its lifetime: the store has dropped it
    refused = sign_in(api, answer)
    assert refused.status_code == 400 and refused.json["code"] == "passkey_challenge"


def answer_challenge(answer: dict[str, Any]) -> str:
    return json.loads(unb64url(answer["credential"]["response"]["clientDataJSON"]))["challenge"]


def test_malformed_answers_are_clear_refusals(api: Api) -> None:
    ann = api.player("Ann")
    odd = {"clientDataJSON": "e30", "attestationObject": "oA", "authenticatorData": "AA"}
    for credential in (
        {},
        {"id": 5},
        {"id": "x", "rawId": "x", "response": {}},
        {"id": "x", "rawId": "!!", "type": "public-key", "response": odd},
        {"id": "eA", "rawId": "eA", "type": "public-key", "response": {**odd, "signature": "x"}},
    ):
        for path, who in (("/me/passkeys", ann), ("/signin/passkey", None)):
            refused = api.call("POST", path, who, json={"credential": credential})
            assert refused.status_code == 400, (path, credential, refused.json)
            assert refused.json["code"] == "bad_passkey"


@pytest.fixture
def limited_app(service: CommandService, real_redis: redis.Redis) -> Flask:
    rules = RateLimits(passkey_options="3 per hour", signin_passkey="2 per hour")
    return create_app(container_of(service, rate_limits=rules), stream_seconds=0)


def test_passkey_sign_ins_are_limited_per_address(limited_app: Flask) -> None:
    api = Api(limited_app.test_client(use_cookies=False))
    ann, laptop = api.player("Ann"), Authenticator()
    register(api, ann, laptop)
    assert sign_in(api, sign_in_answer(api, laptop)).status_code == 200
    answer = sign_in_answer(api, laptop)
    assert sign_in(api, {"credential": {}}).json["code"] == "bad_passkey"  # counts too
    third = sign_in(api, answer)
    assert third.status_code == 429 and third.json["code"] == "rate_limited"
    assert int(third.headers["Retry-After"]) >= 1
    api.ok("POST", "/signin/passkey/options")
    options = api.call("POST", "/signin/passkey/options")  # the fourth: challenges are bounded
    assert options.status_code == 429 and options.json["code"] == "rate_limited"


def test_no_passkeys_at_an_ip_address_that_is_not_loopback(
    service: CommandService, real_redis: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OMERTA_PUBLIC_URL", "http://192.0.2.7:8000")
    api = Api(create_app(container_of(service), stream_seconds=0).test_client())
    ann = api.player("Ann")
    for path, who in (("/me/passkeys/options", ann), ("/signin/passkey/options", None)):
        refused = api.call("POST", path, who)
        assert refused.status_code == 409 and refused.json["code"] == "passkeys_unavailable"


@pytest.mark.parametrize(
    ("url", "party"),
    [
        ("https://omerta.example/play", RelyingParty("omerta.example", "https://omerta.example")),
        ("http://localhost:8000", RelyingParty("localhost", "http://localhost:8000")),
        ("http://127.0.0.1:8000", RelyingParty("localhost", "http://localhost:8000")),
        ("http://[::1]:5000", RelyingParty("localhost", "http://localhost:5000")),
        ("http://192.0.2.7", None),
    ],
)
def test_the_relying_party_follows_the_public_url(url: str, party: RelyingParty | None) -> None:
    assert relying_party(url) == party
