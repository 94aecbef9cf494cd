"""Domain events to and from stored bytes, for one game, with upcasting on read."""

from __future__ import annotations

from typing import Any

import msgspec

from domain.core import Game
from services.eventstore.records import Envelope
from services.eventstore.upcasting import UPCASTERS, Upcasters

_encode = msgspec.msgpack.Encoder().encode


def event_type(event: msgspec.Struct) -> str:
    """The tag of a domain event (its ``type`` on the wire)."""
    return str(type(event).__struct_config__.tag)


class EventCodec:
    def __init__(self, game: Game, upcasters: Upcasters = UPCASTERS) -> None:
        self.game = game
        self.upcasters = upcasters
        self._decoder = msgspec.msgpack.Decoder(game.Event)

    def encode(self, event: msgspec.Struct) -> tuple[str, int, bytes]:
        """(type, current schema, MessagePack bytes) of a domain event."""
        kind = event_type(event)
        return kind, self.upcasters.current(self.game.name, kind), _encode(event)

    def decode(self, envelope: Envelope) -> Any:
        data = envelope.data
        if envelope.schema == self.upcasters.current(self.game.name, envelope.type):
            return self._decoder.decode(data)
        plain = msgspec.msgpack.decode(data)
        plain = self.upcasters.apply(self.game.name, envelope.type, envelope.schema, plain)
        return msgspec.convert(plain, self.game.Event)
