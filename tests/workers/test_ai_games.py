"""Whole games between AI seats, through RQ jobs alone, on a real server; what the bots saw."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec
import pytest

from bootstrap import Container
from domain import GAMES, bots
from services.eventstore import serversecret, shards
from services.readside import readmodels as rm
from services.readside.readmodels import ReadModels
from tests.workers.helpers import assert_read_models_current

pytestmark = pytest.mark.server


class Call(msgspec.Struct):
    game: str
    level: int | str
    view: Any
    legal: list[Any]
    seed: bytes


@pytest.fixture
def bot_calls(monkeypatch: pytest.MonkeyPatch) -> list[Call]:
    """Every call of the bots' entry point, with its arguments (the bot still answers)."""
    calls: list[Call] = []
    real = bots.choose

    def spy(game: str, level: int | str, view: Any, legal: list[Any], seed: bytes) -> Any:
        calls.append(Call(game, level, view, legal, seed))
        return real(game, level, view, legal, seed)

    monkeypatch.setattr(bots, "choose", spy)
    return calls


@pytest.mark.parametrize(
    ("name", "ai"),
    [
        ("famiglia", {0: "greedy", 1: "random"}),
        ("gangsta", {0: "greedy", 1: "random", 2: 1, 3: 0}),
    ],
)
def test_an_ai_game_runs_to_the_end_through_jobs(
    container: Container,
    name: str,
    ai: dict[int, Any],
    drain: Callable[[], None],
    read_models: ReadModels,
    bot_calls: list[Call],
) -> None:
    game_id = container.commands.create_game(name, len(ai), {}, ai=ai)
    drain()

    result = assert_read_models_current(container, read_models, game_id)
    assert result is not None, "the game did not end"
    summary = read_models.summary(game_id)
    assert summary is not None and summary.status == "finished" and summary.due == {}
    assert [s.kind for s in summary.seats] == ["ai"] * len(ai)
    client, shard = read_models.redis, shards.of(game_id)
    assert client.zscore(rm.index_key(rm.FINISHED, shard), game_id) == summary.updated
    assert client.zscore(rm.index_key(rm.RUNNING, shard), game_id) is None
    assert client.zcard(rm.index_key(rm.DUE, shard)) == 0
    assert client.zcard(rm.index_key(rm.AI_DUE, shard)) == 0
    assert read_models.games("finished")[0].game_id == game_id
    assert read_models.game(game_id).ai_error is None  # type: ignore[union-attr]

    # Every AI move was computed from that seat's view and legal commands only.
    assert len(bot_calls) > 20
    assert_bots_saw_only_their_seat(container, game_id, bot_calls)


def assert_bots_saw_only_their_seat(container: Container, game_id: str, calls: list[Call]) -> None:
    game, final, _, meta = container.commands.load(game_id)
    secret = final.secret
    states: dict[int, Any] = {}
    state = None
    for record in container.commands.events(game_id):
        state = game.evolve(state, record.event)
        states[record.version] = state
    key = container.secret.key()
    moves = {serversecret.bot_seed(key, game_id, v, s): (v, s) for v in states for s in meta.ai}
    for call in calls:
        version, seat = moves[call.seed]  # the seed names the move (and this game)
        at = states[version]
        assert call.game == meta.game and call.level == meta.ai[int(seat)]
        assert call.view == game.view(at, int(seat))
        assert call.legal == game.legal(at, int(seat))
        raw = msgspec.msgpack.encode([call.view, call.legal, call.seed])
        text = msgspec.json.encode([call.view, call.legal]).decode()
        assert secret.seed not in raw and secret.salt not in raw
        assert secret.seed.hex() not in text
        state_text = msgspec.json.encode(at).decode()
        for field, hidden in hidden_parts(meta.game, at.game, int(seat)):
            assert hidden in state_text  # the check looks for something that exists
            assert field + hidden not in text, f"{field}{hidden} reached seat {seat}"


def hidden_parts(name: str, state: Any, seat: int) -> list[tuple[str, str]]:
    """(field prefix, JSON) a seat must not see: deck orders (anywhere), the other Famiglia
    hand, the other Gangsta! players' completed heists."""
    parts = []

    def listed(items: Any) -> str:
        return msgspec.json.encode(list(items)).decode()

    if name == "famiglia":
        if len(state.deck) >= 3:
            parts.append(("", listed(state.deck)[1:-1]))
        other = state.hands[1 - seat]
        if other and other != state.hands[seat]:
            parts.append(('"hand":', listed(other)))
    else:
        for deck in (state.gangster_deck, *state.heist_decks):
            if len(deck) >= 3:
                parts.append(("", listed(deck)[1:-1]))
        for s, p in enumerate(state.players):
            if s != seat and p.heists:
                parts.append(('"heists":', listed(p.heists)))
    return parts


def test_games_know_both_bot_levels() -> None:
    assert {(g, lvl) for g in GAMES for lvl in bots.LEVELS} <= set(bots.BOTS)
