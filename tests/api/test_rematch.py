"""Rematch: one request on a finished game makes a new game with the same seats and
creation settings; everyone of the old game gets the same one; a reserved seat is its player's
alone. A rematch played to its end with a real worker is in ``test_ai_game``."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import msgspec
import pytest
import redis

from services.games.commands import CommandService
from services.games.rematch import Rematches
from services.games.repository import EventStoreRepository
from services.identity.players import Players
from tests.api.helpers import Api, Who

pytestmark = pytest.mark.server

OPTIONS = {"mercenary_for_green": True}


def finished_game(api: Api, ann: Who, bob: Who, public: bool = False) -> str:
    """A Famiglia game of Ann (seat 1) and Bob (seat 0), ended by two passes in a row."""
    made = api.new_game(ann, game="famiglia", seats=2, seat=1, options=OPTIONS, public=public)
    game_id = made["game_id"]
    api.join(bob, game_id, made["invites"][0]["code"])
    for _ in range(2):
        to_act = api.ok("GET", f"/games/{game_id}")["to_act"][0]
        api.play((bob, ann)[to_act], game_id, {"type": "pass"})
    assert api.ok("GET", f"/games/{game_id}")["result"] is not None
    return game_id


def test_a_rematch_keeps_seats_and_settings_and_is_one_per_game(
    api: Api, service: CommandService
) -> None:
    ann, bob = api.player("Ann"), api.player("Bob")
    old = finished_game(api, ann, bob, public=True)
    asked = api.ok("POST", f"/games/{old}/rematch", ann)
    new = asked["game_id"]
    assert (asked["by"], asked["seat"]) == (ann.id, 1)  # the asker sits at once, at her seat
    earlier, made = service.load(old).meta, service.load(new).meta
    assert made.created >= earlier.created
    assert msgspec_fields(made) == msgspec_fields(earlier)  # every creation setting copied

    # Everyone sees the offer; Bob's seat waits for him.
    for who in (ann, bob, None):
        table = api.ok("GET", f"/games/{old}", who)
        assert (table["rematch"], table["rematch_by"]) == (new, ann.id)
    seats = api.ok("GET", f"/games/{new}")["seats"]
    assert [(s["kind"], s["player"], s["name"]) for s in seats] == [
        ("reserved", bob.id, "Bob"),
        ("player", ann.id, "Ann"),
    ]
    assert api.ok("GET", "/lobby")["games"] == []  # public, but no seat is free for strangers

    # A second click, and Bob's click: the same game; Bob takes his seat with it.
    assert api.ok("POST", f"/games/{old}/rematch", ann) == asked
    assert api.ok("POST", f"/games/{old}/rematch", bob) == {"game_id": new, "by": ann.id, "seat": 0}
    assert api.ok("POST", f"/games/{old}/rematch", bob)["seat"] == 0
    seats = api.ok("GET", f"/games/{new}", bob)["seats"]
    assert [(s["kind"], s["player"]) for s in seats] == [("player", bob.id), ("player", ann.id)]
    assert [g["game_id"] for g in api.ok("GET", "/me/games", bob)["games"]] == [new, old]
    assert api.ok("GET", f"/games/{new}")["options"] == api.ok("GET", f"/games/{old}")["options"]


def msgspec_fields(meta: msgspec.Struct) -> dict[str, object]:
    fields = msgspec.structs.asdict(meta)
    del fields["created"]
    return fields


def test_a_reserved_seat_is_its_players_alone(api: Api) -> None:
    ann, bob, cy = api.player("Ann"), api.player("Bob"), api.player("Cy")
    old = finished_game(api, ann, bob, public=True)
    new = api.ok("POST", f"/games/{old}/rematch", ann)["game_id"]

    refused = api.call("POST", f"/games/{new}/join", cy, json={})
    assert (refused.status_code, refused.json["code"]) == (409, "no_open_seat")
    stranger = api.call("POST", f"/games/{old}/rematch", cy)
    assert (stranger.status_code, stranger.json["code"]) == (403, "not_seated")
    assert api.call("POST", f"/games/{old}/rematch").status_code == 401
    assert [s["kind"] for s in api.ok("GET", f"/games/{new}")["seats"]] == ["reserved", "player"]

    # Bob takes it from the offer's page: a join without an invite, twice the same seat.
    assert api.ok("POST", f"/games/{new}/join", bob, json={})["seat"] == 0
    assert api.ok("POST", f"/games/{new}/join", bob, json={})["seat"] == 0  # a retry: the same
    refused = api.call("POST", f"/games/{new}/join", cy, json={})
    assert (refused.status_code, refused.json["code"]) == (409, "no_open_seat")
    assert api.ok("POST", f"/games/{old}/rematch", bob)["seat"] == 0


def test_a_private_game_gives_a_private_rematch(api: Api) -> None:
    ann, bob, cy = api.player("Ann"), api.player("Bob"), api.player("Cy")
    old = finished_game(api, ann, bob)
    new = api.ok("POST", f"/games/{old}/rematch", bob)["game_id"]
    assert api.ok("GET", f"/games/{new}", bob)["your_seat"] == 0
    refused = api.call("POST", f"/games/{new}/join", cy, json={})
    assert (refused.status_code, refused.json["code"]) == (403, "bad_invite")
    assert api.ok("POST", f"/games/{new}/join", ann, json={})["seat"] == 1


def test_no_rematch_of_a_running_game(api: Api) -> None:
    ann, bob = api.player("Ann"), api.player("Bob")
    made = api.new_game(ann, game="famiglia", seats=2)
    api.join(bob, made["game_id"], made["invites"][0]["code"])
    refused = api.call("POST", f"/games/{made['game_id']}/rematch", ann)
    assert (refused.status_code, refused.json["code"]) == (409, "game_not_over")
    assert refused.mimetype == "application/problem+json"
    assert api.ok("GET", f"/games/{made['game_id']}")["rematch"] is None
    missing = api.call("POST", "/games/nothing-here/rematch", ann)
    assert (missing.status_code, missing.json["code"]) == (404, "unknown_game")


def test_two_players_asking_at_once_get_one_rematch(
    api: Api, service: CommandService, real_redis: redis.Redis
) -> None:
    """Each in a process of its own (its own clients and caches), both at the same moment."""
    ann, bob = api.player("Ann"), api.player("Bob")
    old = finished_game(api, ann, bob)
    start = threading.Barrier(2)

    def ask(who: Who) -> tuple[str, int]:
        rematches = Rematches(
            CommandService(EventStoreRepository(service.store, hooks=[])), Players(real_redis)
        )
        start.wait()
        made, seat = rematches.offer(old, who.id)
        return made.game, seat

    with ThreadPoolExecutor(2) as pool:
        (ann_game, ann_seat), (bob_game, bob_seat) = pool.map(ask, (ann, bob))
    assert ann_game == bob_game and (ann_seat, bob_seat) == (1, 0)
    seats = api.ok("GET", f"/games/{ann_game}")["seats"]
    assert [(s["kind"], s["player"]) for s in seats] == [("player", bob.id), ("player", ann.id)]
    made = [k for k in real_redis.scan_iter("game:{*}:meta")]
    assert len(made) == 2, "one game and its one rematch"


def test_a_seat_nobody_took_stays_open_for_the_lobby(api: Api, service: CommandService) -> None:
    """Seat 1 was never taken (its passes sent to the service directly): in the public
    rematch it is open, and a stranger takes it from the lobby."""
    ann, cy = api.player("Ann"), api.player("Cy")
    old = api.new_game(ann, game="famiglia", seats=2, public=True)["game_id"]
    for turn in range(2):
        seat = api.ok("GET", f"/games/{old}")["to_act"][0]
        if seat == 0:
            api.play(ann, old, {"type": "pass"})
        else:
            service.handle(old, seat, {"type": "pass"}, f"open-seat-{turn}")
    assert api.ok("GET", f"/games/{old}")["result"] is not None
    new = api.ok("POST", f"/games/{old}/rematch", ann)["game_id"]
    assert [s["kind"] for s in api.ok("GET", f"/games/{new}")["seats"]] == ["player", "open"]
    assert [g["game_id"] for g in api.ok("GET", "/lobby")["games"]] == [new]
    assert api.ok("POST", f"/games/{new}/join", cy, json={})["seat"] == 1


def test_a_rematch_lost_with_a_restored_store_is_made_again(
    api: Api, real_redis: redis.Redis
) -> None:
    """The old game's pointer outlived its rematch (a store restored from an older backup
    keeps what was written before it; here the rematch's own keys are gone)."""
    ann, bob = api.player("Ann"), api.player("Bob")
    old = finished_game(api, ann, bob)
    lost = api.ok("POST", f"/games/{old}/rematch", ann)["game_id"]
    for key in real_redis.scan_iter(f"game:{{{lost}}}:*"):
        real_redis.delete(key)
    again = api.ok("POST", f"/games/{old}/rematch", bob)
    assert again["game_id"] != lost and (again["by"], again["seat"]) == (bob.id, 0)
