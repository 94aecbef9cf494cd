"""Which seats a bot plays, and at which level: the AI seats chosen at creation
(``GameMeta.ai``) and every seat that became a bot seat at the table (a concession or a time-out:
``domain.table.bots``), played at ``GameMeta.takeover``. Everything that asks "is this seat AI,
which level" asks here: the AI jobs, the projector (due AI moves, seat summaries, the catch-up's
index), the API's seat lists and the refusal of a person's command for a bot seat."""

from __future__ import annotations

from typing import Any

from domain.table import bots
from services.eventstore.records import GameMeta


def ai_levels(meta: GameMeta, state: Any) -> dict[int, int | str]:
    """Seat -> bot level, for every seat a bot plays in the game at ``state``."""
    return {**{seat: meta.takeover for seat in sorted(bots(state))}, **meta.ai}


def taken_over(meta: GameMeta, state: Any) -> list[int]:
    """The seats of people that bots play now (not the AI seats chosen at creation)."""
    return sorted(seat for seat in bots(state) if seat not in meta.ai)
