"""Vacations: a player pauses every clock of theirs for a number of days a year.

Design. A vacation is a period [start, end) kept durably per player (``player:{<id>}:vacations``,
JSON ``[[start, end], ...]`` in ms, oldest first): it starts now and ends after the days asked
for (or at a date), and an early end moves its end to now. The clock math
(``services.games.clocks``) takes the periods of each seat's player as input: time inside them does
not count, so a seat's deadline is pushed back by the vacation (the deadline shown is the one
that will hold if the vacation runs its course). Since periods only ever change from now on, the
clocks counted so far never change, and ``omerta rebuild`` (which reads the same periods) gives
the same numbers.

A change bumps the clock revision of each running game of the player (``clock_rev``, part of the
read model's checkpoint) and marks the game changed, so the projection writes the new deadlines
and arms their jobs; a deadline job that fires at an old deadline finds the deadline moved and
arms itself at the new one instead of timing the seat out (``workers.clocks.deadlines``).

Allowance: ``OMERTA_VACATION_DAYS`` days per calendar year (UTC), counted by the year a vacation
starts in, each vacation counting its days begun (an early end gives the days not begun back).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, cast

import msgspec
from redis.client import Pipeline

from services.errors import BadRequest, ServiceError
from services.eventstore.store import unavailable
from services.games.clocks import Interval
from services.platform.config import Store

DAY_MS = 86_400_000


class VacationRefused(ServiceError):
    status = 409
    code = "vacation_refused"


class VacationState(msgspec.Struct, frozen=True):
    """``current``: the vacation running now ([start, end) ms), if any; ``days_left``: what
    this year's allowance still holds (``allowance`` days a year)."""

    allowance: int
    days_left: int
    year: int
    current: tuple[int, int] | None
    periods: list[tuple[int, int]]


def vacations_key(player_id: str) -> str:
    return f"player:{{{player_id}}}:vacations"


def clock_rev_key(game_id: str) -> str:
    """How often the game's clocks changed without an event (vacations): the read model's
    checkpoint includes it (``workers.projection.projector``)."""
    return f"clock:{{{game_id}}}:rev"


_periods = msgspec.json.Decoder(list[tuple[int, int]])


def decode(raw: bytes | None) -> list[Interval]:
    return [] if raw is None else _periods.decode(raw)


def periods(client: Store, player_id: str) -> list[Interval]:
    with unavailable():
        return decode(cast(bytes | None, client.get(vacations_key(player_id))))


# The read side's reads, queued on its pipeline (one round trip for all it reads): the function
# returned decodes the record from the pipeline's answers, taking its own in order.


def read_periods(pipe: Pipeline, player_id: str) -> Callable[[Iterator[Any]], list[Interval]]:
    """The player's vacations."""
    pipe.get(vacations_key(player_id))
    return lambda found: decode(next(found))


def read_clock_rev(pipe: Pipeline, game_id: str) -> Callable[[Iterator[Any]], int]:
    """The game's clock revision (0 before any vacation changed its clocks)."""
    pipe.get(clock_rev_key(game_id))
    return lambda found: int(next(found) or 0)


def year_of(ms: int) -> int:
    return dt.datetime.fromtimestamp(ms / 1000, dt.UTC).year


def days_of(period: Interval) -> int:
    start, end = period
    return -(-(end - start) // DAY_MS)


def days_used(found: Iterable[Interval], year: int) -> int:
    return sum(days_of(p) for p in found if year_of(p[0]) == year)


def running(found: Sequence[Interval], now: int) -> Interval | None:
    return next((p for p in found if p[0] <= now < p[1]), None)


def state(found: list[Interval], now: int, allowance: int) -> VacationState:
    year = year_of(now)
    return VacationState(
        allowance=allowance,
        days_left=max(0, allowance - days_used(found, year)),
        year=year,
        current=running(found, now),
        periods=found,
    )


def start(
    client: Store, player_id: str, now: int, allowance: int, days: int | None = None,
    until: int | None = None,
) -> VacationState:  # fmt: skip
    """Start a vacation now, for ``days`` days or until ``until`` (ms); refused (409
    ``vacation_refused``) while one runs or past this year's allowance."""
    if (days is None) == (until is None):
        raise BadRequest(
            "a vacation is for a number of days or until a date (one of them)",
            code="bad_vacation",
            params={"case": "one_of"},
        )
    end = now + days * DAY_MS if days is not None else until
    assert end is not None
    if end <= now:
        raise BadRequest(
            "a vacation ends after it starts", code="bad_vacation", params={"case": "past"}
        )
    found = periods(client, player_id)
    if running(found, now) is not None:
        raise VacationRefused(
            "a vacation is running already: end it first", params={"case": "running"}
        )
    left = state(found, now, allowance).days_left
    wanted = days_of((now, end))
    if wanted > left:
        raise VacationRefused(
            f"{wanted} days of vacation asked, {left} left this year",
            params={"case": "days", "days": wanted, "left": left},
        )
    found.append((now, end))
    _store(client, player_id, found)
    return state(found, now, allowance)


def end(client: Store, player_id: str, now: int, allowance: int) -> VacationState:
    """End the running vacation now (nothing to do without one)."""
    found = periods(client, player_id)
    current = running(found, now)
    if current is not None:
        found = [p for p in found if p != current]
        if now > current[0]:
            found.append((current[0], now))
        found.sort()
        _store(client, player_id, found)
    return state(found, now, allowance)


def _store(client: Store, player_id: str, found: list[Interval]) -> None:
    with unavailable():
        client.set(vacations_key(player_id), msgspec.json.encode(sorted(found)))


def bump(client: Store, game_ids: Iterable[str]) -> None:
    """The clocks of these games changed outside their streams: their next projection writes."""
    pipe = client.pipeline(transaction=False)
    for game_id in game_ids:
        pipe.incr(clock_rev_key(game_id))
    with unavailable():
        pipe.execute()
