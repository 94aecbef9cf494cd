"""Every bad input gets its status and stable code as RFC 9457 problem+json, and changes
nothing: the game's stream, command records and seats are byte for byte as before."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
import redis
from werkzeug.test import TestResponse

from services.eventstore import keys
from services.games.seats import seats_key
from tests.api.helpers import Api, Who
from tests.feeds import feed_length

pytestmark = pytest.mark.server


@dataclass(frozen=True)
class Table:
    game_id: str
    mover: Who  # the seat to act
    mover_seat: int
    other: Who  # the seat not to act
    spectator: Who
    version: int
    move: dict[str, Any]  # a legal command of the mover


@pytest.fixture
def table(api: Api) -> Table:
    ann, bob, cid = api.player("Ann"), api.player("Bob"), api.player("Cid")
    created = api.new_game(ann, game="famiglia", seats=2)
    game_id = created["game_id"]
    api.join(bob, game_id, created["invites"][0]["code"])
    state = api.ok("GET", f"/games/{game_id}", ann)
    mover, other = (ann, bob) if state["to_act"] == [0] else (bob, ann)
    move = api.ok("GET", f"/games/{game_id}/legal", mover)["commands"][-1]
    return Table(game_id, mover, state["to_act"][0], other, cid, state["version"], move)


def _snapshot(client: redis.Redis, game_id: str) -> tuple[Any, ...]:
    return (
        client.xrange(keys.events_key(game_id)),
        client.hgetall(keys.commands_key(game_id)),
        client.hgetall(seats_key(game_id)),
        feed_length(client),
    )


def _cmd(t: Table, who: Who, body: Any = None, raw: bytes | None = None, **headers: str):
    def call(api: Api) -> TestResponse:
        path = f"/games/{t.game_id}/commands"
        return api.call("POST", path, who, json=body, data=raw, headers=headers)

    return call


Case = Callable[[Table], Callable[[Api], TestResponse]]

CASES: dict[str, tuple[int, str, Case]] = {
    "malformed json": (400, "malformed_json", lambda t: _cmd(t, t.mover, raw=b'{"command": ')),
    "not an object": (400, "invalid_body", lambda t: _cmd(t, t.mover, raw=b"[1, 2]")),
    "wrong type": (
        400,
        "invalid_body",
        lambda t: _cmd(t, t.mover, {"command": t.move, "expected_version": "three"}),
    ),
    "unknown field": (
        400,
        "invalid_body",
        lambda t: _cmd(t, t.mover, {"command": t.move, "sneaky": 1}),
    ),
    "unknown command": (
        400,
        "unknown_command",
        lambda t: _cmd(t, t.mover, {"command": {"type": "cheat"}}),
    ),
    "wrong game's command": (
        400,
        "wrong_game_command",
        lambda t: _cmd(t, t.mover, {"command": {"type": "hire", "gangster": 1}}),
    ),
    "bad command fields": (
        400,
        "bad_command",
        lambda t: _cmd(t, t.mover, {"command": {"type": "refresh", "card": 17}}),
    ),
    "no command type": (400, "bad_command", lambda t: _cmd(t, t.mover, {"command": {}})),
    "oversized body": (
        413,
        "body_too_large",
        lambda t: _cmd(t, t.mover, raw=b'{"command": "' + b"x" * 70_000 + b'"}'),
    ),
    "missing token": (401, "missing_token", lambda t: _cmd(t, None, {"command": t.move})),
    "bad token": (
        401,
        "bad_token",
        lambda t: _cmd(t, Who("x", "x", "not-a-token"), {"command": t.move}),
    ),
    "spectator moves": (403, "not_seated", lambda t: _cmd(t, t.spectator, {"command": t.move})),
    "another's seat": (
        403,
        "not_your_seat",
        lambda t: _cmd(t, t.other, {"command": t.move, "seat": t.mover_seat}),
    ),
    "unknown game": (
        404,
        "unknown_game",
        lambda t: lambda api: api.call("POST", "/games/nope/commands", t.mover, json={}),
    ),
    "stale version": (
        409,
        "conflict",
        lambda t: _cmd(t, t.mover, {"command": t.move, "expected_version": t.version - 1}),
    ),
    "rule violation": (422, "not_your_turn", lambda t: _cmd(t, t.other, {"command": t.move})),
    "bad idempotency key": (
        400,
        "bad_command_id",
        lambda t: _cmd(t, t.mover, {"command": t.move}, **{"Idempotency-Key": "k" * 200}),
    ),
    "bad invite": (
        403,
        "bad_invite",
        lambda t: (
            lambda api: api.call(
                "POST", f"/games/{t.game_id}/join", t.spectator, json={"invite": "guess"}
            )
        ),
    ),
    "join a private game without invite": (
        403,
        "bad_invite",
        lambda t: lambda api: api.call("POST", f"/games/{t.game_id}/join", t.spectator, json={}),
    ),
    "join twice": (
        409,
        "no_open_seat",
        lambda t: lambda api: api.call("POST", f"/games/{t.game_id}/join", t.other, json={}),
    ),
    "legal for a spectator": (
        403,
        "not_seated",
        lambda t: lambda api: api.call("GET", f"/games/{t.game_id}/legal", t.spectator),
    ),
    "replay version 0": (
        404,
        "unknown_version",
        lambda t: lambda api: api.call("GET", f"/games/{t.game_id}/replay/0", t.mover),
    ),
    "replay beyond the end": (
        404,
        "unknown_version",
        lambda t: lambda api: api.call("GET", f"/games/{t.game_id}/replay/999", t.mover),
    ),
    "history after=abc": (
        400,
        "bad_parameter",
        lambda t: lambda api: api.call("GET", f"/games/{t.game_id}/history?after=abc"),
    ),
    "bad Last-Event-ID": (
        400,
        "bad_parameter",
        lambda t: (
            lambda api: api.call(
                "GET", f"/games/{t.game_id}/events", headers={"Last-Event-ID": "x"}
            )
        ),
    ),
    "view of an unknown game": (
        404,
        "unknown_game",
        lambda t: lambda api: api.call("GET", "/games/nope/view", t.mover),
    ),
    "unknown path": (404, "not_found", lambda t: lambda api: api.call("GET", "/nowhere")),
    "wrong method": (
        405,
        "method_not_allowed",
        lambda t: lambda api: api.call("DELETE", f"/games/{t.game_id}", t.mover),
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_refused_with_its_code_and_nothing_changes(
    case: str, api: Api, table: Table, real_redis: redis.Redis
) -> None:
    status, code, make = CASES[case]
    before = _snapshot(real_redis, table.game_id)
    response = make(table)(api)
    assert response.status_code == status, response.data[:300]
    assert response.mimetype == "application/problem+json"
    problem = response.json
    assert problem["status"] == status and problem["code"] == code
    assert problem["type"].endswith(code) and problem["title"] and problem["detail"]
    assert _snapshot(real_redis, table.game_id) == before
    # The refused move is still open: the mover can play it now.
    assert api.play(table.mover, table.game_id, table.move, table.version)["version"] > 0


def test_wrong_method_names_the_allowed_ones(api: Api, table: Table) -> None:
    response = api.call("DELETE", f"/games/{table.game_id}/commands", table.mover)
    assert response.status_code == 405 and "POST" in response.headers["Allow"]


def test_rule_violation_speaks_to_the_player(api: Api, table: Table) -> None:
    response = _cmd(table, table.other, {"command": table.move})(api)
    assert response.json["detail"] == "It is the other player's turn"


def test_conflict_tells_the_version_now(api: Api, table: Table) -> None:
    api.play(table.mover, table.game_id, table.move, table.version)
    response = _cmd(table, table.other, {"command": table.move, "expected_version": 1})(api)
    now = api.ok("GET", f"/games/{table.game_id}")["version"]
    assert (response.status_code, response.json["version"]) == (409, now)


@pytest.mark.parametrize(
    ("spec", "code"),
    [
        ({"game": "chess", "seats": 2}, "unknown_game_name"),
        ({"game": "famiglia", "seats": 3}, "bad_seats"),
        ({"game": "famiglia", "seats": 2, "ai": {"0": 1, "1": 1}}, "bad_seats"),
        ({"game": "famiglia", "seats": 2, "seat": 5}, "bad_seats"),
        ({"game": "famiglia", "seats": 2, "ai": {"1": "godlike"}}, "bad_ai_level"),
        ({"game": "famiglia", "seats": 2, "ai": {"7": 1}}, "bad_ai"),
        ({"game": "famiglia", "seats": 2, "options": {"colour": "red"}}, "bad_options"),
        ({"game": "famiglia", "seats": "two"}, "invalid_body"),
        ({"game": "famiglia"}, "invalid_body"),
    ],
)
def test_bad_games_are_not_created(
    api: Api, spec: dict[str, Any], code: str, real_redis: redis.Redis
) -> None:
    ann = api.player("Ann")
    response = api.call("POST", "/games", ann, json=spec)
    assert (response.status_code, response.json["code"]) == (400, code)
    assert list(real_redis.scan_iter("game:*")) == []


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"name": ""}, "invalid_body"),
        ({"name": 5}, "invalid_body"),
        ({}, "invalid_body"),
        ({"name": "a\u0007b"}, "bad_name"),
        ({"name": "x" * 41}, "invalid_body"),
    ],
)
def test_bad_player_names(api: Api, body: dict[str, Any], code: str) -> None:
    response = api.call("POST", "/players", json=body)
    assert (response.status_code, response.json["code"]) == (400, code)
