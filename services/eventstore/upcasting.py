"""Upcasting: reading events stored with an older shape of their type.

An event type starts at schema 1. When a game changes an event's shape, one function per step
turns plain data of schema ``s`` into schema ``s + 1``; the steps are listed in ``UPCASTERS``
(no module adds to it as it is imported)::

    def _add_source(data: dict) -> dict:
        return {**data, "source": "hand"}

    UPCASTERS = Upcasters({("famiglia", "card_played", 1): _add_source})

The current schema of a type is one past its last registered step (1 when none); new events are
written with it, and reading applies the missing steps in order before converting the plain data
to the game's ``Event`` union. Stored bytes are never rewritten (the hash chain covers them).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]


class Upcasters:
    """A registry keyed by (game, event type, schema) -> the step to schema + 1."""

    def __init__(self, steps: Mapping[tuple[str, str, int], Upcaster] | None = None) -> None:
        self._steps: dict[tuple[str, str, int], Upcaster] = dict(steps or {})

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
"""The service's steps (none yet): every reader's default."""
