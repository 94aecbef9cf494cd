"""A client verifies a finished game's history with nothing but what the OpenAPI document
states: the chain of ``prev`` and ``hash``, and the commitment to the game's secret."""

from __future__ import annotations

import base64
import hashlib
from typing import Any

import pytest

from tests.api.helpers import Api

pytestmark = pytest.mark.server

# What the document states, word for word (the algorithm the checks below follow).
CHAIN = (
    "`prev` of version 1 is 64 zeros, `prev` of version v is the `hash` of version v-1",
    "`hash` is the hex SHA-256 of the event's record as the server stores it",
)
COMMITMENT = (
    "`commitment`: the hex SHA-256 of the secret's `salt` bytes followed by its `seed` bytes",
    "`secret` (`seed` and `salt`, base64)",
)


def _finished_history(api: Api) -> list[dict[str, Any]]:
    ann, bob = api.player("Ann"), api.player("Bob")
    created = api.new_game(ann, game="famiglia", seats=2)
    game_id = created["game_id"]
    api.join(bob, game_id, created["invites"][0]["code"])
    api.ok("POST", f"/games/{game_id}/commands", bob, json={"command": {"type": "concede"}})
    return api.ok("GET", f"/games/{game_id}/history", ann)["events"]


def test_a_finished_game_verifies_by_the_document_alone(api: Api) -> None:
    document = api.ok("GET", "/openapi.json")
    history = document["paths"]["/games/{game_id}/history"]["get"]
    stated = history["description"] + document["components"]["schemas"]["EventOut"]["description"]
    for sentence in (*CHAIN, *COMMITMENT):
        assert sentence in " ".join(stated.split())
    events = _finished_history(api)
    previous = "0" * 64
    for event in events:
        assert event["prev"] == previous
        assert len(bytes.fromhex(event["hash"])) == 32
        previous = event["hash"]
    committed = [e["event"]["commitment"] for e in events if "commitment" in e["event"]]
    secret = events[-1]["event"]["secret"]
    salt, seed = base64.b64decode(secret["salt"]), base64.b64decode(secret["seed"])
    assert committed == [hashlib.sha256(salt + seed).hexdigest()]
