"""Hostile bodies and parameters: numbers beyond 64 bits, JSON
nested a thousand levels deep, oddly typed presets, a command sent as a JSON string, an empty
Idempotency-Key, and language links that try to leave the site.
Each gets a 4xx problem with its code and changes nothing. Deep, huge and oddly typed values in
every field of every operation with a JSON body: tests/api/test_schemathesis.py."""

from __future__ import annotations

from typing import Any

import pytest
import redis
from flask import Flask

from api.web import register
from services.eventstore import keys
from services.games.seats import seats_key
from tests.api.helpers import Api, Who

pytestmark = pytest.mark.server

HUGE = 10**30
DEEP = 1000


def deep(levels: int) -> bytes:
    return b"[" * levels + b"]" * levels


class Table:
    def __init__(self, api: Api, game: str) -> None:
        self.ann, self.bob = api.player("Ann"), api.player("Bob")
        created = api.new_game(self.ann, game=game, seats=2)
        self.game_id = created["game_id"]
        api.join(self.bob, self.game_id, created["invites"][0]["code"])
        state = api.ok("GET", f"/games/{self.game_id}")
        self.mover = self.ann if state["to_act"] == [0] else self.bob
        self.move = api.ok("GET", f"/games/{self.game_id}/legal", self.mover)["commands"][-1]

    def snapshot(self, client: redis.Redis) -> tuple[Any, ...]:
        return (
            client.xrange(keys.events_key(self.game_id)),
            client.hgetall(keys.commands_key(self.game_id)),
            client.hgetall(seats_key(self.game_id)),
        )


def refused(response: Any, status: int, code: str) -> None:
    assert response.status_code == status, response.data[:300]
    assert response.mimetype == "application/problem+json"
    assert response.json["code"] == code and response.json["detail"]


def post(api: Api, path: str, who: Who | None, raw: bytes, **headers: str) -> Any:
    headers = {"Content-Type": "application/json", **headers}
    return api.call("POST", path, who, data=raw, headers=headers)


COMMAND_BODIES = {
    "huge gangster": b'{"command": {"type": "hire", "gangster": %d}}' % HUGE,
    "huge negative gangster": b'{"command": {"type": "commit", "gangster": -%d}}' % HUGE,
    "huge card": b'{"command": {"type": "refresh", "card": %d}}' % HUGE,
    "huge expected version": b'{"command": {"type": "pass"}, "expected_version": %d}' % HUGE,
    "huge seat": b'{"command": {"type": "pass"}, "seat": %d}' % HUGE,
    "deep command": b'{"command": ' + deep(DEEP) + b"}",
    "deep field": b'{"command": {"type": "hire", "gangster": ' + deep(DEEP) + b"}}",
    "deep object": b'{"command": ' + b'{"a":' * DEEP + b"1" + b"}" * DEEP + b"}",
}


@pytest.mark.parametrize("game", ["famiglia", "gangsta"])
@pytest.mark.parametrize("case", sorted(COMMAND_BODIES))
def test_huge_and_deep_commands_are_refused(
    api: Api, real_redis: redis.Redis, game: str, case: str
) -> None:
    t = Table(api, game)
    before = t.snapshot(real_redis)
    response = post(api, f"/games/{t.game_id}/commands", t.mover, COMMAND_BODIES[case])
    assert 400 <= response.status_code < 500, response.data[:300]
    assert response.mimetype == "application/problem+json" and response.json["code"]
    assert t.snapshot(real_redis) == before
    assert api.play(t.mover, t.game_id, t.move)["version"] > 0


@pytest.mark.parametrize("game", ["famiglia", "gangsta"])
@pytest.mark.parametrize(
    "options",
    [
        b'{"preset": ["published"]}',
        b'{"preset": {"published": true}}',
        b'{"preset": %d}' % HUGE,
        b'{"x": ' + deep(DEEP) + b"}",
        b'{"preset": ' + deep(DEEP) + b"}",
        b'{"min_pass_income": %d}' % HUGE,
    ],
)
def test_bad_options_are_refused(
    api: Api, real_redis: redis.Redis, game: str, options: bytes
) -> None:
    ann = api.player("Ann")
    raw = b'{"game": "%s", "seats": 2, "options": %s}' % (game.encode(), options)
    response = post(api, "/games", ann, raw)
    assert response.status_code == 400, response.data[:300]
    assert response.json["code"] in {"bad_options", "invalid_body"}
    assert list(real_redis.scan_iter("game:*")) == []


@pytest.mark.parametrize("command", ['"pass"', '"{\\"type\\": \\"pass\\"}"', "17", "[]", "null"])
def test_a_command_that_is_not_an_object_is_refused(
    api: Api, real_redis: redis.Redis, command: str
) -> None:
    t = Table(api, "famiglia")
    before = t.snapshot(real_redis)
    raw = b'{"command": %s}' % command.encode()
    refused(post(api, f"/games/{t.game_id}/commands", t.mover, raw), 400, "bad_command")
    assert t.snapshot(real_redis) == before


def test_an_empty_idempotency_key_is_refused(api: Api, real_redis: redis.Redis) -> None:
    t = Table(api, "famiglia")
    before = t.snapshot(real_redis)
    response = api.call(
        "POST",
        f"/games/{t.game_id}/commands",
        t.mover,
        json={"command": t.move},
        headers={"Idempotency-Key": ""},
    )
    refused(response, 400, "bad_command_id")
    assert t.snapshot(real_redis) == before


@pytest.fixture
def pages(app: Flask) -> Api:
    register(app)
    return Api(app.test_client(use_cookies=False))


@pytest.mark.parametrize(
    "target",
    [
        "/%09/evil.example/",
        "/%0A/evil.example/",
        "/%0D%0A/evil.example/",
        "/%5Cevil.example/",
        "%5C%5Cevil.example/",
        "//evil.example/",
        "/%20/evil.example/",
        "https://evil.example/",
        "https:evil.example",
        "/\t/evil.example/",
        "%2F%2Fevil.example",
        "/a%0Ab",
        "/%00/evil.example",
        "evil.example",
    ],
)
def test_the_language_link_stays_on_the_site(pages: Api, target: str) -> None:
    response = pages.call("GET", f"/language/ja?next={target}")
    assert response.status_code == 302
    assert response.headers["Location"] == "/"
    assert "omerta_lang=ja" in response.headers["Set-Cookie"]


@pytest.mark.parametrize("target", ["/play/abc?x=1", "/games-open", "/rules/gangsta#options"])
def test_the_language_link_goes_back_to_our_pages(pages: Api, target: str) -> None:
    from urllib.parse import quote

    response = pages.call("GET", f"/language/en?next={quote(target)}")
    assert (response.status_code, response.headers["Location"]) == (302, target)
