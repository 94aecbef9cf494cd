"""What the greedy bots share: pick the best-scoring legal command."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from domain.rng import Rng


def best(legal: list[Any], score: Callable[[Any], float], rng: Rng) -> Any:
    """The legal command with the highest score; ties are broken by the seeded generator (so
    equal choices do not always fall on the first one listed)."""
    scores = [score(c) for c in legal]
    top = max(scores)
    tied = [c for c, s in zip(legal, scores, strict=True) if s >= top - 1e-9]
    return tied[rng.below(len(tied))]
