"""Commands and events round-trip through msgspec msgpack and JSON; the wire form is checked."""

from __future__ import annotations

import msgspec
import pytest

from domain.famiglia import game
from domain.famiglia.messages import Recruit
from domain.play import play, secret_for

from .helpers import eager_policy


def _games(count: int):
    for n in range(count):
        policies = [eager_policy(f"wire-{n}-{s}".encode()) for s in range(2)]
        yield n, list(play(game, 2, secret_for(n), game.options(None), policies))


def test_commands_and_events_round_trip_in_msgpack_and_json():
    seen_events: set[str] = set()
    seen_commands: set[str] = set()
    for n, steps in _games(40):
        events = game.start(2, secret_for(n), game.options(None))
        events += [e for s in steps for e in s.events]
        commands = [s.command for s in steps]
        commands += [c for s in steps for c in game.legal(s.state, s.state.current)]
        for kind, items, seen in (
            (game.Event, events, seen_events),
            (game.Command, commands, seen_commands),
        ):
            for item in items:
                seen.add(type(item).__name__)
                assert msgspec.msgpack.decode(msgspec.msgpack.encode(item), type=kind) == item
                assert msgspec.json.decode(msgspec.json.encode(item), type=kind) == item
                redacted = game.redact(item, None) if kind is game.Event else item
                assert msgspec.json.decode(msgspec.json.encode(redacted), type=kind) == redacted
    assert len(seen_events) == 13, seen_events  # every event type
    assert len(seen_commands) == 7


def test_json_wire_form_uses_type_tags_and_compact_cards():
    command = msgspec.json.decode(
        b'{"type": "recruit", "card": "red-3", "to_area": "red-2", "back_to_hand": "green-3"}',
        type=game.Command,
    )
    assert command == Recruit(card="red-3", to_area="red-2", back_to_hand="green-3")


@pytest.mark.parametrize(
    "raw",
    [
        b'{"type": "recruit", "card": "purple-3"}',
        b'{"type": "recruit", "card": "red-5"}',
        b'{"type": "refresh", "card": "red-3", "extra": 1}',
        b'{"type": "fly", "card": "red-3"}',
        b'{"type": "play_brute", "card": "yellow-2", "target": "red-3", "amount": "2"}',
    ],
)
def test_malformed_commands_fail_to_decode(raw):
    with pytest.raises(msgspec.ValidationError):
        msgspec.json.decode(raw, type=game.Command)
