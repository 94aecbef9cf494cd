"""End to end over HTTP: two players play a Famiglia game to the end, with an ``omerta worker``
process keeping the read models (inboxes, the players' game lists) up to date."""

from __future__ import annotations

import base64
import random
import subprocess
import time
from collections.abc import Callable

import pytest

from bootstrap import Container
from domain.core import Secret, check_commitment
from services.eventstore import audit
from tests.api.helpers import Api, Who

pytestmark = pytest.mark.server


def eventually(check: Callable[[], bool], what: str, timeout: float = 10.0) -> None:
    """Read models follow the events: wait (briefly) until ``check`` holds."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, what
        time.sleep(0.005)


def inbox(api: Api, who: Who) -> list[tuple[str, int]]:
    return [(g["game_id"], g["version"]) for g in api.ok("GET", "/me/inbox", who)["games"]]


def test_two_players_play_famiglia_to_the_end(
    container: Container, live_api: Api, worker_process: subprocess.Popen[bytes]
) -> None:
    api = live_api
    ann, bob = api.player("Ann"), api.player("Bob")
    created = api.new_game(ann, game="famiglia", seats=2)
    game_id = created["game_id"]
    assert created["seat"] == 0 and [i["seat"] for i in created["invites"]] == [1]
    assert api.join(bob, game_id, created["invites"][0]["code"]) == 1
    by_seat = {0: ann, 1: bob}
    rng = random.Random(7)
    moves = 0
    accepted = None
    while True:
        table = api.ok("GET", f"/games/{game_id}", ann)
        if accepted is not None:  # the command's answer told what follows
            assert (accepted["version"], accepted["to_act"]) == (table["version"], table["to_act"])
        if table["result"] is not None:
            break
        [seat] = table["to_act"]
        now = [(game_id, table["version"])]
        mover = by_seat[seat]
        eventually(lambda m=mover, n=now: inbox(api, m) == n, "the mover's inbox lags")
        assert inbox(api, by_seat[1 - seat]) == []
        accepted = api.random_move(by_seat[seat], game_id, rng)
        assert accepted["version"] >= accepted["first"] > table["version"]
        assert accepted["legal"] == api.ok("GET", f"/games/{game_id}/legal", mover)["commands"]
        moves += 1
    assert moves > 5
    result = table["result"]
    assert len(result["scores"]) == 2 and set(result["winners"]) <= {0, 1}

    def finished(who: Who) -> bool:
        games = api.ok("GET", "/me/games", who)["games"]
        return [(g["game_id"], g["over"]) for g in games] == [(game_id, True)]

    for who in (ann, bob):
        eventually(lambda w=who: finished(w), "the finished game never reached their lists")
        assert inbox(api, who) == []
        assert api.ok("GET", f"/games/{game_id}/legal", who)["commands"] == []

    # Once over, the history shows everything, and the revealed secret matches the commitment.
    events = api.ok("GET", f"/games/{game_id}/history", bob)["events"]
    assert events[-1]["type"] == "game_ended"
    started, ended = events[0]["event"], events[-1]["event"]
    secret = Secret(**{k: base64.b64decode(v) for k, v in ended["secret"].items()})
    assert started["secret"] == ended["secret"]
    assert check_commitment(secret, started["commitment"])
    assert [e["version"] for e in events] == list(range(1, len(events) + 1))
    assert audit.verify(container.events, game_id) == []
    assert worker_process.poll() is None

    # Replaying to the last version gives the final view; to version 1, the opening.
    last = api.ok("GET", f"/games/{game_id}/replay/{len(events)}", ann)
    assert last["view"] == api.ok("GET", f"/games/{game_id}/view", ann)["view"]
    first = api.ok("GET", f"/games/{game_id}/replay/1", ann)
    assert first["version"] == 1 and first["view"]["turn"] != last["view"]["turn"]


def test_a_retried_command_appends_once(api: Api) -> None:
    ann, bob = api.player("Ann"), api.player("Bob")
    created = api.new_game(ann, game="famiglia", seats=2)
    game_id = created["game_id"]
    api.join(bob, game_id, created["invites"][0]["code"])
    table = api.ok("GET", f"/games/{game_id}", ann)
    who = (ann, bob)[table["to_act"][0]]
    command = api.ok("GET", f"/games/{game_id}/legal", who)["commands"][-1]
    path, body = f"/games/{game_id}/commands", {"command": command}
    key = {"Idempotency-Key": "retry-1"}
    first = api.ok("POST", path, who, json=body, headers=key)
    again = api.ok("POST", path, who, json=body, headers=key)
    assert first["legal"] is not None and first["to_act"] is not None
    assert again == {**first, "duplicate": True, "to_act": None, "legal": None}
    assert api.ok("GET", f"/games/{game_id}", ann)["version"] == first["version"]


def test_a_public_game_is_in_the_lobby_until_full(api: Api) -> None:
    ann, bob, cid = api.player("Ann"), api.player("Bob"), api.player("Cid")
    game_id = api.new_game(ann, game="gangsta", seats=3, ai={"2": 1}, public=True)["game_id"]
    lobby = api.ok("GET", "/lobby")["games"]
    assert [g["game_id"] for g in lobby] == [game_id]
    assert [s["kind"] for s in lobby[0]["seats"]] == ["player", "open", "ai"]
    assert lobby[0]["seats"][0]["name"] == "Ann"
    assert api.join(bob, game_id, None) == 1
    assert api.ok("GET", "/lobby")["games"] == []
    refused = api.call("POST", f"/games/{game_id}/join", cid, json={})
    assert (refused.status_code, refused.json["code"]) == (409, "no_open_seat")


def test_a_gangsta_game_with_the_resources_module_over_http(api: Api) -> None:
    """POST /games accepts the option; each player sees only their own two resource cards and,
    until everyone has chosen, only their own kept card (views, legal, history)."""
    ann, bob = api.player("Ann"), api.player("Bob")
    created = api.new_game(ann, game="gangsta", seats=2, options={"resources": True})
    game_id = created["game_id"]
    api.join(bob, game_id, created["invites"][0]["code"])
    table = api.ok("GET", f"/games/{game_id}", ann)
    assert table["options"]["resources"] is True and sorted(table["to_act"]) == [0, 1]
    views = [api.ok("GET", f"/games/{game_id}/view", who)["view"] for who in (ann, bob)]
    assert views[0]["stage"] == "resources"
    dealt = [views[0]["players"][0]["dealt"], views[1]["players"][1]["dealt"]]
    assert len(dealt[0]) == 2 and len(dealt[1]) == 2 and not set(dealt[0]) & set(dealt[1])
    assert views[0]["players"][1]["dealt"] == [] and views[1]["players"][0]["dealt"] == []
    legal = api.ok("GET", f"/games/{game_id}/legal", ann)
    assert legal["commands"] == [{"type": "keep_resource", "card": c} for c in dealt[0]]
    refused = api.call(
        "POST",
        f"/games/{game_id}/commands",
        ann,
        json={"command": {"type": "keep_resource", "card": dealt[1][0]}},
    )
    assert refused.status_code == 422 and refused.json["code"] == "not_dealt"
    assert str(dealt[1][1]) not in refused.get_data(as_text=True)
    api.play(ann, game_id, {"type": "keep_resource", "card": dealt[0][1]})
    bob_sees = api.ok("GET", f"/games/{game_id}/view", bob)["view"]["players"][0]
    assert bob_sees["resource"] is None and bob_sees["resource_chosen"] is True
    events = api.ok("GET", f"/games/{game_id}/history", bob)["events"]
    kept = [e for e in events if e["type"] == "resource_kept"]
    assert [k["event"]["card"] for k in kept] == [None] and kept[0]["hash"] == ""
    for who in (bob, None):
        text = api.call("GET", f"/games/{game_id}/history", who).get_data(as_text=True)
        assert f'"card":{dealt[0][1]}' not in text.replace(" ", "")
    api.play(bob, game_id, {"type": "keep_resource", "card": dealt[1][0]})
    for who in (ann, bob):
        seen = api.ok("GET", f"/games/{game_id}/view", who)["view"]
        assert [p["resource"] for p in seen["players"]] == [dealt[0][1], dealt[1][0]]
        assert seen["stage"] == "turn"
