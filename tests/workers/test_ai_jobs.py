"""AI move jobs: stale moves dropped, retries and visible failures, idempotent command ids."""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable
from typing import Any

import pytest
import redis
from rq import Retry
from rq.registry import FailedJobRegistry

from bootstrap import Container
from domain import bots
from services.readside import readmodels as rm
from services.readside.readmodels import ReadModels
from workers import ai
from workers import queues as wq
from workers.context import Context
from workers.projection import ai_due, catchup

pytestmark = pytest.mark.server


def test_a_stale_move_is_dropped(container: Container, workers_redis: redis.Redis) -> None:
    game_id = container.commands.create_game("famiglia", 2, ai={0: "greedy", 1: "greedy"})
    version = container.commands.load(game_id).version
    assert ai.ai_move(container.context, game_id, version) == "moved"
    after = container.commands.load(game_id).version
    assert after > version
    assert (
        ai.ai_move(container.context, game_id, version) == "stale"
    )  # a retried job for the old version
    assert container.commands.load(game_id).version == after


def test_a_seat_that_is_not_ai_gets_no_move(
    container: Container, workers_redis: redis.Redis
) -> None:
    game_id = container.commands.create_game("famiglia", 2)
    version = container.commands.load(game_id).version
    assert ai.ai_move(container.context, game_id, version) == "not_due"
    assert container.commands.load(game_id).version == version


