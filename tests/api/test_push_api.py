"""Browser push's API: ``GET /push/key``, ``POST/GET/DELETE /me/push``: the caller's
own subscriptions, what is refused (a problem with a code, in English and Japanese), the cap;
and the VAPID key made once, private to the service's user, even by processes starting
together."""

from __future__ import annotations

import base64
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from py_vapid import Vapid

from api.app import create_app
from services.games.commands import CommandService
from services.notify import push
from tests.api.helpers import Api, container_of

pytestmark = pytest.mark.server

ENDPOINT = "https://push.example.org/send/ann-phone"


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def browser_keys() -> dict[str, str]:
    """What a browser makes for a subscription: a P-256 key pair's public point and a secret."""
    point = (
        ec.generate_private_key(ec.SECP256R1())
        .public_key()
        .public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    )
    return {"p256dh": b64url(point), "auth": b64url(os.urandom(16))}


def subscription(endpoint: str = ENDPOINT, **keys: str) -> dict[str, object]:
    return {"endpoint": endpoint, "expirationTime": None, "keys": {**browser_keys(), **keys}}


@pytest.fixture(autouse=True)
def var(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("OMERTA_VAR", str(tmp_path / "var"))
    return tmp_path / "var"


def test_the_key_is_made_once_kept_private_and_served(api: Api, var: Path) -> None:
    key = api.ok("GET", "/push/key")["key"]
    point = base64.urlsafe_b64decode(key + "=" * (-len(key) % 4))
    ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)  # a P-256 point
    path = var / push.KEY_FILE
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert api.ok("GET", "/push/key")["key"] == key
    assert push.public_key(Vapid.from_pem(path.read_bytes())) == key


def test_processes_starting_together_make_one_key(tmp_path: Path) -> None:
    path, go = tmp_path / "var" / push.KEY_FILE, tmp_path / "go"
    script = (
        "import sys, time, pathlib\n"
        "from services.notify import push\n"
        "go = pathlib.Path(sys.argv[2])\n"
        "while not go.exists(): time.sleep(0.001)\n"
        "sys.stdout.buffer.write(push.load_or_create_key(pathlib.Path(sys.argv[1])))\n"
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", script, str(path), str(go)], stdout=subprocess.PIPE)
        for _ in range(6)
    ]
    time.sleep(1.0)  # all of them started and waiting
    go.touch()
    keys = {proc.communicate(timeout=60)[0] for proc in procs}
    assert [p.returncode for p in procs] == [0] * 6
    assert keys == {path.read_bytes()}
    assert sorted(p.name for p in path.parent.iterdir()) == [push.KEY_FILE]  # no temporary left


def test_subscriptions_are_the_callers_own(api: Api) -> None:
    ann, bob = api.player("Ann"), api.player("Bob")
    made = api.call("POST", "/me/push", ann, json=subscription())
    assert made.status_code == 201
    sub = made.json
    assert sub["host"] == "push.example.org" and sub["lang"] == "en"
    assert api.ok("GET", "/me/push", ann) == {"subscriptions": [sub]}
    assert api.ok("GET", "/me/push", bob) == {"subscriptions": []}
    # The same browser again (new keys, a Japanese page): its record replaced, not a second one.
    again = api.call(
        "POST", "/me/push", ann, json=subscription(), headers={"Accept-Language": "ja"}
    )
    assert again.json["id"] == sub["id"] and again.json["lang"] == "ja"
    assert len(api.ok("GET", "/me/push", ann)["subscriptions"]) == 1
    gone = {"endpoint": ENDPOINT}
    refused = api.call("DELETE", "/me/push", bob, json=gone)
    assert refused.status_code == 404 and refused.json["code"] == "unknown_push_subscription"
    assert api.ok("DELETE", "/me/push", ann, json=gone) == {"subscriptions": []}
    assert api.call("DELETE", "/me/push", ann, json=gone).status_code == 404
    assert api.call("POST", "/me/push", json=subscription()).status_code == 401


