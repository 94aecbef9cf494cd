"""Time controls and the clock math: pure and deterministic.

A game's time control (``GameMeta.clock``) is one of

* ``None``: no clock;
* ``PerMove(seconds)``: each stretch of owing a decision gets the whole limit;
* ``Bank(initial, increment, cap)`` (seconds): a stretch spends the seat's bank; when it ends the
  increment is added, the total capped at ``cap`` (a bank spent below zero counts as zero).

A *stretch* is the time from the command boundary after which a seat owes a decision to the one
after which it no longer does (``workers.projection.projector`` folds them from the events' own
times, ``Envelope.time``): several seats owe at once in Gangsta!, each its own stretch. Clocks run
only for seats of people (AI seats and seats taken over by a bot have none), and only from the
moment every seat of the game was taken (``start``): a game waiting for a player at an invite runs
no clock. Time a player spends on vacation (``services.games.vacation``) does not count: their
clocks stop.

Everything is a function of its inputs: the stretches (from the event log), the table's start and
the vacations (both stored durably), so ``omerta rebuild`` gives the same numbers. Vacations only
ever change from now on (a vacation starts now, an early end ends it now), so the past a clock
has counted never changes under it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

import msgspec

from services.errors import BadRequest

DAY = 86_400
# The shortest limit a game may be created with (a move, a bank): play by web is slow, and a
# seat timed out in seconds is no game. A setting (OMERTA_MIN_CLOCK_SECONDS) lowers it for the
# tests of time-outs, which must not wait minutes.
MIN_CLOCK = 60
MAX_PER_MOVE = 30 * DAY
MAX_BANK = 60 * DAY
MAX_INCREMENT = 7 * DAY


class PerMove(msgspec.Struct, frozen=True, tag="per_move", tag_field="type"):
    seconds: int


class Bank(msgspec.Struct, frozen=True, tag="bank", tag_field="type"):
    initial: int
    increment: int = 0
    cap: int | None = None  # None: the initial allowance

    @property
    def limit(self) -> int:
        return self.initial if self.cap is None else self.cap


Clock = PerMove | Bank


class OnTimeout(msgspec.Struct, frozen=True):
    """What happens to a seat whose time ran out: ``takeover`` (a bot of ``level`` plays on)
    or ``forfeit`` (2 seats: the game ends as a loss; 3-4: a bot plays on, unrated)."""

    policy: Literal["takeover", "forfeit"] = "takeover"
    level: str = "greedy"


Interval = tuple[int, int]  # [start, end) in ms since the epoch


class SeatClock(msgspec.Struct, frozen=True):
    """A seat's clock at a projection: ``bank`` ms left (of the current stretch's allowance,
    counted at its start; per move: the limit), ``since`` when the running stretch began
    counting (None: not running), ``deadline`` when it runs out (vacations included; None: not
    running)."""

    seat: int
    bank: int
    since: int | None = None
    deadline: int | None = None


def _bad(message: str, case: str, **params: Any) -> BadRequest:
    return BadRequest(message, code="bad_clock", params={"case": case, **params})


def _seconds(value: Any, name: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise _bad(
            f"{name} is a whole number of seconds from {low} to {high}, not {value!r}",
            "range",
            field=name,
            value=str(value),
            min=low,
            max=high,
        )
    return value


def parse_clock(data: Mapping[str, Any] | None, shortest: int = MIN_CLOCK) -> Clock | None:
    """The time control of a creation's ``clock`` (plain data), validated; ``bad_clock``.
    ``shortest``: the fewest seconds a move's limit or a bank may start with."""
    if data is None or (data.get("type", "none") == "none" and set(data) <= {"type"}):
        return None
    kind = data.get("type")
    if kind == "per_move":
        _only(data, {"type", "seconds"})
        return PerMove(_seconds(data.get("seconds"), "seconds", shortest, MAX_PER_MOVE))
    if kind == "bank":
        _only(data, {"type", "initial", "increment", "cap"})
        initial = _seconds(data.get("initial"), "initial", shortest, MAX_BANK)
        increment = _seconds(data.get("increment", 0), "increment", 0, MAX_INCREMENT)
        cap = data.get("cap")
        if cap is not None:
            cap = _seconds(cap, "cap", initial, MAX_BANK)
        return Bank(initial, increment, cap)
    raise _bad(
        f"a clock's type is none, per_move or bank, not {kind!r}",
        "type",
        type=str(kind),
        types=["none", "per_move", "bank"],
    )


