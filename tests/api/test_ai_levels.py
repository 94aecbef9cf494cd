"""The AI levels through the API: each game lists the levels it offers, a search level is
accepted only for a game that offers it (a clear 400 otherwise), and a search level's seat
counts as its own AI identity on the rankings and the profile pages (``ai:expert``), named for
what it is in English and Japanese."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from api.web import i18n
from domain import bots
from services.games.commands import CommandService
from tests.api.helpers import Api

# The ratings tests' service (rating every finished game) and site (the pages too).
from tests.api.test_ratings import finished_game, service, site  # noqa: F401

pytestmark = pytest.mark.server


def test_every_game_lists_the_levels_it_offers(api: Api) -> None:  # the conftest's api
    kinds = {k["name"]: k for k in api.ok("GET", "/games")}
    for name, kind in kinds.items():
        assert kind["ai_levels"] == list(bots.levels(name))
        assert {"random", "greedy", "medium", "expert"} <= set(kind["ai_levels"])


@pytest.mark.parametrize("level", ["medium", "expert"])
def test_a_search_level_is_refused_for_a_game_that_does_not_offer_it(
    api: Api, monkeypatch: pytest.MonkeyPatch, level: str
) -> None:
    searched = bots.levels
    monkeypatch.setattr(
        bots, "levels", lambda game: bots.LEVELS if game == "famiglia" else searched(game)
    )
    me = api.player("Ann")
    refused = api.call("POST", "/games", me, json={"game": "famiglia", "seats": 2,
                                                   "ai": {"1": level}})  # fmt: skip
    assert refused.status_code == 400
    problem = refused.json
    assert problem["code"] == "bad_ai_level"
    assert problem["params"] == {"case": "not_offered", "level": level, "game": "famiglia",
                                 "levels": ["random", "greedy"]}  # fmt: skip
    assert f"the {level} AI is not offered for famiglia" in problem["detail"]
    made = api.new_game(me, game="gangsta", seats=2, ai={"1": level})  # offered there
    seats = api.ok("GET", f"/games/{made['game_id']}", me)["seats"]
    assert seats[1]["kind"] == "ai" and seats[1]["level"] == level


def test_an_unknown_level_is_still_refused(api: Api) -> None:
    me = api.player("Ann")
    refused = api.call("POST", "/games", me, json={"game": "famiglia", "seats": 2,
                                                   "ai": {"1": "grandmaster"}})  # fmt: skip
    assert refused.status_code == 400 and refused.json["code"] == "bad_ai_level"


def test_a_search_level_has_its_own_rating_and_page(
    site: Api,  # noqa: F811
    service: CommandService,  # noqa: F811
) -> None:
    ann = site.player("Ann")
    finished_game(site, service, [ann], {1: "expert"}, 3)  # the moves are random: no search
    board = site.ok("GET", "/leaderboard/famiglia")
    lines = {e["player"]: e for e in board["entries"]}
    assert lines["ai:expert"]["kind"] == "ai" and lines["ai:expert"]["name"] == "expert"
    bot = site.ok("GET", "/players/ai:expert")
    assert bot["kind"] == "ai" and bot["total_games"] == 1 and bot["games"][0]["their_seats"] == [1]
    html = site.client.get("/rankings/famiglia").get_data(as_text=True)
    # The level's badge, what it does the badge's title (on the leaderboard and its own page).
    assert 'title="expert, searches 1 s a move">AI · expert<' in html
    assert 'href="/profile/ai:expert"' in html
    ja = site.client.get("/profile/ai:expert", headers={"Accept-Language": "ja"})
    assert 'title="上級・1手1秒の探索">AI・上級<' in ja.get_data(as_text=True)


def test_the_level_names_say_their_budget() -> None:
    """The pages' names of the search levels give the budget the workers search with."""
    table = json.loads((Path(i18n.__file__).parent / "messages.json").read_text("utf-8"))
    for level, seconds in bots.SEARCH_LEVELS.items():
        figure = f"{seconds:g}"
        assert f"searches {figure} s a move" in table["en"][f"ai.{level}"]
        assert f"1手{figure}秒" in table["ja"][f"ai.{level}"]
        for lang in ("en", "ja"):
            assert table[lang][f"ai.{level}"] in table[lang][f"new.seat_ai_{level}"]
