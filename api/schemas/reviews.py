"""A finished game's post-game review (``GET``/``POST /games/{id}/review``): where its job is,
and the review once done (``domain.review.Review``: decisions, players' summaries, the win
chances between decisions)."""

from __future__ import annotations

from typing import Literal

import msgspec

from domain.review import Review

ReviewState = Literal["none", "queued", "running", "done"]


class ReviewProgress(msgspec.Struct, frozen=True):
    """Decisions analysed so far, out of the game's ``total``."""

    done: int
    total: int


class ReviewOut(msgspec.Struct, frozen=True):
    """``state``: ``none`` (no review asked for: ``POST`` queues one), ``queued``,
    ``running`` (``progress`` set once the job counted the decisions) or ``done`` (``review``
    set). Never served for a game still running."""

    game_id: str
    state: ReviewState
    progress: ReviewProgress | None = None
    review: Review | None = None
