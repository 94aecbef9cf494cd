"""The search levels on Gangsta! (domain.bots over domain/gangsta/sample.py and playout.py):
decisions several seats owe at once, searched for a seat that is not the lowest, with 3 and 4
players; a level's move from a real seat's view, legal commands and redacted history."""

from __future__ import annotations

from typing import Any

import pytest

from domain import bots
from domain.core import replay
from domain.gangsta import game, playout
from domain.gangsta.messages import CancelHeist, ChooseHeist, Discard, KeepResource
from domain.gangsta.state import State
from domain.play import secret_for
from domain.rng import Rng


def fake_clock(tick: float = 0.01) -> Any:
    """A clock that advances ``tick`` seconds each time it is read: a 0.1 s level then runs
    about ten iterations whatever the machine's load."""
    now = [0.0]

    def clock() -> float:
        now[0] += tick
        return now[0]

    return clock


def searched(state: State, events: list[Any], seat: int, n: int) -> Any:
    legal = game.legal(state, seat)
    history = [game.redact(e, seat) for e in events]
    seen = bots.Seen(seat, history, fake_clock())
    command = bots.choose("gangsta", "medium", game.view(state, seat), legal, b"%d" % n, seen)
    assert command in legal
    return command


@pytest.mark.parametrize("seats", [3, 4])
def test_resource_choices_owed_by_every_seat_are_searched_for_the_last_seat(seats: int) -> None:
    events = game.start(seats, secret_for(400 + seats), game.options({"resources": True}))
    state = replay(game, events)
    assert set(game.to_act(state)) == set(range(seats))
    assert isinstance(searched(state, events, seats - 1, 0), KeepResource)


def test_discards_owed_by_several_seats_are_searched_for_each_of_them() -> None:
    """Play policy games until several seats owe discards at once (a snitch or a gang war),
    then search for every one of them, the highest seat first."""
    found = 0
    for n in range(40):
        events = game.start(4, secret_for(600 + n), game.options({}))
        state = replay(game, events)
        rng = Rng(n.to_bytes(8, "big"), b"search-discards")
        while game.result(state) is None and found < 2:
            waiting = sorted(game.to_act(state))
            if len(waiting) > 1 and state.owed:
                for seat in reversed(waiting):
                    assert isinstance(searched(state, events, seat, n), Discard)
                found += 1
            seat = waiting[0]
            command = playout.choose(state, seat, game.legal(state, seat), rng)
            new = game.decide(state, seat, command)
            for event in new:
                state = game.evolve(state, event)
            events += new
        if found >= 2:
            break
    assert found >= 2


def test_a_search_never_weighs_cancelling_the_heist_it_just_chose(monkeypatch: Any) -> None:
    """Cancelling returns to the position before the choice: a search weighing it could choose
    and cancel for ever. Play policy games until a seat has chosen a heist, then see what the
    medium level hands the search."""
    weighed: list[list[Any]] = []
    real = bots.search.search

    def spy(
        game_playout: Any, seat: int, view: Any, legal: list[Any], *args: Any, **kw: Any
    ) -> Any:
        weighed.append(legal)
        return real(game_playout, seat, view, legal, *args, **kw)

    monkeypatch.setattr(bots.search, "search", spy)
    for n in range(20):
        events = game.start(2, secret_for(700 + n), game.options({}))
        state = replay(game, events)
        rng = Rng(n.to_bytes(8, "big"), b"search-cancel")
        chose = False
        while game.result(state) is None:
            seat = min(game.to_act(state))
            legal = game.legal(state, seat)
            if chose and CancelHeist() in legal:
                assert not isinstance(searched(state, events, seat, n), CancelHeist)
                assert weighed and CancelHeist() not in weighed[-1]
                assert set(weighed[-1]) == set(legal) - {CancelHeist()}
                return
            command = playout.choose(state, seat, legal, rng)
            chose = isinstance(command, ChooseHeist)
            new = game.decide(state, seat, command)
            for event in new:
                state = game.evolve(state, event)
            events += new
    raise AssertionError("no seat chose a heist it could cancel")