def _only(data: Mapping[str, Any], allowed: set[str]) -> None:
    extra = sorted(set(data) - allowed)
    if extra:
        raise _bad(
            f"a {data['type']} clock has no field {extra[0]!r}",
            "field",
            field=extra[0],
            fields=sorted(allowed),
        )


def parse_on_timeout(data: Mapping[str, Any] | None, levels: Sequence[str]) -> OnTimeout:
    """The creation's ``on_timeout`` (plain data), validated against the bot ``levels``."""
    if data is None:
        return OnTimeout()
    policy = data.get("policy", "takeover")
    level = data.get("level", "greedy")  # forfeit too: the bot of a 3-4 seat game's forfeit
    if policy not in ("takeover", "forfeit") or not set(data) <= {"policy", "level"}:
        raise BadRequest(
            f"on_timeout is {{policy: takeover, level}} or {{policy: forfeit}}, not {data!r}",
            code="bad_on_timeout",
            params={"case": "policy", "policy": str(policy), "policies": ["takeover", "forfeit"]},
        )
    if level not in levels:
        raise BadRequest(
            f"{level!r} is not a bot level (use {', '.join(levels)})",
            code="bad_on_timeout",
            params={"case": "level", "level": str(level), "levels": list(levels)},
        )
    return OnTimeout(policy, str(level))


def allowance_ms(clock: Clock) -> int:
    """A stretch's whole allowance at the start of a game (per move: every stretch's)."""
    return 1000 * (clock.seconds if isinstance(clock, PerMove) else clock.initial)


def counted(begin: int, end: int, paused: Iterable[Interval]) -> int:
    """The ms of [begin, end) outside the ``paused`` intervals (sorted, not overlapping)."""
    total = max(0, end - begin)
    for start, stop in paused:
        total -= max(0, min(stop, end) - max(start, begin))
    return total


def runs_out(begin: int, left: int, paused: Iterable[Interval]) -> int:
    """When ``left`` ms counted from ``begin`` are spent, the ``paused`` intervals (sorted, not
    overlapping) not counting."""
    at = begin
    for start, stop in paused:
        if stop <= at:
            continue
        if start >= at + left:
            break
        left -= max(0, start - at)
        at = max(at, stop)
    return at + left


def seat_clocks(
    clock: Clock,
    stretches: Sequence[tuple[int, int, int]],
    due: Mapping[int, int],
    people: Iterable[int],
    start: int | None,
    paused: Mapping[int, Sequence[Interval]],
) -> list[SeatClock]:
    """Every person's seat's clock.

    ``stretches``: the finished stretches (seat, began, ended) in order; ``due``: seat -> since
    when it owes now (the running stretches); ``people``: the seats with a clock; ``start``:
    when every seat was taken (None: not yet, no clock runs); ``paused``: seat -> its owner's
    vacations."""
    full = allowance_ms(clock)
    seats = sorted(set(people))
    bank = dict.fromkeys(seats, full)
    if start is None:
        return [SeatClock(s, full) for s in seats]
    if isinstance(clock, Bank):
        cap, increment = 1000 * clock.limit, 1000 * clock.increment
        for seat, began, ended in stretches:
            if seat in bank and ended > start:
                spent = counted(max(began, start), ended, paused.get(seat, ()))
                bank[seat] = min(cap, max(0, bank[seat] - spent) + increment)
    out = []
    for seat in seats:
        since = due.get(seat)
        if since is None:
            out.append(SeatClock(seat, bank[seat]))
            continue
        since = max(since, start)
        deadline = runs_out(since, bank[seat], paused.get(seat, ()))
        out.append(SeatClock(seat, bank[seat], since, deadline))
    return out


LOW_TIME_MS = 3_600_000


def low_time_at(left: int, deadline: int) -> int:
    """When a stretch with ``left`` ms counts as running low (the "time running low" notice):
    10 % of its allowance (per move: the limit; bank: what was left at its start) or one hour
    before the deadline, whichever is nearer the deadline."""
    return deadline - min(left // 10, LOW_TIME_MS)
