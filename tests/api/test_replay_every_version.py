"""Every version of a finished game can be replayed: ``GET /games/{id}/replay/N`` answers 200
for every N, as every seat and as a spectator, also for the versions between the events of one
command (Famiglia's Street refill after a recruit, Gangsta!'s chains of follow-ups)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from tests.api.helpers import Api, Who

pytestmark = pytest.mark.server


def play_to_the_end(
    api: Api, game: str, seats: int, options: dict[str, Any], seed: int
) -> tuple[str, list[Who]]:
    """A game of ``seats`` scripted players (random legal moves, passing only when nothing
    else is legal) played to its end over HTTP."""
    players = [api.player(f"P{seat}") for seat in range(seats)]
    created = api.new_game(players[0], game=game, seats=seats, options=options)
    game_id = created["game_id"]
    for invite, who in zip(created["invites"], players[1:], strict=True):
        assert api.join(who, game_id, invite["code"]) == invite["seat"]
    rng = random.Random(seed)
    for _ in range(3000):
        table = api.ok("GET", f"/games/{game_id}")
        if table["result"] is not None:
            return game_id, players
        api.random_move(players[min(table["to_act"])], game_id, rng)
    raise AssertionError(f"the {game} game did not end")


@pytest.mark.parametrize(
    ("game", "seats", "options"),
    [
        ("famiglia", 2, {}),
        ("famiglia", 2, {"preset": "published"}),
        ("gangsta", 2, {}),
    ],
)
def test_every_version_replays_for_every_seat_and_spectators(
    api: Api, game: str, seats: int, options: dict[str, Any]
) -> None:
    # The deal is the server's (random): a short game is played again with other moves, so
    # that the replays cover a long one.
    for seed in range(11, 21):
        game_id, players = play_to_the_end(api, game, seats, options, seed=seed)
        table = api.ok("GET", f"/games/{game_id}")
        if table["version"] > 50:
            break
    if options.get("preset") == "published":  # the game records the options it resolved to
        assert table["options"]["mercenary_for_green"] is True
    last = table["version"]
    assert last > 50
    for version in range(1, last + 1):
        for who in [*players, None]:
            response = api.call("GET", f"/games/{game_id}/replay/{version}", who)
            assert response.status_code == 200, (version, who, response.json)
            body = response.json
            assert body["version"] == version
            assert body["seat"] == (None if who is None else players.index(who))
    final = api.ok("GET", f"/games/{game_id}/replay/{last}")["view"]
    assert final["result"] is not None


def test_every_version_replays_with_the_tables_events(api: Api) -> None:
    """A draw offered and declined, a chosen heist undone, a concession (docs/table.md)."""
    players = [api.player("Ann"), api.player("Bob")]
    created = api.new_game(players[0], game="gangsta", seats=2)
    game_id = created["game_id"]
    api.join(players[1], game_id, created["invites"][0]["code"])
    api.play(players[0], game_id, {"type": "offer_draw"})
    api.play(players[1], game_id, {"type": "decline_draw"})
    rng = random.Random(4)
    undone = False
    for _ in range(300):
        mover = players[api.ok("GET", f"/games/{game_id}")["to_act"][0]]
        legal = api.ok("GET", f"/games/{game_id}/legal", mover)["commands"]
        heists = [c for c in legal if c["type"] == "choose_heist"]
        if heists and not undone:
            api.play(mover, game_id, heists[0])
            api.play(mover, game_id, {"type": "undo"})
            undone = True
        elif undone:
            break
        else:
            api.random_move(mover, game_id, rng)
    api.play(players[0], game_id, {"type": "concede"})
    table = api.ok("GET", f"/games/{game_id}")
    assert table["result"]["reason"] == "conceded"
    types = {e["type"] for e in api.ok("GET", f"/games/{game_id}/history")["events"]}
    assert {"draw_offered", "draw_declined", "undone", "conceded"} <= types
    for version in range(1, table["version"] + 1):
        for who in [*players, None]:
            response = api.call("GET", f"/games/{game_id}/replay/{version}", who)
            assert response.status_code == 200, (version, who, response.json)
