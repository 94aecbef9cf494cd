"""A game's chat: seated players write, everyone reads, bad text is refused and
nothing stored, and the messages live outside the game's events (``omerta verify`` unaffected).
Live delivery between two browsers is ``tests/web/test_chat``; the limit is in ``test_limits``."""

from __future__ import annotations

import pytest
import redis

from services.eventstore import audit
from services.games.chat import MAX_TEXT, chat_key
from services.games.commands import CommandService
from tests.api.helpers import Api, Who

pytestmark = pytest.mark.server


def seated_game(api: Api) -> tuple[str, Who, Who]:
    ann, bob = api.player("Ann"), api.player("Bob")
    made = api.new_game(ann, game="famiglia", seats=2)
    api.join(bob, made["game_id"], made["invites"][0]["code"])
    return made["game_id"], ann, bob


def chat(api: Api, game_id: str, after: int = 0, who: Who | None = None) -> list[dict]:
    return api.ok("GET", f"/games/{game_id}/chat?after={after}", who)["messages"]


def test_players_write_and_everyone_reads(api: Api, service: CommandService) -> None:
    game_id, ann, bob = seated_game(api)
    version = api.ok("GET", f"/games/{game_id}")["version"]
    first = api.ok("POST", f"/games/{game_id}/chat", ann, json={"text": "  good luck\n  "})
    assert (first["id"], first["seat"], first["text"]) == (1, 0, "good luck")
    second = api.ok("POST", f"/games/{game_id}/chat", bob, json={"text": "<script>x</script>"})
    assert (second["id"], second["seat"], second["text"]) == (2, 1, "<script>x</script>")
    assert chat(api, game_id) == [first, second]  # a spectator reads, without a token
    assert chat(api, game_id, 1, bob) == [second]
    assert chat(api, game_id, 2) == []
    # Outside the game's events: nothing appended, the chain verifies.
    assert api.ok("GET", f"/games/{game_id}")["version"] == version
    assert audit.verify(service.store, game_id) == []


def test_a_message_sent_again_with_its_idempotency_key_is_stored_once(api: Api) -> None:
    game_id, ann, bob = seated_game(api)
    key = {"Idempotency-Key": "web-0a1b2c3d4e5f60718293a4b5"}
    path = f"/games/{game_id}/chat"
    first = api.call("POST", path, ann, json={"text": "hello"}, headers=key)
    again = api.call("POST", path, ann, json={"text": "hello"}, headers=key)
    assert first.status_code == again.status_code == 201 and again.json == first.json
    assert chat(api, game_id) == [first.json]
    other = api.call("POST", path, ann, json={"text": "bye"}, headers=key)
    assert other.status_code == 409 and other.json["code"] == "idempotency_key_reused"
    theirs = api.ok("POST", path, bob, json={"text": "hello"}, headers=key)  # each seat's own
    assert chat(api, game_id) == [first.json, theirs]


def test_a_spectator_reads_but_does_not_write(api: Api) -> None:
    game_id, ann, _ = seated_game(api)
    api.ok("POST", f"/games/{game_id}/chat", ann, json={"text": "hi"})
    cy = api.player("Cy")
    refused = api.call("POST", f"/games/{game_id}/chat", cy, json={"text": "me too"})
    assert (refused.status_code, refused.json["code"]) == (403, "not_seated")
    assert refused.mimetype == "application/problem+json"
    assert api.call("POST", f"/games/{game_id}/chat", json={"text": "me too"}).status_code == 401
    assert [m["text"] for m in chat(api, game_id, who=cy)] == ["hi"]
    missing = api.call("GET", "/games/nothing-here/chat")
    assert (missing.status_code, missing.json["code"]) == (404, "unknown_game")


@pytest.mark.parametrize(
    ("text", "code", "case"),
    [
        ("x" * (MAX_TEXT + 1), "bad_chat", "length"),
        ("", "bad_chat", "empty"),
        (" \n\t\u0007\u202e ", "bad_chat", "empty"),  # only spaces and control characters
        (42, "bad_chat", "not_text"),
        (None, "bad_chat", "not_text"),
        (["hi"], "bad_chat", "not_text"),
    ],
)
def test_bad_text_is_refused_and_nothing_stored(
    api: Api, real_redis: redis.Redis, text: object, code: str, case: str
) -> None:
    game_id, ann, _ = seated_game(api)
    refused = api.call("POST", f"/games/{game_id}/chat", ann, json={"text": text})
    assert refused.status_code == 400, refused.json
    assert refused.mimetype == "application/problem+json"
    assert (refused.json["code"], refused.json["params"]["case"]) == (code, case)
    assert chat(api, game_id) == [] and not real_redis.exists(chat_key(game_id))


def test_control_characters_are_dropped(api: Api) -> None:
    game_id, ann, _ = seated_game(api)
    family = "\U0001f468\u200d\U0001f469"  # its joiner stays
    kept = f"abc  d {family} "
    sent = f"a\u0000b\u202ec\r\nd {family} " + "y" * (MAX_TEXT - len(kept))
    stored = api.ok("POST", f"/games/{game_id}/chat", ann, json={"text": sent})["text"]
    assert stored == kept + "y" * (MAX_TEXT - len(kept))  # counted once cleaned
    assert api.call("POST", f"/games/{game_id}/chat", ann, json={}).status_code == 400


def test_the_stream_brings_the_chat_and_the_rematch(api: Api) -> None:
    """A finished game's stream with ``chat`` stays open for the chat (the app's streams last
    0.5 s here) and names the rematch; without it, it ends as before."""
    game_id, ann, bob = seated_game(api)
    api.ok("POST", f"/games/{game_id}/chat", ann, json={"text": "one"})
    for _ in range(2):
        to_act = api.ok("GET", f"/games/{game_id}")["to_act"][0]
        api.play((ann, bob)[to_act], game_id, {"type": "pass"})
    rematch = api.ok("POST", f"/games/{game_id}/rematch", bob)["game_id"]
    version = api.ok("GET", f"/games/{game_id}")["version"]
    body = api.call("GET", f"/games/{game_id}/events?after={version}&chat=0").get_data(True)
    assert '"text":"one"' in body and "event: chat\n" in body
    assert f'event: rematch\ndata: {{"game":"{rematch}","by":"{bob.id}"}}' in body
    assert "event: end" not in body
    plain = api.call("GET", f"/games/{game_id}/events?after={version}").get_data(True)
    assert "event: end" in plain and "event: chat" not in plain
