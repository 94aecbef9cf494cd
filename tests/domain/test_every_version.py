"""Every state has a view: whole games of both games, folded one event at a time, with every
seat's and a spectator's view at EVERY version, also between the events of one command (the
states ``GET /games/{id}/replay/N`` shows), encoded as the API sends them."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain import GAMES, bots, famiglia, gangsta, table
from domain.core import Game
from domain.play import secret_for
from domain.rng import Rng
from domain.table import bots as bots_of
from domain.table import table_view

CASES: list[tuple[Game, int, dict[str, Any]]] = [
    *(
        (famiglia, 2, raw)
        for raw in (
            {},
            {"preset": "published"},
            {"double_pass_ends": False},
            {"preset": "published", "mercenary_for_green": False},
        )
    ),
    *(
        (gangsta, seats, raw)
        for seats in (2, 3, 4)
        for raw in (
            {},
            {"preset": "published"},
            {"clans": True, "catch_up_cash": True, "min_pass_income": 2},
            {"public_heist_influence": True, "refill": "one_per_row"},
            {"resources": True},
            {"resources": True, "clans": True, "coop_reward_needs_partner": True},
        )
    ),
]
# Long games (random seats dither) are checked for their first MAX_COMMANDS commands only.
MAX_COMMANDS = 1000


def check_views(game: Game, seats: int, state: Any, version: int) -> None:
    for viewer in [*range(seats), None]:
        try:
            shown = game.view(state, viewer)
            encoded = msgspec.json.encode(shown)
        except Exception as exc:  # name the version: the replay page's step
            raise AssertionError(f"{game.name} version {version}, viewer {viewer}") from exc
        assert msgspec.json.decode(encoded, type=type(shown)) == shown


def play_every_version(game: Game, seats: int, raw: dict[str, Any], n: int, level: str) -> int:
    """Play one game with AI seats of ``level`` to its end (or MAX_COMMANDS); check the views
    after every event. Returns the number of versions."""
    state = None
    version = 0
    pending = game.start(seats, secret_for(n), game.options(raw))
    for _ in range(MAX_COMMANDS):
        for event in pending:
            state = game.evolve(state, event)
            version += 1
            check_views(game, seats, state, version)
        if game.result(state) is not None:
            break
        seat = min(game.to_act(state))
        legal = game.legal(state, seat)
        seed = b"%d-%d-%d" % (n, version, seat)
        command = bots.choose(game.name, level, game.view(state, seat), legal, seed)
        pending = game.decide(state, seat, command)
    return version


@pytest.mark.slow
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    case=st.sampled_from(CASES),
    n=st.integers(0, 2**32),
    level=st.sampled_from(bots.LEVELS),
)
def test_every_version_of_every_game_has_a_view_for_every_seat_and_spectators(
    case: tuple[Game, int, dict[str, Any]], n: int, level: str
) -> None:
    game, seats, raw = case
    assert play_every_version(game, seats, raw, n, level) > 3  # started, ..., ended


# --- at the table (domain.table): the same, with the table's events in the stream -------------

TABLE_CASES = [(2, "famiglia"), (2, "gangsta"), (3, "gangsta"), (4, "gangsta")]


def play_at_the_table(name: str, seats: int, n: int) -> list[str]:
    """Random play that now and then sends the table's commands (a draw offered and declined, an
    undo where allowed, a concession or a time-out making a bot seat), with every seat's and a
    spectator's view and table view checked at every version; the table events' types."""
    game = GAMES[name]
    rng = Rng(b"%d" % n, b"table-versions")
    state, version, kinds = None, 0, []
    pending = game.start(seats, secret_for(n), game.options(None))
    for _ in range(MAX_COMMANDS):
        for event in pending:
            state = game.evolve(state, event)
            version += 1
            check_views(game, seats, state, version)
            for viewer in [*range(seats), None]:
                msgspec.json.encode(table_view(state, viewer))
            if isinstance(event, table.EVENTS):
                kinds.append(event.__struct_config__.tag)
        if game.result(state) is not None:
            break
        seat = min(game.to_act(state))
        roll = rng.below(40)
        shown = table_view(state, seat)
        if shown.can_undo and roll < 10:
            pending = game.decide(state, seat, table.Undo())
        elif shown.can_offer_draw and roll == 10:
            pending = game.decide(state, seat, table.OfferDraw())
        elif shown.draw_offer not in (None, seat) and roll < 30:
            pending = game.decide(state, seat, table.DeclineDraw())
        elif roll == 11 and seats > 2 and len(bots_of(state)) < seats - 1:
            pending = game.decide(state, seat, table.Concede())
        elif roll == 12 and seats > 2 and len(bots_of(state)) < seats - 1:
            pending = table.time_out(state, seat, forfeit=rng.below(2) == 1)
        else:
            legal = game.legal(state, seat)
            pending = game.decide(state, seat, legal[rng.below(len(legal))])
    return kinds


def test_every_version_at_the_table_has_a_view_for_every_seat() -> None:
    kinds: set[str] = set()
    for n in range(1, 4):
        for seats, name in TABLE_CASES:
            kinds.update(play_at_the_table(name, seats, n))
    assert kinds >= {"undone", "draw_offered", "draw_declined", "conceded", "timed_out"}
