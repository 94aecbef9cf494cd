"""sample(): a full state built from one seat's view and redacted history, for search.

The positions come from seeded random games (uniform and eager players, both settings of the
options that change play). Each position's information is sent through msgspec and back before
sampling, so no reference to the real state can reach sample().
"""

from __future__ import annotations

from itertools import islice
from typing import Any

import msgspec
import pytest

from domain.famiglia import game
from domain.famiglia.messages import DeckReshuffled, Event, StreetRefreshed, StreetRevealed
from domain.famiglia.rules import legal
from domain.famiglia.sample import sample
from domain.famiglia.state import State
from domain.famiglia.view import View, redact, view
from domain.play import play, random_policy, secret_for
from domain.rng import Rng

from .helpers import eager_policy

OPTIONS = [
    {"double_pass_ends": True, "mercenary_for_green": False},
    {"double_pass_ends": False, "mercenary_for_green": True},
]
GAMES = 20  # per option setting and kind of player
ROLLOUT_EVERY = 7  # positions between two samples played to the end


class Known(msgspec.Struct):
    """All a seat knows at one position, as it would reach a bot."""

    seat: int
    view: View
    history: list[Event]


def _positions(n: int, eager: bool, options: dict[str, Any]) -> list[tuple[Known, State]]:
    """Both seats' information after every command of one game, with the real state."""
    make = eager_policy if eager else random_policy
    policies = [make(f"sample-{n}-{seat}".encode()) for seat in range(2)]
    secret, opts = secret_for(n), game.options(options)
    events = list(game.start(2, secret, opts))
    state = None
    for e in events:
        state = game.evolve(state, e)
    out = [(_known(seat, state, events), state) for seat in range(2)]
    for step in play(game, 2, secret, opts, policies, max_commands=5000):
        events += step.events
        out += [(_known(seat, step.state, events), step.state) for seat in range(2)]
    return out


def _known(seat: int, state: State, events: list[Any]) -> Known:
    known = Known(seat, view(state, seat), [redact(e, seat) for e in events])
    # A copy that shares nothing with the real state or events.
    return msgspec.json.decode(msgspec.json.encode(known), type=Known)


def _rollout(state: State, rng: Rng) -> State:
    for _ in range(5000):
        if game.result(state) is not None:
            return state
        (seat,) = game.to_act(state)
        options = game.legal(state, seat)
        for e in game.decide(state, seat, options[rng.below(len(options))]):
            state = game.evolve(state, e)
    raise AssertionError("the sampled game did not end")


CASES = [(n, eager, o) for n in range(GAMES) for eager in (False, True) for o in range(2)]


@pytest.mark.parametrize(("n", "eager", "o"), CASES)
def test_samples_agree_with_the_seats_information_and_play_to_the_end(n, eager, o):
    for i, (known, real) in enumerate(_positions(n, eager, OPTIONS[o])):
        rng = Rng(f"{n}-{i}".encode(), b"sample-test")
        sampled = sample(known.seat, known.view, known.history, rng)
        assert view(sampled, known.seat) == view(real, known.seat)
        assert legal(sampled, known.seat) == legal(real, known.seat)
        assert game.to_act(sampled) == game.to_act(real)
        # Only the deck's order and the seed may differ from the real state.
        assert sorted(sampled.deck) == sorted(real.deck)
        known_bottom = _known_bottom(known)
        assert (
            sampled.deck[len(sampled.deck) - known_bottom :]
            == real.deck[len(real.deck) - known_bottom :]
        )
        assert (
            msgspec.structs.replace(
                sampled, deck=real.deck, secret=real.secret, commitment=real.commitment
            )
            == real
        )
        if i % ROLLOUT_EVERY == 0 and game.result(real) is None:
            assert game.result(_rollout(sampled, rng)) is not None


def test_the_positions_reach_the_reshuffle_and_known_cards_under_the_deck():
    """The property test above covers the hard cases: after the reshuffle, with refreshed cards
    in known places under the deck, and after the deck ran out the second time."""
    seen = {"reshuffled": 0, "known_bottom": 0, "ran_out": 0}
    for n, eager, o in CASES:
        if eager:
            for known, real in _positions(n, eager, OPTIONS[o]):
                seen["reshuffled"] += real.deck_pass == 2
                seen["known_bottom"] += _known_bottom(known) > 0
                seen["ran_out"] += real.final_turns is not None
    assert min(seen.values()) > 0, seen


@pytest.mark.parametrize("o", range(2))
def test_different_seeds_give_different_deck_orders_when_the_order_is_hidden(o):
    for known, real in _positions(3, True, OPTIONS[o])[::5]:
        decks = {
            sample(known.seat, known.view, known.history, Rng(bytes([k]), b"t")).deck
            for k in range(20)
        }
        hidden = len(real.deck) - _known_bottom(known)
        if len(set(real.deck[:hidden])) > 1:
            assert len(decks) > 1
        else:
            assert len(decks) == 1


def _known_bottom(known: Known) -> int:
    """How many cards at the bottom of the deck sit in known places: refreshed under it after
    the reshuffle and not yet revealed (counted independently of sample's own fold)."""
    size, bottom = 0, 0
    for e in known.history:
        if isinstance(e, DeckReshuffled):
            size, bottom = e.size, 0
        elif isinstance(e, StreetRefreshed) and e.destination == "deck_bottom":
            size, bottom = size + 1, bottom + 1
        elif isinstance(e, StreetRevealed):
            size -= len(e.cards)
            bottom = max(0, min(bottom, size))
    return bottom


def test_a_history_list_that_grows_is_sampled_anew() -> None:
    """sample() remembers the last position it folded (a search asks about it every
    iteration): the same history list grown since is folded again."""
    policies = [random_policy(f"grow-{seat}".encode()) for seat in range(2)]
    secret, opts = secret_for(3), game.options(None)
    started = list(game.start(2, secret, opts))
    for seat in range(2):
        history = [redact(e, seat) for e in started]
        for step in islice(play(game, 2, secret, opts, policies), 60):
            history += [redact(e, seat) for e in step.events]  # the same list, grown
            seen = view(step.state, seat)
            grown = [sample(seat, seen, history, Rng(b"a", b"b")) for _ in range(2)]
            assert grown == [sample(seat, seen, list(history), Rng(b"a", b"b"))] * 2
            sample(seat, seen, history, Rng(b"a", b"b"))  # remembered, as it grows next
