"""End to end: a 2-player game where one player stops moving, with deadlines of
seconds, against ``omerta serve`` and an ``omerta worker`` with RQ's scheduler. With the
takeover policy a bot plays the silent seat and finishes the game; with forfeit the game ends at
the deadline as a loss for the silent seat."""

from __future__ import annotations

import os
import random
import subprocess
import time
from collections.abc import Callable
from typing import Any

import pytest
import redis

from tests.api.served import call, serve

pytestmark = pytest.mark.server

LIMIT_S = 3  # the clock: seconds per move


def _until(check: Callable[[], Any], timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while not (found := check()):
        assert time.monotonic() < deadline, what
        time.sleep(0.02)
    return found


def _play(port: int, policy: str) -> tuple[dict[str, Any], list[dict[str, Any]], str]:
    """Ann (seat 0) plays random legal moves as soon as she owes one; Bob (seat 1) never
    moves. The game at its end, its history, Ann's token."""
    ann = call(port, "POST", "/players", {"name": "Ann"})[1]["token"]
    bob = call(port, "POST", "/players", {"name": "Bob"})[1]["token"]
    spec = {"game": "famiglia", "seats": 2, "clock": {"type": "per_move", "seconds": LIMIT_S},
            "on_timeout": {"policy": policy, "level": "random"}}  # fmt: skip
    status, made = call(port, "POST", "/games", spec, ann)
    assert status == 201, made
    game_id = made["game_id"]
    assert call(port, "POST", f"/games/{game_id}/join", {"invite": made["invites"][0]["code"]},
                bob)[0] == 200  # fmt: skip
    rng = random.Random(3)
    end = time.monotonic() + 120
    while (game := call(port, "GET", f"/games/{game_id}", token=ann)[1])["result"] is None:
        assert time.monotonic() < end, "the game never ended"
        if 0 not in game["to_act"]:
            time.sleep(0.02)
            continue
        status, legal = call(port, "GET", f"/games/{game_id}/legal", token=ann)
        if status != 200 or not legal["commands"]:
            continue
        body = {"command": rng.choice(legal["commands"]), "expected_version": legal["version"]}
        call(port, "POST", f"/games/{game_id}/commands", body, ann)  # a 409: the bot came first
    history = call(port, "GET", f"/games/{game_id}/history", token=ann)[1]["events"]
    return game, history, ann


@pytest.fixture
def port(workers_redis: redis.Redis, redis_url: str, worker_process: subprocess.Popen) -> Any:
    with serve({**os.environ, "REDIS_URL": redis_url, "OMERTA_MIN_CLOCK_SECONDS": "1"}) as port:
        yield port
    assert worker_process.poll() is None


def test_with_takeover_a_bot_finishes_the_silent_players_game(port: int) -> None:
    game, history, _ = _play(port, "takeover")
    timed_out = [e for e in history if e["type"] == "timed_out"]
    assert [e["event"]["seat"] for e in timed_out][:1] == [1]
    assert timed_out[0]["event"]["forfeit"] is False
    assert game["result"]["reason"] != "timed_out"  # played to the rules' own end
    after = [e for e in history if e["version"] > timed_out[0]["version"] and e["actor"] == 1]
    assert after, "the bot never moved for Bob"
    assert game["clocks"] == [] or all(c["deadline"] is None for c in game["clocks"])


def test_with_forfeit_the_game_ends_at_the_deadline_as_a_loss(port: int) -> None:
    game, history, _ = _play(port, "forfeit")
    result = game["result"]
    assert (result["reason"], result["winners"]) == ("timed_out", [0])
    timed_out = history[-1]
    assert timed_out["type"] == "timed_out"
    assert (timed_out["event"]["seat"], timed_out["event"]["forfeit"]) == (1, True)
    # Bob's last stretch began at the event before: the deadline came LIMIT_S seconds later.
    assert timed_out["time"] >= history[-2]["time"] + LIMIT_S * 1000
