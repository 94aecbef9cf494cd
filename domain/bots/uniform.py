"""The ``random`` level: uniform over the legal commands."""

from __future__ import annotations

from typing import Any

from domain.rng import Rng


def choose(view: Any, legal: list[Any], rng: Rng) -> Any:
    return legal[rng.below(len(legal))]
