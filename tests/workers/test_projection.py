"""Projections: idempotent (twice, out of order, concurrently), seats and inboxes, rebuild."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
import redis

from api.cli import main as omerta
from bootstrap import Container
from services.identity.players import Players
from services.readside import readmodels as rm
from services.readside.readmodels import ReadModels
from tests.services.helpers import pick_move
from tests.workers.helpers import assert_read_models_current, projectors_racing
from workers.projection.leases import lease_key
from workers.projection.projector import Projector, Seating
from workers.projection.rebuild import drop, snapshot

pytestmark = pytest.mark.server


def human_moves(container: Container, game_id: str, count: int, seed: int = 1) -> list[int]:
    """Play ``count`` random moves as people would, fewer if the game ends first (its deal is
    random: a Famiglia game has ended within 25); the version after each."""
    rng = random.Random(seed)
    versions = []
    for n in range(count):
        move = pick_move(container.commands, game_id, rng)
        if move is None:
            break
        seat, command = move
        versions.append(container.commands.handle(game_id, seat, command, f"h{seed}-{n}").version)
    return versions


def test_projecting_twice_changes_nothing(container: Container, workers_redis: redis.Redis) -> None:
    game_id = container.commands.create_game("gangsta", 3)
    human_moves(container, game_id, 10)
    projector = container.projector
    first = projector.project(game_id)
    assert first is not None and first.written
    before = snapshot(workers_redis)
    again = projector.project(game_id)
    fresh = Projector(container.commands.store).project(game_id)  # no cached state
    assert again is not None and not again.written
    assert fresh is not None and not fresh.written
    assert snapshot(workers_redis) == before


def test_a_late_projection_never_moves_the_checkpoint_back(
    container: Container, workers_redis: redis.Redis, read_models: ReadModels
) -> None:
    game_id = container.commands.create_game("famiglia", 2)
    versions = human_moves(container, game_id, 12)
    projector = container.projector
    old = projector.fold_until(game_id, versions[3])
    assert projector.project(game_id).written  # type: ignore[union-attr]
    current = snapshot(workers_redis)
    # A projection job that computed version versions[3] and writes only now: refused.
    assert not projector.write(game_id, old, Seating({}, False))
    assert snapshot(workers_redis) == current
    assert_read_models_current(container, read_models, game_id)


def test_concurrent_projections_agree(container: Container, workers_redis: redis.Redis) -> None:
    """Four projectors (own caches, as four worker processes) race each other and the appends;
    the result equals one projection from scratch."""
    game_ids = [
        container.commands.create_game("gangsta", 4),
        container.commands.create_game("famiglia", 2),
    ]
    store = container.commands.store
    with projectors_racing(store, game_ids, 4):
        for n, game_id in enumerate(game_ids):
            human_moves(container, game_id, 25, seed=n)
    raced = snapshot(workers_redis)
    drop(workers_redis)
    for game_id in game_ids:
        Projector(store).project(game_id)
    assert snapshot(workers_redis) == raced


def test_the_lobby_and_inboxes_follow_the_seats(
    container: Container,
    workers_redis: redis.Redis,
    read_models: ReadModels,
    drain: Callable[[], None],
) -> None:
    players = Players(workers_redis)
    alice, _ = players.create("Alice")
    bob, _ = players.create("Bob")
    game_id = container.commands.create_game("famiglia", 2)
    game, state, _, meta = container.commands.load(game_id)
    players.open_table(game_id, meta.created, [0, 1], alice.id, 0, public=True)
    drain()
    assert [s.game_id for s in read_models.lobby()] == [game_id]
    summary = read_models.summary(game_id)
    assert summary is not None
    assert [(s.kind, s.player) for s in summary.seats] == [("player", alice.id), ("open", None)]
    owing = next(iter(game.to_act(state)))
    assert [s.game_id for s in read_models.inbox(alice.id)] == ([game_id] if owing == 0 else [])

    players.join(game_id, bob.id, None)
    container.projector.project(game_id)  # what the API's join asks for (notify)
    assert read_models.lobby() == []
    summary = read_models.summary(game_id)
    assert summary is not None and summary.seats[1] == rm.SeatSummary(1, "player", bob.id)
    owner = [alice.id, bob.id][owing]
    assert [s.game_id for s in read_models.inbox(owner)] == [game_id]
    since = summary.due[owing]
    assert read_models.due() == [(game_id, owing, since)]

    # The seat owing a move changes with the turn; the inbox follows.
    while (moved := container.commands.load(game_id)).game.to_act(moved.state) == {owing}:
        human_moves(container, game_id, 1, seed=moved.version)
    drain()
    other = [alice.id, bob.id][1 - owing]
    assert read_models.inbox(owner) == []
    assert [s.game_id for s in read_models.inbox(other)] == [game_id]


def test_rebuild_reproduces_the_incremental_read_models(
    container: Container,
    workers_redis: redis.Redis,
    read_models: ReadModels,
    drain: Callable[[], None],
    capsys: pytest.CaptureFixture[str],
) -> None:
    finished = container.commands.create_game("famiglia", 2, ai={0: "greedy", 1: "random"})
    drain()
    running = container.commands.create_game("gangsta", 3, ai={2: "greedy"})
    players = Players(workers_redis)
    alice, _ = players.create("Alice")
    players.open_table(running, 0, [0, 1], alice.id, 0, public=True)
    human_moves(container, running, 8)
    drain()
    assert read_models.summary(finished).status == "finished"  # type: ignore[union-attr]
    assert read_models.summary(running).status == "running"  # type: ignore[union-attr]
    before = snapshot(workers_redis)

    assert omerta(["rebuild"]) == 0
    out = capsys.readouterr()
    assert "2 games" in out.out and "identical" in out.out
    assert "2/2 games" in out.err
    assert snapshot(workers_redis) == before

    # A read model that differs from the log is found (and replaced by the right one).
    workers_redis.hset(rm.game_key(running), "progress", b"{}")
    assert omerta(["rebuild", "--quiet"]) == 1
    out = capsys.readouterr()
    assert f"differs: {rm.game_key(running)}" in out.out
    assert snapshot(workers_redis) == before


def test_rebuild_refuses_while_workers_hold_shard_leases(
    container: Container,
    workers_redis: redis.Redis,
    read_models: ReadModels,
    drain: Callable[[], None],
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Live workers project while the rebuild drops and rebuilds: it would report their work as
    differences (87 in an operator's run). It refuses, naming them; ``--force`` goes ahead."""
    game_id = container.commands.create_game("famiglia", 2, ai={0: "greedy", 1: "random"})
    drain()
    before = snapshot(workers_redis)
    workers_redis.set(lease_key(3), "worker-a", px=60_000)
    workers_redis.set(lease_key(9), "worker-b", px=60_000)
    assert omerta(["rebuild", "--quiet"]) == 2
    out = capsys.readouterr()
    assert "worker-a" in out.err and "worker-b" in out.err and "--force" in out.err
    assert out.out == ""
    assert snapshot(workers_redis) == before  # nothing dropped
    workers_redis.hset(rm.game_key(game_id), "progress", b"{}")
    assert omerta(["rebuild", "--quiet", "--force"]) == 1  # it ran: the damage is found
    assert snapshot(workers_redis) == before
