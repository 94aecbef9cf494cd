"""Property tests: random legal play over many seeds (hypothesis picks the seeds)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.core import RuleViolation, replay
from domain.famiglia import cards, game
from domain.famiglia.messages import (
    EndSwaps,
    GameEnded,
    GameStarted,
    Pass,
    PlayAccountant,
    PlayBrute,
    Recruit,
    Refresh,
    Swap,
)
from domain.famiglia.rules import score
from domain.famiglia.state import State
from domain.play import Step, play, random_policy, secret_for
from domain.rng import Rng

from .helpers import eager_policy

FULL = Counter(cards.FULL_DECK)
NAMES = [*cards.KINDS, "purple-1", "red-5", ""]


def _game(n: int, eager: bool, options: dict[str, Any] | None = None) -> list[Step]:
    make = eager_policy if eager else random_policy
    policies = [make(f"{n}-{seat}".encode()) for seat in range(2)]
    return list(play(game, 2, secret_for(n), game.options(options), policies, max_commands=5000))


def _start(n: int, options: dict[str, Any] | None = None) -> list[Any]:
    return game.start(2, secret_for(n), game.options(options))


def _states(n: int, steps: list[Step]) -> list[State]:
    return [replay(game, _start(n)), *(s.state for s in steps)]


def _random_command(rng: Rng) -> Any:
    def card() -> str:
        return NAMES[rng.below(len(NAMES))]

    def maybe() -> str | None:
        return None if rng.below(3) == 0 else card()

    kind = rng.below(7)
    if kind == 0:
        return Refresh(card=card())
    if kind == 1:
        return PlayAccountant(card=card())
    if kind == 2:
        return Swap(hand_card=card(), area_card=card())
    if kind == 3:
        return EndSwaps()
    if kind == 4:
        return PlayBrute(card=card(), target=card(), amount=rng.below(7) - 1)
    if kind == 5:
        return Recruit(card=card(), to_area=maybe(), back_to_hand=maybe())
    return Pass()


seeds = st.integers(min_value=0, max_value=2**32)


@settings(max_examples=250, deadline=None)
@given(n=seeds, eager=st.booleans())
def test_games_end_and_conserve_the_sixty_cards(n, eager):
    steps = _game(n, eager)
    final = steps[-1].state
    assert game.result(final) is not None
    for state in _states(n, steps):
        held = Counter(state.deck + state.street + state.discard)
        for seat in range(2):
            held += Counter(state.hands[seat] + state.areas[seat])
        assert held == FULL


@settings(max_examples=250, deadline=None)
@given(n=seeds, eager=st.booleans())
def test_final_score_is_the_points_in_hand_and_area(n, eager):
    final = _game(n, eager)[-1].state
    result = game.result(final)
    for seat in range(2):
        points = sum(cards.POINTS[c] for c in final.hands[seat] + final.areas[seat])
        assert result.scores[seat] == points == score(final, seat)
    assert result.reason in ("deck_exhausted", "double_pass")
    best = result.details["best_card"]
    if result.scores[0] != result.scores[1]:
        assert result.winners == [result.scores.index(max(result.scores))]
    elif best[0] != best[1]:
        assert result.winners == [best.index(max(best))]
    else:
        assert result.winners == [0, 1]


@settings(max_examples=80, deadline=None)
@given(n=seeds)
def test_every_legal_command_is_accepted_and_others_are_refused(n):
    rng = Rng(n.to_bytes(8, "big"), b"bad-commands")
    for state in _states(n, _game(n, eager=True)):
        before = msgspec.msgpack.encode(state)
        for seat in (0, 1):
            legal = game.legal(state, seat)
            assert (seat in game.to_act(state)) == bool(legal)
            for command in legal:
                assert game.decide(state, seat, command)
            for _ in range(4):
                command = _random_command(rng)
                if command in legal:
                    assert game.decide(state, seat, command)
                    continue
                try:
                    game.decide(state, seat, command)
                except RuleViolation as exc:
                    assert exc.code and exc.message
                else:
                    raise AssertionError(f"{command} is not legal but was accepted")
        assert msgspec.msgpack.encode(state) == before


@settings(max_examples=150, deadline=None)
@given(n=seeds, eager=st.booleans())
def test_replaying_events_and_commands_reproduces_the_game(n, eager):
    steps = _game(n, eager)
    events = _start(n) + [e for s in steps for e in s.events]
    assert replay(game, events) == steps[-1].state
    # the same seed and commands give the same events
    state = replay(game, _start(n))
    for step in steps:
        again = game.decide(state, step.seat, step.command)
        assert again == step.events
        state = _fold(state, again)
    assert state == steps[-1].state


def _fold(state: State, events: list[Any]) -> State:
    for event in events:
        state = game.evolve(state, event)
    return state


def _masked(state: State, seat: int | None) -> State:
    """The same situation for ``seat`` with everything it may not see changed: the deck order
    reversed and rotated, and the other hands replaced by as many different cards."""
    deck = tuple(reversed(state.deck))
    deck = deck[1:] + deck[:1]
    hands = tuple(
        h if s == seat else tuple("red-4" if c != "red-4" else "blue-4" for c in h)
        for s, h in enumerate(state.hands)
    )
    return msgspec.structs.replace(state, deck=deck, hands=hands)


@settings(max_examples=80, deadline=None)
@given(n=seeds)
def test_views_and_redacted_events_never_show_the_deck_or_the_other_hand(n):
    steps = _game(n, eager=True)
    running = [s for s in _states(n, steps) if game.result(s) is None]
    events = _start(n) + [e for s in steps for e in s.events]
    seed_text = msgspec.json.encode(secret_for(n).seed)
    for state in running:
        order = msgspec.json.encode(list(state.deck))
        for seat in (0, 1, None):
            view = game.view(state, seat)
            assert view == game.view(_masked(state, seat), seat)
            encoded = msgspec.json.encode(view)
            if len(state.deck) >= 8:
                assert order not in encoded
            assert seed_text not in encoded
            if seat is not None:
                assert view.hand == list(state.hands[seat])
    for event in events:
        for seat in (0, 1, None):
            redacted = game.redact(event, seat)
            if isinstance(event, GameEnded):
                continue  # the reveal
            assert seed_text not in msgspec.json.encode(redacted)
            if isinstance(event, GameStarted):
                assert redacted.secret is None


def test_eager_play_reaches_every_end_and_the_reshuffle():
    """The property tests' eager players cover both deck passes and both ends of the game."""
    finals = [_game(n, eager=True)[-1].state for n in range(30)]
    assert {game.result(s).reason for s in finals} == {"double_pass", "deck_exhausted"}
    assert any(s.deck_pass == 2 for s in finals)


def test_uniform_random_play_ends():
    """Uniformly random players (who pass often) finish too."""
    for n in range(50):
        assert game.result(_game(n, eager=False)[-1].state).reason in (
            "double_pass",
            "deck_exhausted",
        )


def test_without_double_pass_games_end_by_the_deck():
    for n in range(10):
        final = _game(n, eager=True, options={"double_pass_ends": False})[-1].state
        assert game.result(final).reason == "deck_exhausted"


@settings(max_examples=250, deadline=None)
@given(n=seeds, eager=st.booleans())
def test_the_final_view_shows_the_printed_ranks(n, eager):
    """FAMIGLIA.md "End and scoring": no Brute's lowering outlives the game's last turn."""
    final = _game(n, eager)[-1].state
    for seat in (0, 1, None):
        street = game.view(final, seat).street
        assert [s.rank for s in street] == [cards.RANK[s.card] for s in street]