def test_copies_of_one_ai_job_move_once(
    container: Container, workers_redis: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Copies of one job (a retry racing the original) submit one move between them."""
    monkeypatch.setattr(ai, "AI_CHAIN", 1)  # the move of this version only
    game_id = container.commands.create_game("gangsta", 2, ai={0: 1, 1: 1})
    game, state, version, _ = container.commands.load(game_id)
    (seat,) = game.to_act(state)
    barrier = threading.Barrier(4)
    outcomes: list[str] = []

    def copy() -> None:
        barrier.wait()
        outcomes.append(ai.ai_move(container.context, game_id, version))

    threads = [threading.Thread(target=copy) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes).count("moved") == 1
    assert set(outcomes) <= {"moved", "duplicate", "stale"}
    records = container.commands.events(game_id, after=version)
    assert {r.command_id for r in records} == {f"ai-{version}-{seat}"}


def ai_moves(container: Container, game_id: str, after: int) -> list[str]:
    records = container.commands.events(game_id, after=after)
    return sorted({r.command_id for r in records if r.command_id.startswith("ai-")})


def test_an_ai_job_makes_the_moves_due_after_its_own(
    container: Container,
    workers_redis: redis.Redis,
    read_models: ReadModels,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(ai, "AI_CHAIN", 3)
    game_id = container.commands.create_game("famiglia", 2, ai={0: "greedy", 1: "greedy"})
    container.queues.queue(wq.PROJECTIONS).empty()
    version = container.commands.load(game_id).version
    assert ai.ai_move(container.context, game_id, version) == "moved"
    assert len(ai_moves(container, game_id, version)) == 3  # its own, then two more in a row
    now = container.commands.load(game_id).version
    summary = read_models.summary(game_id)
    assert summary is not None and summary.version == now  # projected after each
    (job,) = container.queues.queue(wq.AI).jobs  # and the job for the next one is queued
    assert job.id == ai_due.ai_job_id(game_id, now)


def test_an_ai_job_projects_the_changed_games_before_each_further_move(
    container: Container,
    workers_redis: redis.Redis,
    read_models: ReadModels,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(ai, "AI_CHAIN", 2)
    game_id = container.commands.create_game("famiglia", 2, ai={0: "greedy", 1: "greedy"})
    version = container.commands.load(game_id).version
    # a person's game, changed, not projected yet
    other = container.commands.create_game("famiglia", 2)
    assert read_models.summary(other) is None
    moves = []

    def move(context: Context, game: str, at: int) -> str:
        moves.append(read_models.summary(other))  # what the other game's read model was then
        return real(context, game, at)

    real = ai._move
    monkeypatch.setattr(ai, "_move", move)
    assert ai.ai_move(container.context, game_id, version) == "moved"
    assert len(ai_moves(container, game_id, version)) == 2
    first, second = moves
    assert first is None  # the job's own move came first
    assert second is not None and second.version == container.commands.load(other).version


def test_a_failing_ai_is_retried_then_failed_and_shown(
    container: Container,
    workers_redis: redis.Redis,
    read_models: ReadModels,
    drain: Callable[[], None],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tries: list[int] = []
    working = bots.choose

    def broken(game: str, level: Any, view: Any, legal: list[Any], seed: bytes) -> Any:
        tries.append(1)
        raise RuntimeError("the bot fell over")

    monkeypatch.setattr(bots, "choose", broken)
    monkeypatch.setattr(ai_due, "AI_RETRY", Retry(max=2))  # no interval: no scheduler needed
    game_id = container.commands.create_game("famiglia", 2, ai={0: "greedy", 1: "greedy"})
    version = container.commands.load(game_id).version
    drain()

    assert len(tries) == 3  # the first try and two retries
    failed = FailedJobRegistry(queue=container.queues.queue(wq.AI))
    assert f"ai-{version}-{game_id}" in failed.get_job_ids()
    model = read_models.game(game_id)
    assert model is not None and model.summary.version == version
    assert model.ai_error is not None
    assert model.ai_error.version == version
    assert "RuntimeError: the bot fell over" in model.ai_error.error

    # Fixed (a new release of the bot): the next catch-up pass revives the move.
    monkeypatch.setattr(bots, "choose", working)
    catchup.catch_up(container.context)
    drain()
    model = read_models.game(game_id)
    assert model is not None and model.ai_error is None
    assert model.summary.status == "finished"


def test_a_player_taking_the_ai_seats_next_command_id_does_not_freeze_it(
    container: Container, workers_redis: redis.Redis, drain: Callable[[], None]
) -> None:
    """The attack: seat 0 sends its own move with the command id the AI seat will
    use next. Command ids are scoped by seat, so the AI still moves and the game goes on."""
    game_id = container.commands.create_game("famiglia", 2, ai={1: "greedy"})
    drain()  # the AI moves first if it starts
    svc = container.commands
    game, state, version, _ = svc.load(game_id)
    while game.to_act(state) == {0}:  # each of seat 0's moves takes the id the AI would use
        command = next(c for c in game.legal(state, 0) if type(c).__name__ != "Pass")
        ai_version = version + len(game.decide(state, 0, command))  # the AI may move there
        svc.handle(game_id, 0, command, f"ai-{ai_version}-1", expected_version=version)
        _, state, version, _ = svc.load(game_id)
    assert game.to_act(state) == {1}
    drain()  # a real RQ worker: projection, then the AI's move with its retries
    records = svc.events(game_id, after=ai_version)
    assert records, svc.store.redis.get(rm.ai_error_key(game_id))
    assert records[0].actor == 1 and records[0].command_id == f"ai-{ai_version}-1"
    assert svc.store.redis.get(rm.ai_error_key(game_id)) is None
    assert len(FailedJobRegistry(queue=container.queues.queue(wq.AI))) == 0
    assert 0 in game.to_act(svc.load(game_id).state)  # the game goes on: seat 0 to act again


def test_an_ai_move_the_store_refused_through_its_retries_is_moved_again(
    container: Container,
    workers_redis: redis.Redis,
    read_models: ReadModels,
    drain: Callable[[], None],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The store's memory full while an AI job runs (its append refused on every try, other
    writes let through as memory comes and goes): that is no failure of the move, so the
    periodic catch-up pass moves it again once the store accepts writes, without waiting for a
    worker to restart."""
    store = container.commands.store
    appends = store._run_append

    def refused(keys_: list[str], args: list[object]) -> Any:
        raise redis.exceptions.OutOfMemoryError(
            "command not allowed when used memory > 'maxmemory'."
        )

    monkeypatch.setattr(ai_due, "AI_RETRY", Retry(max=2))  # no interval: no scheduler needed
    game_id = container.commands.create_game("famiglia", 2, ai={0: "greedy", 1: "greedy"})
    version = container.commands.load(game_id).version
    monkeypatch.setattr(store, "_run_append", refused)
    drain()
    failed = FailedJobRegistry(queue=container.queues.queue(wq.AI))
    assert f"ai-{version}-{game_id}" in failed.get_job_ids()

    monkeypatch.setattr(store, "_run_append", appends)  # memory freed
    assert catchup.catch_up(container.context, revive_failed=False).ai_jobs == 1
    drain()
    model = read_models.game(game_id)
    assert model is not None and model.ai_error is None
    assert model.summary.status == "finished"


def test_an_ai_move_its_job_timeout_ended_is_moved_again(
    container: Container,
    workers_redis: redis.Redis,
    read_models: ReadModels,
    drain: Callable[[], None],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """RQ's job timeout ending an AI move (a CI run under load: the AI worker at a low priority
    took longer than the timeout) is no failure of the bot: the periodic catch-up pass moves it
    again (recorded as the bot's failure, the game waited for a worker's restart)."""
    working = bots.choose

    def slow(*args: Any, **kwargs: Any) -> Any:
        signal.pause()  # until RQ's timeout (1 s here) ends it with its SIGALRM
        raise AssertionError("RQ's job timeout did not end the move")

    monkeypatch.setattr(bots, "choose", slow)
    monkeypatch.setattr(ai_due, "ai_timeout", lambda meta: 1)
    monkeypatch.setattr(ai_due, "AI_RETRY", Retry(max=1))  # no interval: no scheduler needed
    game_id = container.commands.create_game("famiglia", 2, ai={0: "greedy", 1: "greedy"})
    version = container.commands.load(game_id).version
    drain()
    failed = FailedJobRegistry(queue=container.queues.queue(wq.AI))
    assert f"ai-{version}-{game_id}" in failed.get_job_ids()
    model = read_models.game(game_id)
    assert model is not None and model.ai_error is None

    monkeypatch.setattr(bots, "choose", working)
    assert catchup.catch_up(container.context, revive_failed=False).ai_jobs == 1
    drain()
    model = read_models.game(game_id)
    assert model is not None and model.summary.status == "finished"
