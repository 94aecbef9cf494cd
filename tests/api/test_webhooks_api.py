"""``/me/notifications`` and ``/me/webhooks``: who may, what is refused (a problem with a code,
in English and Japanese), and the secret shown only once."""

from __future__ import annotations

import pytest

from api.app import create_app
from services.games.commands import CommandService
from tests.api.helpers import Api, container_of

pytestmark = pytest.mark.server

HOOK = "https://hooks.example.org/omerta"


def test_webhooks_are_the_callers_own_and_the_secret_is_shown_once(api: Api) -> None:
    ann, bob = api.player("Ann"), api.player("Bob")
    created = api.call("POST", "/me/webhooks", ann, json={"url": HOOK})
    assert created.status_code == 201
    hook = created.json
    assert hook["url"] == HOOK and len(hook["secret"]) >= 40
    listed = api.ok("GET", "/me/webhooks", ann)["webhooks"]
    assert listed == [
        {"id": hook["id"], "url": HOOK, "created": hook["created"], "last_failure": None}
    ]
    assert api.ok("GET", "/me/webhooks", bob)["webhooks"] == []
    assert api.call("DELETE", f"/me/webhooks/{hook['id']}", bob).json["code"] == "unknown_webhook"
    assert api.ok("DELETE", f"/me/webhooks/{hook['id']}", ann) == {"webhooks": []}
    assert api.call("DELETE", f"/me/webhooks/{hook['id']}", ann).status_code == 404


def test_a_webhook_sent_again_with_its_idempotency_key_is_the_first_one(api: Api) -> None:
    ann, bob = api.player("Ann"), api.player("Bob")
    key = {"Idempotency-Key": "web-4f1c2b9a8e7d6c5b4a3f2e1d"}
    first = api.call("POST", "/me/webhooks", ann, json={"url": HOOK}, headers=key)
    again = api.call("POST", "/me/webhooks", ann, json={"url": HOOK}, headers=key)
    assert first.status_code == again.status_code == 201 and again.json == first.json
    assert [h["id"] for h in api.ok("GET", "/me/webhooks", ann)["webhooks"]] == [first.json["id"]]
    other = api.call("POST", "/me/webhooks", ann, json={"url": HOOK + "/2"}, headers=key)
    assert other.status_code == 409 and other.json["code"] == "idempotency_key_reused"
    assert len(api.ok("GET", "/me/webhooks", ann)["webhooks"]) == 1
    theirs = api.ok("POST", "/me/webhooks", bob, json={"url": HOOK}, headers=key)  # Bob's own key
    assert theirs["id"] != first.json["id"]


@pytest.mark.parametrize(
    "url", ["ftp://hooks.example.org/", "http://127.0.0.1:9/", "http://localhost/", "nothing"]
)
def test_a_bad_or_private_url_is_refused(api: Api, url: str) -> None:
    ann = api.player("Ann")
    refused = api.call("POST", "/me/webhooks", ann, json={"url": url})
    assert refused.status_code == 400 and refused.json["code"] == "bad_webhook_url"
    japanese = api.call(
        "POST", "/me/webhooks", ann, json={"url": url}, headers={"Accept-Language": "ja"}
    )
    assert japanese.json["code"] == "bad_webhook_url" and "Webhook" in japanese.json["detail"]


def test_loopback_is_allowed_when_the_operator_says_so(service: CommandService) -> None:
    app = create_app(container_of(service, webhooks_allow_private=True))
    api = Api(app.test_client(use_cookies=False))
    ann = api.player("Ann")
    assert (
        api.call("POST", "/me/webhooks", ann, json={"url": "http://127.0.0.1:9/"}).status_code
        == 201
    )


def test_at_most_five_webhooks(api: Api) -> None:
    ann = api.player("Ann")
    for i in range(5):
        api.ok("POST", "/me/webhooks", ann, json={"url": f"{HOOK}/{i}"})
    refused = api.call("POST", "/me/webhooks", ann, json={"url": HOOK})
    assert refused.status_code == 409 and refused.json["code"] == "too_many_webhooks"
    assert refused.json["params"] == {"max": 5}


def test_preferences_are_read_and_changed_pair_by_pair(api: Api) -> None:
    ann = api.player("Ann")
    every = {"your_turn": True, "game_ended": True, "player_joined": True, "time_low": True}
    assert api.ok("GET", "/me/notifications", ann) == {
        "webhook": every,
        "email": every,
        "push": every,
    }
    changed = api.ok("PUT", "/me/notifications", ann, json={"webhook": {"game_ended": False}})
    assert changed["webhook"] == {**every, "game_ended": False} and changed["email"] == every
    assert api.ok("GET", "/me/notifications", ann) == changed
    for bad in ({"sms": {}}, {"webhook": {"your_move": True}}, {"webhook": {"your_turn": 1}}):
        refused = api.call("PUT", "/me/notifications", ann, json=bad)
        assert refused.status_code == 400 and refused.json["code"] == "invalid_body"


def test_nothing_without_a_token(api: Api) -> None:
    for method, path in (
        ("GET", "/me/notifications"),
        ("PUT", "/me/notifications"),
        ("GET", "/me/webhooks"),
        ("POST", "/me/webhooks"),
        ("DELETE", "/me/webhooks/wh_1"),
    ):
        assert (
            api.call(method, path, json={} if method in ("PUT", "POST") else None).status_code
            == 401
        )
