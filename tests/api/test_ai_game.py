"""End to end with real workers: a player plays a 3-seat Gangsta! game against two AI seats
to the end over HTTP; the AI seats move through RQ jobs (projection, then ai_move) run by an
``omerta worker`` process."""

from __future__ import annotations

import random
import subprocess
import time
from typing import Any

import pytest

from tests.api.helpers import Api, Who

pytestmark = pytest.mark.server


def my_turn_or_over(api: Api, me: Who, game_id: str, timeout: float = 20.0) -> dict[str, Any]:
    """Wait for the AI seats (the worker's jobs) until seat 0 owes a decision or it is over."""
    deadline = time.monotonic() + timeout
    while True:
        table = api.ok("GET", f"/games/{game_id}", me)
        if table["result"] is not None or 0 in table["to_act"]:
            return table
        assert time.monotonic() < deadline, f"the AI seats {table['to_act']} never moved"
        time.sleep(0.005)


def move(api: Api, me: Who, game_id: str, rng: random.Random) -> bool:
    """One random legal move as a client plays it; False if an AI seat deciding at the same time
    (a snitch's discards) appended first: 409 ``conflict``, nothing stored, look again."""
    legal = api.ok("GET", f"/games/{game_id}/legal", me)
    body = {"command": rng.choice(legal["commands"]), "expected_version": legal["version"]}
    sent = api.call("POST", f"/games/{game_id}/commands", me, json=body)
    if sent.status_code == 409 and sent.json["code"] == "conflict":
        assert sent.json["version"] > legal["version"]
        return False
    assert sent.status_code == 200, sent.json
    return True


def test_a_player_plays_gangsta_against_two_ai_seats(
    live_api: Api, worker_process: subprocess.Popen
) -> None:
    api = live_api
    me = api.player("Ann")
    created = api.new_game(me, game="gangsta", seats=3, ai={"1": "greedy", "2": 0})
    game_id = created["game_id"]
    assert (created["seat"], created["invites"]) == (0, [])
    rng = random.Random(5)
    mine = 0
    while (table := my_turn_or_over(api, me, game_id))["result"] is None:
        mine += move(api, me, game_id, rng)
        assert mine < 2000, "the game does not end"
    assert [s["kind"] for s in table["seats"]] == ["player", "ai", "ai"]
    assert len(table["result"]["scores"]) == 3 and mine > 10
    events = api.ok("GET", f"/games/{game_id}/history", me)["events"]
    assert {e["actor"] for e in events} >= {0, 1, 2}, "every seat moved"
    assert all(e["command_id"].startswith("#") for e in events if e["actor"] in (1, 2))  # not hers
    deadline = time.monotonic() + 10  # the read models follow the last event
    while (games := api.ok("GET", "/me/games", me)["games"])[0]["over"] is False:
        assert time.monotonic() < deadline, "the finished game was never projected"
        time.sleep(0.01)
    assert [(g["game_id"], g["over"]) for g in games] == [(game_id, True)]
    assert api.ok("GET", "/me/inbox", me)["games"] == []
    assert worker_process.poll() is None


def test_the_ai_plays_the_resources_module_to_the_end(
    live_api: Api, worker_process: subprocess.Popen
) -> None:
    """The AI worker keeps a resource card at set-up (both seats owe the choice at once) and
    plays a whole game of the module."""
    api = live_api
    me = api.player("Rio")
    created = api.new_game(me, game="gangsta", seats=2, ai={"1": 1}, options={"resources": True})
    game_id = created["game_id"]
    rng = random.Random(11)
    while (table := my_turn_or_over(api, me, game_id))["result"] is None:
        move(api, me, game_id, rng)
    events = api.ok("GET", f"/games/{game_id}/history", me)["events"]
    kept = [e for e in events if e["type"] == "resource_kept"]
    assert sorted(e["event"]["seat"] for e in kept) == [0, 1]
    assert "resource_influence" in table["result"]["details"]


def test_a_rematch_against_the_ai_is_played_to_its_end(
    live_api: Api, worker_process: subprocess.Popen
) -> None:
    """The rematch keeps the AI seat at its level and the options; its AI seat plays through
    the worker's jobs as the first game's did, to the end."""
    api = live_api
    me = api.player("Rae")
    options = {"mercenary_for_green": True}
    created = api.new_game(me, game="famiglia", seats=2, ai={"1": "greedy"}, options=options)
    rng = random.Random(3)
    game_id = created["game_id"]
    for _ in range(2):
        while my_turn_or_over(api, me, game_id)["result"] is None:
            move(api, me, game_id, rng)
        events = api.ok("GET", f"/games/{game_id}/history", me)["events"]
        assert {e["actor"] for e in events} >= {0, 1}, "both seats moved"
        asked = api.ok("POST", f"/games/{game_id}/rematch", me)
        assert (
            asked["seat"] == 0 and api.ok("GET", f"/games/{game_id}")["rematch"] == asked["game_id"]
        )
        game_id = asked["game_id"]
        rematch = api.ok("GET", f"/games/{game_id}", me)
        assert [(s["kind"], s["level"]) for s in rematch["seats"]] == [
            ("player", None),
            ("ai", "greedy"),
        ]
        assert rematch["options"]["mercenary_for_green"] is True
    assert worker_process.poll() is None
