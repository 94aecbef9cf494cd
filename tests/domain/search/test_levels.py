"""The search levels of ``domain.bots``: what they are given, and when they exist."""

from __future__ import annotations

import sys
import types
from typing import Any

import msgspec
import pytest

from domain import GAMES, bots
from domain.core import RuleViolation
from domain.famiglia import game as famiglia
from domain.famiglia.messages import Pass, Recruit
from domain.play import secret_for
from domain.rng import Rng
from domain.search import MARGIN_WEIGHT, generic
from domain.search.playout import Generic
from domain.table import Undo, can_undo
from tests.domain.famiglia.helpers import make_state
from tests.domain.search.test_ismcts import mid_game, nothing_hidden, reshuffled_deck


def test_a_game_without_a_sample_module_is_offered_no_search_level() -> None:
    assert bots.sampler("no_such_game") is None
    assert bots.levels("no_such_game") == bots.LEVELS


def test_a_search_level_without_a_sampler_anywhere_is_refused(monkeypatch: Any) -> None:
    monkeypatch.setattr(bots, "sampler", lambda game: None)
    with pytest.raises(RuleViolation) as info:
        bots.level_name("expert")
    assert info.value.code == "bad_ai_level"


def test_an_unknown_level_is_refused_with_every_level_there_is() -> None:
    with pytest.raises(RuleViolation) as info:
        bots.level_name("godlike")
    assert info.value.params["levels"] == ["random", "greedy", "medium", "expert"]
    assert "medium" in str(info.value) and "expert" in str(info.value)


def test_expert_searches_with_the_games_sampler_and_stops_on_its_clock(monkeypatch: Any) -> None:
    """The last turn of a Famiglia game (nothing hidden is left): the free red-0 wins."""
    state = make_state(
        areas=("red-1", "red-0 red-0 red-0 red-0"), street="red-0 blue-0", final_turns=0
    )
    samples = []

    def sample(*args: Any) -> Any:
        samples.append(1)
        return nothing_hidden(state)(*args)

    monkeypatch.setattr(bots, "sampler", lambda game: sample if game == "famiglia" else None)
    assert "expert" in bots.levels("famiglia")
    readings: list[float] = []

    def clock() -> float:  # 10 ms a reading
        readings.append(len(readings) / 100)
        return readings[-1]

    iterations: list[int] = []
    seen = bots.Seen(seat=0, history=[], clock=clock, report=iterations.append)
    view, legal = famiglia.view(state, 0), famiglia.legal(state, 0)
    assert bots.choose("famiglia", "expert", view, legal, b"seed", seen) == Recruit(card="red-0")
    # It stopped once 1 s (its budget) had passed since the first reading, give or take the
    # readings between the greedy prior and the search's start.
    assert readings[-2] - readings[0] < 1.02 and 1.0 <= readings[-1] - readings[0] <= 1.02
    assert 1 <= len(samples) <= iterations[0] < 100
    with pytest.raises(ValueError):
        bots.choose("famiglia", "expert", view, legal, b"seed")


def _after(game: Any, state: Any, seat: int, command: Any) -> Any:
    for event in game.decide(state, seat, command):
        state = game.evolve(state, event)
    return state


@pytest.mark.parametrize("number", range(3))
def test_the_seen_history_is_the_games_own_events_that_stand_redacted(number: int) -> None:
    """Random Famiglia games at the table with undos: the history a search level gets is the
    game's own events (no table event), without the moves an undo took back, redacted."""
    game = GAMES["famiglia"]
    rng = Rng(b"%d" % number, b"seen-history")
    events: list[Any] = []
    standing: list[Any] = []  # the game's events that stand, unredacted
    at: dict[int, int] = {}  # id of a game state -> how many of them stood then
    kept: list[Any] = []  # keeps those states alive, so their ids stay theirs
    state = None
    for event in game.start(2, secret_for(number), game.options(None)):
        events.append(event)
        standing.append(event)
        state = game.evolve(state, event)
    undos = 0
    while game.result(state) is None:
        kept.append(state.game)
        at[id(state.game)] = len(standing)
        seat = min(game.to_act(state))
        if can_undo(state, seat) and rng.below(3) == 0:
            point = state.point
            new = game.decide(state, seat, Undo())
            del standing[at[id(point.state)] :]
            undos += 1
        else:
            legal = [c for c in game.legal(state, seat) if c != Pass()] or [Pass()]
            if rng.below(2):  # often a move that can be undone: random play seldom makes them
                legal = [c for c in legal if can_undo(_after(game, state, seat, c), seat)] or legal
            new = game.decide(state, seat, legal[rng.below(len(legal))])
            standing.extend(new)
        for event in new:
            events.append(event)
            state = game.evolve(state, event)
        if len(events) % 25 == 0 or game.result(state) is not None:
            for viewer in (0, 1):
                assert bots.seen_history(game, events, viewer) == [
                    famiglia.redact(e, viewer) for e in standing
                ]
    assert undos > 0


@pytest.fixture
def fresh_playouts() -> Any:
    bots.playout.cache_clear()
    yield
    bots.playout.cache_clear()


def test_a_game_without_a_playout_module_is_walked_by_its_plain_rules(
    monkeypatch: Any, fresh_playouts: Any
) -> None:
    monkeypatch.setitem(sys.modules, "domain.famiglia.playout", None)  # as if absent
    walked = bots.playout("famiglia")
    assert isinstance(walked, Generic) and walked.game is famiglia


def test_the_games_playout_module_is_the_one_the_search_walks(
    monkeypatch: Any, fresh_playouts: Any
) -> None:
    """A game package's ``playout`` module is found lazily and plays the rollouts: here one
    that counts its calls and enters its own state type (steps are the plain rules)."""
    state = mid_game()
    seat = min(famiglia.to_act(state))
    rules = generic(famiglia)
    calls: list[str] = []

    class Wrapped(msgspec.Struct, frozen=True):
        state: Any

    def enter(s: Any) -> Wrapped:
        calls.append("enter")
        return Wrapped(s)

    def playout(s: Wrapped, rng: Rng, margin: float = MARGIN_WEIGHT) -> list[float]:
        calls.append("playout")
        return rules.playout(s.state, rng, margin)

    module = types.ModuleType("domain.famiglia.playout")
    module.__dict__.update(
        enter=enter,
        to_act=lambda s: rules.to_act(s.state),
        legal=lambda s, seat: rules.legal(s.state, seat),
        step=lambda s, seat, command: Wrapped(rules.step(s.state, seat, command)),
        done=lambda s: rules.done(s.state),
        playout=playout,
        considered=rules.considered,
    )
    monkeypatch.setitem(sys.modules, "domain.famiglia.playout", module)
    monkeypatch.setattr(bots, "sampler", lambda game: reshuffled_deck(state))
    assert bots.playout("famiglia") is module
    ticks = iter(range(10_000))
    iterations: list[int] = []
    clock = lambda: next(ticks) / 100  # noqa: E731
    seen = bots.Seen(seat=seat, history=[], clock=clock, report=iterations.append)
    view, legal = famiglia.view(state, seat), famiglia.legal(state, seat)
    assert len(legal) > 1
    assert bots.choose("famiglia", "expert", view, legal, b"seed", seen) in legal
    assert calls.count("enter") == iterations[0] > 50
    # Each iteration rolls out by the module, unless its walk in the tree ended the game.
    assert iterations[0] / 2 <= calls.count("playout") <= iterations[0]
