"""Time controls over HTTP: chosen at creation, validated (nothing created when
refused), shown in the game's answer and the lists with each owing seat's deadline; a vacation
pushes its player's deadlines back and its early end brings them forward."""

from __future__ import annotations

import time
from typing import Any

import pytest
import redis

from tests.api.helpers import Api, Who

HOUR = 3600


def _seated_game(api: Api, **spec: Any) -> tuple[Who, Who, str]:
    ann, bob = api.player("Ann"), api.player("Bob")
    made = api.new_game(ann, game="famiglia", seats=2, **spec)
    api.join(bob, made["game_id"], made["invites"][0]["code"])
    return ann, bob, made["game_id"]


def test_a_per_move_clock_gives_the_owing_seat_a_deadline(api: Api) -> None:
    before = int(time.time() * 1000)
    ann, _, game_id = _seated_game(api, clock={"type": "per_move", "seconds": 24 * HOUR})
    game = api.ok("GET", f"/games/{game_id}", ann)
    assert game["clock"] == {"type": "per_move", "seconds": 24 * HOUR}
    assert game["on_timeout"] == {"policy": "takeover", "level": "greedy"}
    owing = {c["seat"]: c for c in game["clocks"] if c["deadline"] is not None}
    assert sorted(owing) == game["to_act"]
    (clock,) = owing.values()
    assert clock["bank"] == 24 * HOUR * 1000
    assert clock["deadline"] == clock["since"] + 24 * HOUR * 1000 and clock["since"] >= before
    assert clock["deadline_iso"].endswith("+00:00")
    rows = api.ok("GET", "/me/games", ann)["games"]
    assert rows[0]["clock"] == game["clock"]
    assert rows[0]["deadlines"] == {str(clock["seat"]): clock["deadline"]}


def test_a_game_without_a_clock_has_none(api: Api) -> None:
    ann, _, game_id = _seated_game(api)
    game = api.ok("GET", f"/games/{game_id}", ann)
    assert game["clock"] is None and game["clocks"] == []


def test_no_clock_runs_while_a_seat_is_open(api: Api) -> None:
    ann = api.player("Ann")
    made = api.new_game(ann, game="famiglia", seats=2, clock={"type": "per_move", "seconds": 60})
    game = api.ok("GET", f"/games/{made['game_id']}", ann)
    assert [c["deadline"] for c in game["clocks"]] == [None, None]


MINUTE = {"type": "per_move", "seconds": 60}


@pytest.mark.parametrize(
    "spec, code",
    [
        ({"clock": {"type": "per_move", "seconds": 0}}, "bad_clock"),
        ({"clock": {"type": "per_move", "seconds": 1}}, "bad_clock"),
        ({"clock": {"type": "bank", "initial": 59}}, "bad_clock"),
        ({"clock": {"type": "per_move", "seconds": 10**8}}, "bad_clock"),
        ({"clock": {"type": "bank", "initial": 100, "cap": 50}}, "bad_clock"),
        ({"clock": {"type": "sundial"}}, "invalid_body"),
        ({"clock": MINUTE, "on_timeout": {"policy": "x"}}, "invalid_body"),
        ({"clock": MINUTE, "on_timeout": {"level": "god"}}, "bad_on_timeout"),
    ],
)  # fmt: skip
def test_bad_clocks_are_refused_and_create_nothing(
    api: Api, real_redis: redis.Redis, spec: dict[str, Any], code: str
) -> None:
    ann = api.player("Ann")
    refused = api.call("POST", "/games", ann, json={"game": "famiglia", "seats": 2, **spec})
    assert refused.status_code == 400 and refused.json["code"] == code
    assert api.ok("GET", "/me/games", ann)["games"] == []
    assert not list(real_redis.scan_iter("game:*"))
    ja = api.call(
        "POST", "/games", ann, json={"game": "famiglia", "seats": 2, **spec},
        headers={"Accept-Language": "ja"},
    )  # fmt: skip
    assert ja.json["detail"] != refused.json["detail"]


def _deadline(api: Api, who: Who, game_id: str) -> int:
    game = api.ok("GET", f"/games/{game_id}", who)
    (deadline,) = [c["deadline"] for c in game["clocks"] if c["deadline"] is not None]
    return deadline


def test_a_vacation_moves_the_deadlines_of_its_player(api: Api) -> None:
    ann, bob, game_id = _seated_game(api, clock={"type": "per_move", "seconds": HOUR})
    game = api.ok("GET", f"/games/{game_id}", ann)
    owner = ann if game["to_act"] == [game["your_seat"]] else bob
    first = _deadline(api, owner, game_id)
    state = api.ok("POST", "/me/vacation", owner, json={"days": 2})
    assert state["days_left"] == 21 - 2 and state["current"] is not None
    pushed = _deadline(api, owner, game_id)
    # The deadline waits for the vacation's end, then what was left of the hour runs.
    assert pushed == first + state["current"]["end"] - state["current"]["start"]
    shown = api.ok("GET", f"/games/{game_id}", owner)["clocks"]
    assert any(c["paused"] for c in shown)
    again = api.call("POST", "/me/vacation", owner, json={"days": 1})
    assert again.status_code == 409 and again.json["code"] == "vacation_refused"
    ended = api.ok("DELETE", "/me/vacation", owner)
    assert ended["current"] is None and ended["days_left"] == 21 - 1  # one day begun
    ((start, end),) = ended["periods"]
    assert _deadline(api, owner, game_id) == first + end - start


def test_a_vacation_past_the_days_left_is_refused(api: Api) -> None:
    ann = api.player("Ann")
    refused = api.call("POST", "/me/vacation", ann, json={"days": 22})
    assert refused.status_code == 409 and refused.json["params"]["left"] == 21
    bad = api.call("POST", "/me/vacation", ann, json={"until": "soon"})
    assert bad.status_code == 400 and bad.json["code"] == "bad_vacation"
    neither = api.call("POST", "/me/vacation", ann, json={})
    assert neither.status_code == 400 and neither.json["code"] == "bad_vacation"
