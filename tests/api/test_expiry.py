"""Over HTTP, an open game nobody joined expires (workers.clocks.expiry does what ``expire`` does
here): a join after it is refused with 409 ``game_expired``, changing nothing; the game, its
history, the lobby and ``omerta verify`` show the ``expired`` event."""

from __future__ import annotations

import pytest
import redis

from services.games.commands import CommandService
from services.games.seats import player_games_key
from services.identity.players import Players
from tests.api.helpers import Api
from tests.services.test_real_server import omerta

pytestmark = pytest.mark.server


def snapshot(client: redis.Redis, game_id: str, player_id: str) -> dict[bytes, object]:
    """The game's keys and the player's game list (a request also notes the caller's device)."""
    names = [*client.keys(f"*{{{game_id}}}*"), player_games_key(player_id).encode()]
    return {key: client.dump(key) for key in names}


def test_a_join_of_an_expired_game_is_refused_and_changes_nothing(
    api: Api, service: CommandService, real_redis: redis.Redis, redis_url: str
) -> None:
    ann, bob = api.player("Ann"), api.player("Bob")
    created = api.new_game(ann, game="gangsta", seats=2, public=True)
    game_id = created["game_id"]
    assert [g["game_id"] for g in api.ok("GET", "/lobby")["games"]] == [game_id]
    assert Players(real_redis).close_unjoined(game_id)
    service.expire(game_id, 14)  # the job's step after the close (its projection: the hook)
    before = snapshot(real_redis, game_id, bob.id)
    for invite in (created["invites"][0]["code"], None):
        refused = api.call("POST", f"/games/{game_id}/join", bob, json={"invite": invite})
        assert refused.status_code == 409
        assert refused.headers["Content-Type"] == "application/problem+json"
        assert refused.json["code"] == "game_expired"
    assert snapshot(real_redis, game_id, bob.id) == before
    game = api.ok("GET", f"/games/{game_id}", ann)
    assert (game["result"]["reason"], game["result"]["winners"]) == ("expired", [])
    assert game["result"]["details"]["days"] == 14
    last = api.ok("GET", f"/games/{game_id}/history", ann)["events"][-1]
    assert (last["type"], last["event"]["days"]) == ("expired", 14)
    assert api.ok("GET", "/lobby")["games"] == []
    verified = omerta(redis_url, "verify", game_id)
    assert verified.returncode == 0, verified.stdout + verified.stderr
