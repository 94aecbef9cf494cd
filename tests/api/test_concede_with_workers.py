"""A 4-player Gangsta! game where one player concedes: the conceded seat is played
to the end by a bot, through the real RQ jobs of an ``omerta worker`` process, and its result
does not count for ratings."""

from __future__ import annotations

import random
import subprocess

import pytest

from tests.api.helpers import Api
from tests.api.test_ai_game import move, my_turn_or_over

pytestmark = pytest.mark.server


def test_a_conceded_seat_is_played_to_the_end_by_a_bot(
    live_api: Api, worker_process: subprocess.Popen
) -> None:
    api = live_api
    me, bob = api.player("Ann"), api.player("Bob")
    created = api.new_game(me, game="gangsta", seats=4, ai={"2": "random", "3": "greedy"})
    game_id = created["game_id"]
    (invite,) = created["invites"]
    assert api.join(bob, game_id, invite["code"]) == 1
    conceded = api.call(
        "POST", f"/games/{game_id}/commands", bob, json={"command": {"type": "concede"}}
    )
    assert conceded.status_code == 200, conceded.json
    rng = random.Random(8)
    mine = 0
    while (table := my_turn_or_over(api, me, game_id))["result"] is None:
        mine += move(api, me, game_id, rng)
        assert mine < 2000, "the game does not end"
    result = table["result"]
    assert len(result["scores"]) == 4 and result["details"]["unrated"] == [1]
    assert result["reason"] in ("nine_gangsters", "third_snitch")
    assert [s["kind"] for s in table["seats"]] == ["player", "ai", "ai", "ai"]
    assert table["seats"][1]["player"] == bob.id
    events = api.ok("GET", f"/games/{game_id}/history", me)["events"]
    (at,) = [e["version"] for e in events if e["type"] == "conceded"]
    assert any(e["actor"] == 1 and e["version"] > at for e in events), "the bot played seat 1"
    assert worker_process.poll() is None
