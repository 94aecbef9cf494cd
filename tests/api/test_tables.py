"""Seats that can be told apart: AI seats have names, distinct within a game and the same
wherever the game is shown; a player's finished game in the lists carries its result."""

from __future__ import annotations

import pytest

from api.games.tables import BOT_NAMES, bot_names
from tests.api.helpers import Api

pytestmark = pytest.mark.server


def test_bot_names_are_distinct_and_fixed_per_game() -> None:
    for game_id in ("a", "b", "some-game-id"):
        names = bot_names(game_id, [1, 2, 3])
        assert len(set(names.values())) == 3 and set(names.values()) <= set(BOT_NAMES)
        assert bot_names(game_id, [1, 2, 3]) == names


def test_ai_seats_have_the_same_names_everywhere(api: Api) -> None:
    ann = api.player("Ann")
    spec = {"game": "gangsta", "seats": 4, "ai": {"1": 1, "2": 1, "3": 0}, "public": False}
    game_id = api.new_game(ann, **spec)["game_id"]
    table = api.ok("GET", f"/games/{game_id}")["seats"]
    listed = next(g for g in api.ok("GET", "/me/games", ann)["games"] if g["game_id"] == game_id)
    names = [s["name"] for s in table[1:]]
    assert len(set(names)) == 3 and all(names)
    assert [s["name"] for s in listed["seats"]] == [s["name"] for s in table]


def test_a_finished_game_in_the_list_has_its_result(api: Api) -> None:
    ann, bob = api.player("Ann"), api.player("Bob")
    created = api.new_game(ann, game="famiglia", seats=2)
    game_id = created["game_id"]
    api.join(bob, game_id, created["invites"][0]["code"])
    for _ in range(2):  # two passes in a row end the game
        game = api.ok("GET", f"/games/{game_id}")
        mover = ann if game["to_act"] == [0] else bob
        api.play(mover, game_id, {"type": "pass"}, game["version"])
    result = api.ok("GET", f"/games/{game_id}")["result"]
    listed = next(g for g in api.ok("GET", "/me/games", ann)["games"] if g["game_id"] == game_id)
    assert listed["over"] and listed["result"] == result
