"""The table over HTTP: concede, draws, undo and seats bots took over, through the
usual command endpoint; the table's part in ``GET /games/{id}`` and the views; the new events in
history, replay and ``omerta verify`` (services.eventstore.audit)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from services.eventstore.audit import verify
from services.games.commands import CommandService
from tests.api.helpers import Api, Who

pytestmark = pytest.mark.server


def two_players(api: Api, game: str) -> tuple[str, list[Who]]:
    ann, bob = api.player("Ann"), api.player("Bob")
    created = api.new_game(ann, game=game, seats=2)
    api.join(bob, created["game_id"], created["invites"][0]["code"])
    return created["game_id"], [ann, bob]


def send(api: Api, who: Who, game_id: str, kind: str) -> Any:
    return api.call("POST", f"/games/{game_id}/commands", who, json={"command": {"type": kind}})


def types(api: Api, game_id: str, who: Who | None) -> list[str]:
    return [e["type"] for e in api.ok("GET", f"/games/{game_id}/history", who)["events"]]


def test_a_draw_offered_and_accepted_ends_as_a_draw(api: Api, service: CommandService) -> None:
    game_id, (ann, bob) = two_players(api, "famiglia")
    assert send(api, ann, game_id, "offer_draw").status_code == 200
    seen = api.ok("GET", f"/games/{game_id}", bob)
    assert seen["table"]["draw_offer"] == 0 and seen["result"] is None
    assert api.ok("GET", f"/games/{game_id}/view", bob)["table"]["draw_offer"] == 0
    mine = send(api, ann, game_id, "accept_draw")  # one's own offer is not the other's to take
    assert (mine.status_code, mine.json["code"]) == (422, "no_draw_offer")
    assert send(api, bob, game_id, "accept_draw").status_code == 200
    result = api.ok("GET", f"/games/{game_id}", ann)["result"]
    assert (result["winners"], result["reason"]) == ([0, 1], "draw_agreed")
    assert types(api, game_id, None)[-2:] == ["draw_offered", "draw_agreed"]
    assert verify(service.store, game_id) == []


@pytest.mark.parametrize("game", ["famiglia", "gangsta"])
def test_a_concession_in_a_2_player_game_ends_it_as_a_loss(
    api: Api, service: CommandService, game: str
) -> None:
    game_id, players = two_players(api, game)
    rng = random.Random(3)
    for _ in range(6):
        table = api.ok("GET", f"/games/{game_id}")
        api.random_move(players[min(table["to_act"])], game_id, rng)
    conceding = api.ok("GET", f"/games/{game_id}")["to_act"][0]  # the one to move gives up
    assert send(api, players[conceding], game_id, "concede").status_code == 200
    table = api.ok("GET", f"/games/{game_id}", players[conceding])
    result = table["result"]
    assert (result["winners"], result["reason"]) == ([1 - conceding], "conceded")
    assert result["details"]["unrated"] == [] and table["to_act"] == []
    assert table["table"]["conceded"] == [conceding]
    after = send(api, players[1 - conceding], game_id, "concede")
    assert (after.status_code, after.json["code"]) == (422, "game_over")
    assert types(api, game_id, players[0])[-1] == "conceded"
    assert verify(service.store, game_id) == []
    last = table["version"]
    for version in range(1, last + 1):  # every version replays, the table's part with it
        for who in [*players, None]:
            shown = api.ok("GET", f"/games/{game_id}/replay/{version}", who)
            assert set(shown["table"]) >= {"bots", "draw_offer", "can_undo", "conceded"}
    assert api.ok("GET", f"/games/{game_id}/replay/{last}")["view"]["result"] == result


def test_undo_is_refused_after_a_reveal(api: Api) -> None:
    """FAMIGLIA.md, action 1: refreshing the Street turns cards up from the deck."""
    for _ in range(200):  # a deal that allows a refresh at once is not common
        game_id, players = two_players(api, "famiglia")
        table = api.ok("GET", f"/games/{game_id}")
        mover = players[table["to_act"][0]]
        legal = api.ok("GET", f"/games/{game_id}/legal", mover)["commands"]
        refresh = [c for c in legal if c["type"] == "refresh"]
        if refresh:
            break
    else:
        pytest.fail("no game opened with a refresh possible")
    api.play(mover, game_id, refresh[0])
    before = api.ok("GET", f"/games/{game_id}", mover)
    assert before["table"]["can_undo"] is False
    refused = send(api, mover, game_id, "undo")
    assert refused.status_code == 422
    assert (refused.json["code"], refused.json["params"]) == (
        "undo_not_allowed",
        {"case": "revealed"},
    )
    japanese = api.call(
        "POST",
        f"/games/{game_id}/commands",
        mover,
        json={"command": {"type": "undo"}},
        headers={"Accept-Language": "ja"},
    )
    assert "公開" in japanese.json["detail"]
    assert api.ok("GET", f"/games/{game_id}", mover)["version"] == before["version"]


def test_an_undo_takes_back_a_chosen_heist(api: Api, service: CommandService) -> None:
    """GANGSTA.md, "A turn": choosing a heist reveals nothing; it can be taken back."""
    for _ in range(20):
        game_id, players = two_players(api, "gangsta")
        mover = players[api.ok("GET", f"/games/{game_id}")["to_act"][0]]
        legal = api.ok("GET", f"/games/{game_id}/legal", mover)["commands"]
        heists = [c for c in legal if c["type"] == "choose_heist"]
        if heists:
            break
    else:
        pytest.fail("no game opened with a heist to choose")
    before = api.ok("GET", f"/games/{game_id}/view", mover)
    api.play(mover, game_id, heists[0])
    assert api.ok("GET", f"/games/{game_id}", mover)["table"]["can_undo"] is True
    other = players[1 - players.index(mover)]
    assert api.ok("GET", f"/games/{game_id}", other)["table"]["can_undo"] is False
    assert send(api, mover, game_id, "undo").status_code == 200
    after = api.ok("GET", f"/games/{game_id}/view", mover)
    assert after["view"] == before["view"] and after["version"] == before["version"] + 2
    assert types(api, game_id, other)[-2:] == ["heist_chosen", "undone"]  # both stay
    assert verify(service.store, game_id) == []


def test_a_person_cannot_move_for_a_seat_a_bot_took_over(api: Api) -> None:
    ann, bob, cy = api.player("Ann"), api.player("Bob"), api.player("Cy")
    created = api.new_game(ann, game="gangsta", seats=3)
    game_id = created["game_id"]
    for who, invite in zip((bob, cy), created["invites"], strict=True):
        api.join(who, game_id, invite["code"])
    seat = api.ok("GET", f"/games/{game_id}", cy)["your_seat"]
    assert send(api, cy, game_id, "offer_draw").json["code"] == "draw_two_players_only"
    assert send(api, cy, game_id, "concede").status_code == 200
    table = api.ok("GET", f"/games/{game_id}", ann)
    assert table["result"] is None and table["table"]["bots"] == [seat]
    assert table["table"]["unrated"] == [seat]
    shown = table["seats"][seat]
    assert (shown["kind"], shown["player"], shown["level"]) == ("ai", cy.id, "greedy")
    assert shown["name"] == "Cy"  # the log's lines of the seat still name its person
    version = table["version"]
    for kind in ("concede", "undo", "pass"):
        refused = send(api, cy, game_id, kind)
        assert (refused.status_code, refused.json["code"]) == (409, "seat_taken_over"), kind
    assert api.ok("GET", f"/games/{game_id}", ann)["version"] == version
    (listed,) = api.ok("GET", "/me/games", cy)["games"]  # the read models say the same
    assert listed["seats"][seat]["kind"] == "ai" and listed["seats"][seat]["name"] == "Cy"
    assert listed["waiting_since"] is None
