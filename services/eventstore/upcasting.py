"""Upcasting: reading events stored with an older shape of their type.

An event type starts at schema 1. When a game changes an event's shape, it registers one
function per step that turns plain data of schema ``s`` into schema ``s + 1``::

    from services.eventstore.upcasting import upcaster

    @upcaster("famiglia", "card_played", 1)
    def _add_source(data: dict) -> dict:
        return {**data, "source": "hand"}

The current schema of a type is one past its last registered step (1 when none); new events are
written with it, and reading applies the missing steps in order before converting the plain data
to the game's ``Event`` union. Stored bytes are never rewritten (the hash chain covers them).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]


class Upcasters:
    """A registry keyed by (game, event type, schema) -> the step to schema + 1."""

    def __init__(self) -> None:
        self._steps: dict[tuple[str, str, int], Upcaster] = {}

    def register(self, game: str, type: str, schema: int) -> Callable[[Upcaster], Upcaster]:
        def add(fn: Upcaster) -> Upcaster:
            key = (game, type, schema)
            if key in self._steps:
                raise ValueError(f"an upcaster for {key} is already registered")
            self._steps[key] = fn
            return fn

        return add

    def current(self, game: str, type: str) -> int:
        schema = 1
        while (game, type, schema) in self._steps:
            schema += 1
        return schema

    def apply(self, game: str, type: str, schema: int, data: dict[str, Any]) -> dict[str, Any]:
        """Plain event data of ``schema`` brought to the current schema."""
        while (game, type, schema) in self._steps:
            data = self._steps[(game, type, schema)](data)
            schema += 1
        return data


UPCASTERS = Upcasters()
upcaster = UPCASTERS.register
