"""Vacations: ``GET/POST/DELETE /me/vacation`` (``services.games.vacation``).

Starting or ending a vacation moves the deadlines of every running game of the player: each
gets its clock revision bumped and is marked changed, so the projection writes the new deadlines
and arms their jobs."""

from __future__ import annotations

import datetime as dt
from typing import Annotated

import msgspec
from flask import Blueprint, Response

from api.context import caller, deps
from api.http.jsonio import body, reply
from services.errors import BadRequest
from services.eventstore.store import now_ms
from services.games import vacation

bp = Blueprint("clocks", __name__)


class NewVacation(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Start a vacation now: for ``days`` days, or ``until`` a date (``YYYY-MM-DD``: back at
    the start of that day, UTC). One of the two."""

    days: Annotated[int, msgspec.Meta(ge=1, le=366)] | None = None
    until: Annotated[str, msgspec.Meta(max_length=10)] | None = None


class VacationOut(msgspec.Struct, frozen=True):
    """``allowance`` days a year, ``days_left`` this ``year``; ``current`` the running
    vacation ({start, end} ms) or null; ``periods`` every vacation taken ([start, end] ms)."""

    allowance: int
    days_left: int
    year: int
    current: dict[str, int] | None
    periods: list[tuple[int, int]]


def _out(found: vacation.VacationState) -> Response:
    current = None
    if found.current is not None:
        current = {"start": found.current[0], "end": found.current[1]}
    return reply(VacationOut(found.allowance, found.days_left, found.year, current, found.periods))


def _until(text: str) -> int:
    try:
        day = dt.date.fromisoformat(text)
    except ValueError:
        raise BadRequest(
            f"until is a date YYYY-MM-DD, not {text!r}",
            code="bad_vacation",
            params={"case": "date", "until": text},
        ) from None
    return int(dt.datetime(day.year, day.month, day.day, tzinfo=dt.UTC).timestamp() * 1000)


def _moved_clocks(player_id: str) -> None:
    """The player's running games: their clocks changed (see the module docstring)."""
    d = deps()
    running = [
        s
        for s in d.read_models.summaries(d.players.games_of(player_id))
        if s.status == "running" and s.clock is not None
    ]
    vacation.bump(d.store, [s.game_id for s in running])
    for summary in running:
        d.commands.notify(summary.game_id, summary.version)


@bp.get("/me/vacation")
def show_vacation() -> Response:
    player = caller()
    found = vacation.periods(deps().store, player.id)
    return _out(vacation.state(found, now_ms(), deps().settings.vacation_days))


@bp.post("/me/vacation")
def start_vacation() -> Response:
    player = caller()
    sent = body(NewVacation)
    until = _until(sent.until) if sent.until is not None else None
    found = vacation.start(
        deps().store, player.id, now_ms(), deps().settings.vacation_days, sent.days, until
    )
    _moved_clocks(player.id)
    return _out(found)


@bp.delete("/me/vacation")
def end_vacation() -> Response:
    player = caller()
    found = vacation.end(deps().store, player.id, now_ms(), deps().settings.vacation_days)
    _moved_clocks(player.id)
    return _out(found)
