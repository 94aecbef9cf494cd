"""The ratings' API and pages: a game's leaderboard and a player's page (JSON, and the pages
drawn from the same answers), bad input as problems."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
import redis
from flask import Flask

from api import web
from api.app import create_app
from services.eventstore.store import EventStore
from services.games.commands import CommandService
from services.games.repository import EventStoreRepository
from services.readside.ratings import Ratings
from tests.api.helpers import Api, Who, container_of
from tests.workers.test_ratings import play_to_the_end
from workers.projection.projector import Listener, Projector

pytestmark = pytest.mark.server


class RatedAtOnce(Listener):
    def __init__(self, client: redis.Redis) -> None:
        self.ratings = Ratings(client)

    def on_finished(self, game_id: str) -> None:
        self.ratings.rate(game_id)


@pytest.fixture
def service(real_redis: redis.Redis) -> CommandService:
    """Projected after every append, and rated once a game is over (as the workers do)."""
    projector = Projector(EventStore(real_redis), listeners=[RatedAtOnce(real_redis)])
    return CommandService(
        EventStoreRepository(
            projector.store, hooks=[lambda game_id, *_: projector.project(game_id)]
        )
    )


@pytest.fixture
def site(service: CommandService, real_redis: redis.Redis) -> Iterator[Api]:
    app: Flask = create_app(container_of(service))
    web.register(app)
    with app.test_client(use_cookies=False) as client:
        yield Api(client)


def finished_game(api: Api, service: CommandService, people: list[Who], ai: dict[int, str],
                  seed: int) -> str:  # fmt: skip
    seats = len(people) + len(ai)
    game = "famiglia" if seats == 2 else "gangsta"
    humans = [s for s in range(seats) if s not in ai]
    made = api.new_game(people[0], game=game, seats=seats, ai=ai, seat=humans[0])
    for who, invite in zip(people[1:], made["invites"], strict=True):
        api.join(who, made["game_id"], invite["code"])
    play_to_the_end(service, made["game_id"], random.Random(seed))  # no worker here
    return made["game_id"]


def test_the_leaderboard_and_a_player_page(site: Api, service: CommandService) -> None:
    ann, bo = site.player("Ann"), site.player("Bo")
    first = finished_game(site, service, [ann, bo], {}, 1)
    finished_game(site, service, [ann], {1: "greedy"}, 2)
    board = site.ok("GET", "/leaderboard/famiglia")
    assert board["game"] == "famiglia" and board["total"] == 3 and board["offset"] == 0
    lines = {e["player"]: e for e in board["entries"]}
    assert set(lines) == {ann.id, bo.id, "ai:greedy"}
    assert lines[ann.id]["name"] == "Ann" and lines[ann.id]["kind"] == "player"
    assert lines["ai:greedy"]["name"] == "greedy" and lines["ai:greedy"]["kind"] == "ai"
    assert lines[ann.id]["games"] == 2 and lines[bo.id]["games"] == 1
    assert [e["rank"] for e in board["entries"]] == [1, 2, 3]
    ratings = [e["rating"] for e in board["entries"]]
    assert ratings == sorted(ratings, reverse=True)
    second = site.ok("GET", "/leaderboard/famiglia?offset=1&limit=1")
    assert second["entries"] == [board["entries"][1]] and second["total"] == 3
    assert site.ok("GET", "/leaderboard/gangsta") == {
        "game": "gangsta", "total": 0, "offset": 0, "limit": 50, "entries": [],
    }  # fmt: skip

    page = site.ok("GET", f"/players/{ann.id}")
    assert page["player"] == ann.id and page["name"] == "Ann" and page["kind"] == "player"
    (rating,) = page["ratings"]
    assert rating["game"] == "famiglia" and rating["games"] == 2
    assert rating["rating"] == lines[ann.id]["rating"] and rating["rank"] == lines[ann.id]["rank"]
    (history,) = page["history"]
    assert len(history["points"]) == 2 and history["points"][-1]["rating"] == rating["rating"]
    assert page["total_games"] == 2
    assert {g["game_id"] for g in page["games"]} >= {first}
    game = next(g for g in page["games"] if g["game_id"] == first)
    assert game["over"] and game["result"] is not None and game["their_seats"] == [0]
    assert [s["name"] for s in game["seats"]] == ["Ann", "Bo"]

    bot = site.ok("GET", "/players/ai:greedy")
    assert bot["kind"] == "ai" and bot["name"] == "greedy" and bot["total_games"] == 1
    assert bot["games"][0]["their_seats"] == [1]

    # The pages, from the same answers: names link to the player pages; the plot is SVG.
    html = site.client.get("/rankings/famiglia").get_data(as_text=True)
    assert f'href="/profile/{ann.id}"' in html and "AI · greedy" in html
    shown = site.client.get(f"/profile/{ann.id}").get_data(as_text=True)
    assert '<svg class="rating-plot"' in shown and f'href="/play/{first}"' in shown
    assert f'href="/profile/{bo.id}"' in shown and 'href="/profile/ai:greedy"' in shown
    ja = site.client.get("/rankings/famiglia", headers={"Accept-Language": "ja"})
    assert "ランキング" in ja.get_data(as_text=True) and "AI・貪欲" in ja.get_data(as_text=True)


@pytest.mark.parametrize(
    ("path", "status", "code"),
    [
        ("/leaderboard/chess", 404, "unknown_leaderboard"),
        ("/leaderboard/famiglia?limit=0", 400, "bad_parameter"),
        ("/leaderboard/famiglia?limit=101", 400, "bad_parameter"),
        ("/leaderboard/famiglia?offset=-1", 400, "bad_parameter"),
        ("/leaderboard/famiglia?limit=ten", 400, "bad_parameter"),
        ("/players/nobody-at-all", 404, "unknown_player"),
        ("/players/ai:grandmaster", 404, "unknown_player"),
        ("/players/nobody?offset=x", 400, "bad_parameter"),
    ],
)
def test_bad_input_is_a_problem(site: Api, path: str, status: int, code: str) -> None:
    response = site.call("GET", path)
    assert response.status_code == status
    assert response.mimetype == "application/problem+json"
    assert response.json["code"] == code


def test_problems_in_japanese_and_pages_not_found(site: Api) -> None:
    ja = {"Accept-Language": "ja"}
    response = site.call("GET", "/leaderboard/famiglia?limit=500", headers=ja)
    assert response.json["detail"] == "limit は1から100まででなければなりません。"
    response = site.call("GET", "/leaderboard/go", headers=ja)
    assert response.json["detail"] == "ゲーム go はないので、ランキングもありません。"
    assert site.client.get("/rankings/chess").status_code == 404
    assert site.client.get("/profile/nobody").status_code == 404
    assert site.client.get("/rankings/famiglia?offset=zz").status_code == 200  # from the top