@pytest.mark.parametrize(
    "endpoint",
    [
        "http://push.example.org/send/x",  # not https
        "https://127.0.0.1/send/x",
        "https://10.0.0.1/send/x",
        "https://localhost/send/x",
        "https://user:pw@push.example.org/x",
        "ftp://push.example.org/x",
        "nothing",
    ],
)
def test_a_bad_endpoint_is_refused(api: Api, endpoint: str) -> None:
    ann = api.player("Ann")
    refused = api.call("POST", "/me/push", ann, json=subscription(endpoint))
    assert refused.status_code == 400 and refused.json["code"] == "bad_push_endpoint"
    japanese = api.call(
        "POST", "/me/push", ann, json=subscription(endpoint), headers={"Accept-Language": "ja"}
    )
    assert "エンドポイント" in japanese.json["detail"]
    assert api.ok("GET", "/me/push", ann) == {"subscriptions": []}


def test_http_to_loopback_only_when_the_operator_allows_private_endpoints(
    api: Api, service: CommandService
) -> None:
    ann = api.player("Ann")
    local = "http://127.0.0.1:9/push/x"
    assert api.call("POST", "/me/push", ann, json=subscription(local)).status_code == 400
    allowed = create_app(container_of(service, push_allow_private=True))
    api = Api(allowed.test_client(use_cookies=False))
    assert api.call("POST", "/me/push", ann, json=subscription(local)).status_code == 201
    # Plain http is for a local push service only, never across a network.
    for url in ("http://10.0.0.1/x", "http://push.example.org/x"):
        refused = api.call("POST", "/me/push", ann, json=subscription(url))
        assert refused.json["code"] == "bad_push_endpoint", url


@pytest.mark.parametrize(
    "keys",
    [
        {"p256dh": b64url(b"\x04" + os.urandom(64))},  # 65 bytes, but no point on the curve
        {"p256dh": b64url(os.urandom(33))},
        {"p256dh": "not base64url!"},
        {"auth": b64url(os.urandom(15))},
        {"auth": b64url(os.urandom(32))},
        {"auth": "***"},
    ],
)
def test_bad_keys_are_refused(api: Api, keys: dict[str, str]) -> None:
    ann = api.player("Ann")
    refused = api.call("POST", "/me/push", ann, json=subscription(**keys))
    assert refused.status_code == 400 and refused.json["code"] == "bad_push_keys"
    japanese = api.call(
        "POST", "/me/push", ann, json=subscription(**keys), headers={"Accept-Language": "ja"}
    )
    assert "鍵" in japanese.json["detail"]


def test_a_body_that_is_no_subscription_is_refused(api: Api) -> None:
    ann = api.player("Ann")
    for sent in ({"endpoint": ENDPOINT}, {**subscription(), "extra": 1}, {"keys": {}}):
        assert api.call("POST", "/me/push", ann, json=sent).json["code"] == "invalid_body"


def test_at_most_ten_browsers(api: Api) -> None:
    ann = api.player("Ann")
    for i in range(push.MAX_SUBSCRIPTIONS):
        api.ok("POST", "/me/push", ann, json=subscription(f"{ENDPOINT}/{i}"))
    refused = api.call("POST", "/me/push", ann, json=subscription(f"{ENDPOINT}/more"))
    assert refused.status_code == 409 and refused.json["code"] == "too_many_push_subscriptions"
    assert refused.json["params"] == {"max": push.MAX_SUBSCRIPTIONS}
    japanese = api.call(
        "POST",
        "/me/push",
        ann,
        json=subscription(f"{ENDPOINT}/more"),
        headers={"Accept-Language": "ja"},
    )
    assert "10 台" in japanese.json["detail"]
    # A browser already subscribed may subscribe again (its keys renewed) at the cap.
    assert api.call("POST", "/me/push", ann, json=subscription(f"{ENDPOINT}/0")).status_code == 201
