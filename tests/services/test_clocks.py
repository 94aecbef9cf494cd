"""The clock math (services.games.clocks): per move, bank with increment and cap, seats owing at
once,
vacations; and the validation of time controls at creation."""

from __future__ import annotations

import pytest

from services.errors import BadRequest
from services.games import clocks
from services.games.clocks import Bank, PerMove, SeatClock

S = 1000  # ms


def test_per_move_gives_each_stretch_the_whole_limit() -> None:
    clock = PerMove(60)
    # Seat 0 used 50 s, then 59 s: each stretch had its own 60 s. Now it owes since 500 s.
    stretches = [(0, 0, 50 * S), (1, 50 * S, 100 * S), (0, 100 * S, 159 * S)]
    got = clocks.seat_clocks(clock, stretches, {0: 500 * S}, [0, 1], 0, {})
    assert got == [SeatClock(0, 60 * S, 500 * S, 560 * S), SeatClock(1, 60 * S)]


def test_bank_spends_adds_the_increment_and_caps() -> None:
    clock = Bank(initial=100, increment=30, cap=120)
    # 100 - 40 + 30 = 90; 90 - 10 + 30 = 110; 110 - 0 + 30 = 140, capped at 120.
    stretches = [(0, 0, 40 * S), (0, 50 * S, 60 * S), (0, 70 * S, 70 * S)]
    (got,) = clocks.seat_clocks(clock, stretches, {0: 80 * S}, [0], 0, {})
    assert got == SeatClock(0, 120 * S, 80 * S, 200 * S)


def test_an_overspent_bank_counts_as_empty_before_the_increment() -> None:
    clock = Bank(initial=10, increment=5)
    (got,) = clocks.seat_clocks(clock, [(0, 0, 30 * S)], {0: 40 * S}, [0], 0, {})
    assert got.bank == 5 * S and got.deadline == 45 * S


def test_seats_owing_at_once_run_their_own_clocks() -> None:
    clock = Bank(initial=100)
    # Both owe since 10 s; seat 1 had spent 30 s before.
    got = clocks.seat_clocks(clock, [(1, 0, 30 * S)], {0: 10 * S, 1: 10 * S}, [0, 1], 0, {})
    assert [c.deadline for c in got] == [110 * S, 80 * S]


def test_no_clock_runs_before_every_seat_is_taken() -> None:
    clock = PerMove(60)
    assert clocks.seat_clocks(clock, [], {0: 0}, [0, 1], None, {}) == [
        SeatClock(0, 60 * S),
        SeatClock(1, 60 * S),
    ]
    # Taken at 100 s: the stretch owed since 0 counts from then; one before it counts nothing.
    bank = Bank(initial=60)
    (got,) = clocks.seat_clocks(bank, [(0, 0, 50 * S)], {0: 60 * S}, [0], 100 * S, {})
    assert got == SeatClock(0, 60 * S, 100 * S, 160 * S)


def test_ai_seats_have_no_clock() -> None:
    got = clocks.seat_clocks(PerMove(60), [], {0: 0, 1: 0}, [0], 0, {})
    assert [c.seat for c in got] == [0]


def test_a_vacation_stops_the_clock() -> None:
    clock = Bank(initial=100)
    vacation = [(20 * S, 50 * S)]
    # A stretch 0..60 s with 30 s of vacation spent 30 s.
    (got,) = clocks.seat_clocks(clock, [(0, 0, 60 * S)], {0: 70 * S}, [0], 0, {0: vacation})
    assert got.bank == 70 * S and got.deadline == 140 * S
    # Owing since 10 s with the vacation ahead: 10 s counted before it, the rest after.
    (got,) = clocks.seat_clocks(clock, [], {0: 10 * S}, [0], 0, {0: vacation})
    assert got.deadline == 140 * S


def test_runs_out_skips_every_pause_it_meets() -> None:
    pauses = [(10, 20), (25, 30), (100, 200)]
    assert clocks.runs_out(0, 5, pauses) == 5
    assert clocks.runs_out(0, 12, pauses) == 22
    assert clocks.runs_out(15, 10, pauses) == 35
    assert clocks.runs_out(0, 100, pauses) == 215
    assert clocks.counted(0, 215, pauses) == 100


def test_low_time_is_a_tenth_of_the_allowance_or_an_hour() -> None:
    assert clocks.low_time_at(60 * S, 1000 * S) == 994 * S
    assert clocks.low_time_at(72 * 3600 * S, 10**9) == 10**9 - 3600 * S


@pytest.mark.parametrize(
    "data, case",
    [
        ({"type": "per_move", "seconds": 0}, "range"),
        ({"type": "per_move", "seconds": 10**9}, "range"),
        ({"type": "per_move", "seconds": True}, "range"),
        ({"type": "per_move"}, "range"),
        ({"type": "bank", "initial": 60, "cap": 30}, "range"),
        ({"type": "bank", "initial": 60, "increment": -1}, "range"),
        ({"type": "bank", "initial": 60, "seconds": 3}, "field"),
        ({"type": "hourglass"}, "type"),
    ],
)
def test_bad_clocks_are_refused(data: dict, case: str) -> None:
    with pytest.raises(BadRequest) as refused:
        clocks.parse_clock(data)
    assert refused.value.code == "bad_clock" and refused.value.params["case"] == case


def test_good_clocks_parse() -> None:
    assert clocks.parse_clock(None) is None
    assert clocks.parse_clock({"type": "none"}) is None
    assert clocks.parse_clock({"type": "per_move", "seconds": 60}) == PerMove(60)
    bank = {"type": "bank", "initial": 60, "increment": 1, "cap": 90}
    assert clocks.parse_clock(bank) == Bank(60, 1, 90)
    # the setting for the tests of time-outs
    assert clocks.parse_clock({"type": "per_move", "seconds": 1}, shortest=1) == PerMove(1)


def test_the_time_out_policy_is_validated() -> None:
    levels = ("random", "greedy")
    assert clocks.parse_on_timeout(None, levels) == clocks.OnTimeout("takeover", "greedy")
    assert clocks.parse_on_timeout({"policy": "forfeit"}, levels).policy == "forfeit"
    for bad, case in (({"policy": "resign"}, "policy"), ({"level": "godlike"}, "level")):
        with pytest.raises(BadRequest) as refused:
            clocks.parse_on_timeout(bad, levels)
        assert refused.value.code == "bad_on_timeout" and refused.value.params["case"] == case
