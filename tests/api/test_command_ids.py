"""Command ids (``Idempotency-Key``) over HTTP: scoped by seat, the AI seats' prefix refused from
clients, and another seat's ids kept out of the history a seat or a spectator reads."""

from __future__ import annotations

import random

import pytest

from services.games.commandinput import ai_command_id
from tests.api.helpers import Api, Who

pytestmark = pytest.mark.server


def two_player_game(api: Api) -> tuple[str, Who, Who]:
    ann, bob = api.player("Ann"), api.player("Bob")
    created = api.new_game(ann, game="famiglia", seats=2)
    api.join(bob, created["game_id"], created["invites"][0]["code"])
    return created["game_id"], ann, bob


def send(api: Api, who: Who, game_id: str, key: str, rng: random.Random) -> int:
    legal = api.ok("GET", f"/games/{game_id}/legal", who)
    moves = [c for c in legal["commands"] if c["type"] != "pass"] or legal["commands"]
    body = {"command": rng.choice(moves), "expected_version": legal["version"]}
    sent = api.call(
        "POST", f"/games/{game_id}/commands", who, json=body, headers={"Idempotency-Key": key}
    )
    return sent.status_code


def to_act(api: Api, game_id: str, seats: dict[int, Who]) -> Who:
    (seat,) = api.ok("GET", f"/games/{game_id}")["to_act"]
    return seats[seat]


def test_two_seats_may_use_the_same_key(api: Api) -> None:
    game_id, ann, bob = two_player_game(api)
    seats, rng = {0: ann, 1: bob}, random.Random(1)
    used = set()
    while len(used) < 2:
        who = to_act(api, game_id, seats)
        key = "same" if who.id not in used else f"{who.id}-{len(used)}-{rng.random()}"
        assert send(api, who, game_id, key, rng) == 200
        used.add(who.id)


@pytest.mark.parametrize("key", [ai_command_id(7, 1), "ai-", "ai-anything"])
def test_a_client_may_not_send_the_ai_seats_keys(api: Api, key: str) -> None:
    game_id, ann, bob = two_player_game(api)
    who = to_act(api, game_id, {0: ann, 1: bob})
    version = api.ok("GET", f"/games/{game_id}")["version"]
    legal = api.ok("GET", f"/games/{game_id}/legal", who)
    body = {"command": legal["commands"][0], "expected_version": version}
    refused = api.call(
        "POST", f"/games/{game_id}/commands", who, json=body, headers={"Idempotency-Key": key}
    )
    assert refused.status_code == 400, refused.json
    assert refused.json["code"] == "reserved_command_id"
    assert refused.json["params"] == {"prefix": "ai-"}
    assert api.ok("GET", f"/games/{game_id}")["version"] == version  # nothing stored
    ja = api.call(
        "POST",
        f"/games/{game_id}/commands",
        who,
        json=body,
        headers={"Idempotency-Key": key, "Accept-Language": "ja"},
    )
    assert ja.json["code"] == "reserved_command_id" and ja.json["detail"] != refused.json["detail"]


def test_history_shows_a_seat_only_its_own_keys(api: Api) -> None:
    game_id, ann, bob = two_player_game(api)
    seats, rng = {0: ann, 1: bob}, random.Random(2)
    keys = {0: set(), 1: set()}
    for n in range(8):
        who = to_act(api, game_id, seats)
        seat = 0 if who is ann else 1
        key = f"secret-{seat}-{n}"
        assert send(api, who, game_id, key, rng) == 200
        keys[seat].add(key)
    assert keys[0] and keys[1]
    for seat, who in [(0, ann), (1, bob), (None, None)]:
        for after in (0, 3):
            events = api.ok("GET", f"/games/{game_id}/history?after={after}", who)["events"]
            others = [e for e in events if e["actor"] not in (seat, None)]
            assert others and all(e["command_id"].startswith("#") for e in others)
            if after == 0 and seat is not None:
                assert {e["command_id"] for e in events if e["actor"] == seat} == keys[seat]
                # a placeholder per command: the other seat's commands stay told apart
                assert len({e["command_id"] for e in others}) == len(keys[1 - seat])
    live = api.call("GET", f"/games/{game_id}/events?after=0", bob)
    assert not any(key in live.get_data(as_text=True) for key in keys[0])
