"""Hidden information never leaves the server before the rules reveal it, through any endpoint.

Games are played over HTTP; after every move every endpoint is called as each seat, a
spectator (a player without a seat) and an anonymous caller, including refused commands, and
every response body is scanned for what is hidden at that moment: the seed and salt (hex and
base64), the deck order (the next cards in order), and, in views, the other hand (Famiglia) and
the other players' heists and influence (Gangsta!). Once the game is over the seed must appear:
the scanner can see it.
"""

from __future__ import annotations

import base64
import random
from collections.abc import Iterator

import msgspec
import pytest
from flask import Flask

from api.app import create_app
from services.games.commands import CommandService
from tests.api.helpers import Api, Who, container_of

pytestmark = pytest.mark.server


@pytest.fixture
def api(service: CommandService, real_redis) -> Iterator[Api]:
    app: Flask = create_app(container_of(service), stream_seconds=0.0)
    with app.test_client(use_cookies=False) as client:
        yield Api(client)


def secrets_of(service: CommandService, game_id: str) -> dict[str, bytes]:
    secret = service.events(game_id)[0].event.secret
    out = {}
    for label, raw in (("seed", secret.seed), ("salt", secret.salt)):
        out[f"{label} hex"] = raw.hex().encode()
        out[f"{label} base64"] = base64.b64encode(raw).rstrip(b"=")
        out[f"{label} base64url"] = base64.urlsafe_b64encode(raw).rstrip(b"=")
    return out


def deck_orders(service: CommandService, game_id: str) -> dict[str, bytes]:
    """The next cards of each deck, in order, as they would appear in a JSON list."""
    state = service.load(game_id).state
    decks = {"deck": getattr(state, "deck", ())}
    decks["gangster deck"] = getattr(state, "gangster_deck", ())
    for chapter, deck in enumerate(getattr(state, "heist_decks", ()), 1):
        decks[f"heist deck {chapter}"] = deck
    return {
        name: msgspec.json.encode(list(deck[:8]))[1:-1]
        for name, deck in decks.items()
        if len(deck) >= 5
    }


# Commands to be refused (the ones the caller may send now are left out): their messages too.
REFUSED = (
    {"type": "pass"},
    {"type": "refresh", "card": "red-4"},
    {"type": "recruit", "card": "red-4", "to_area": "red-3", "back_to_hand": "green-4"},
    {"type": "hire", "gangster": 1},
    {"type": "commit", "gangster": 200},
    {"type": "ready", "gangster": 3},
)


def walk(api: Api, game_id: str, callers: list[Who | None], version: int) -> None:
    """Every endpoint, as every caller, refused commands included."""
    g = f"/games/{game_id}"
    for who in callers:
        for path in (
            g, f"{g}/view", f"{g}/legal", f"{g}/history", f"{g}/history?after=1",
            f"{g}/events", f"{g}/events?after=2", f"{g}/replay/1", f"{g}/replay/{version}",
            "/me", "/me/games", "/me/inbox", "/lobby", "/games",
        ):  # fmt: skip
            api.call("GET", path, who)
        legal = api.call("GET", f"{g}/legal", who).json.get("commands", [])
        for command in (c for c in REFUSED if c not in legal):
            api.call("POST", f"{g}/commands", who, json={"command": command})


def scan(api: Api, hidden: dict[str, bytes]) -> None:
    for method, path, response in api.seen:
        for name, value in hidden.items():
            assert value not in response.data, f"{name} leaked by {method} {path}"
    api.seen.clear()


def check_views(api: Api, game_id: str, players: dict[int, Who], spectator: Who) -> None:
    """Views (now and replayed) show a seat only its own hand and heists."""
    for seat, who in [*players.items(), (None, spectator), (None, None)]:
        for path in ("view", f"replay/{api.ok('GET', f'/games/{game_id}')['version']}"):
            body = api.ok("GET", f"/games/{game_id}/{path}", who)
            assert body["seat"] == seat
            view = body["view"]
            if "hand" in view:  # Famiglia: the other hand only as a count
                assert (view["hand"] is None) == (seat is None)
                assert "hand_sizes" in view and (view["hands"] is None) == (view["result"] is None)
            for other in view.get("players", []):  # Gangsta!: others' heists hidden
                if other["seat"] != seat and view["result"] is None:
                    assert other["heists"] is None and other["heist_influence"] is None


def play_and_scan(api: Api, service: CommandService, game: str, seats: int, moves: int) -> str:
    people = [api.player(f"P{i}") for i in range(seats)]
    spectator = api.player("Spy")
    created = api.new_game(people[0], game=game, seats=seats)
    game_id = created["game_id"]
    for who, invite in zip(people[1:], created["invites"], strict=True):
        api.join(who, game_id, invite["code"])
    by_seat = dict(enumerate(people))
    rng = random.Random(11)
    for _ in range(moves):
        table = api.ok("GET", f"/games/{game_id}")
        if table["result"] is not None:
            break
        hidden = secrets_of(service, game_id) | deck_orders(service, game_id)
        walk(api, game_id, [*people, spectator, None], table["version"])
        check_views(api, game_id, by_seat, spectator)
        scan(api, hidden)
        seat = rng.choice(table["to_act"])
        api.random_move(by_seat[seat], game_id, rng)
        scan(api, hidden)
    return game_id


def test_famiglia_hides_seed_deck_and_hands(api: Api, service: CommandService) -> None:
    game_id = play_and_scan(api, service, "famiglia", 2, moves=25)
    assert api.ok("GET", f"/games/{game_id}")["result"] is None, "the game ended too soon"


def test_gangsta_hides_seed_decks_and_influence(api: Api, service: CommandService) -> None:
    game_id = play_and_scan(api, service, "gangsta", 3, moves=60)
    views = [p["heists_completed"] for p in api.ok("GET", f"/games/{game_id}/view")["view"]
             ["players"]]  # fmt: skip
    assert sum(views) > 0, "no heist completed: the influence check saw nothing to hide"


def test_the_scanner_sees_the_seed_once_the_game_is_over(api: Api, service: CommandService) -> None:
    ann, bob = api.player("Ann"), api.player("Bob")
    created = api.new_game(ann, game="famiglia", seats=2)
    game_id = created["game_id"]
    api.join(bob, game_id, created["invites"][0]["code"])
    hidden = secrets_of(service, game_id)
    for _ in range(2):  # two passes in a row end a Famiglia game
        table = api.ok("GET", f"/games/{game_id}")
        api.play((ann, bob)[table["to_act"][0]], game_id, {"type": "pass"})
    api.seen.clear()
    api.call("GET", f"/games/{game_id}/history", None)
    with pytest.raises(AssertionError, match="seed base64 leaked"):
        scan(api, hidden)
