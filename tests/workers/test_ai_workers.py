"""AI moves on their own worker processes (``omerta worker --queues ai``), beside the default
worker, as ``omerta run`` starts them: an AI game at a search level played to the end with
every search in the AI worker and the read models current; the AI worker killed in the
middle of a search, the game moves on (the catch-up enqueues the move again once the search's
lease expired, a new AI worker makes it); two AI workers given two jobs for one version search
it once."""

from __future__ import annotations

import re
import signal
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import redis
from rq import Worker
from rq.job import Job

from bootstrap import Container
from services.readside.readmodels import ReadModels
from tests.workers.helpers import assert_read_models_current, start_worker, wait, wait_moving
from workers import queues as wq
from workers import worker
from workers.projection import ai_due
from workers.projection import jobs as project_jobs

pytestmark = pytest.mark.server

AI_WORKER = ("--queues", "ai", "--verbose")
# Seconds a step may take: an AI worker starting, or searching at nice 15, beside 8 CPU hogs.
WAIT = 100.0


@contextmanager
def running(redis_url: str, log: Path, *options: str) -> Iterator[subprocess.Popen[bytes]]:
    proc = start_worker(redis_url, log, *options)
    try:
        yield proc
    finally:
        stop(proc)


def stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def moves(log: Path, game_id: str) -> list[tuple[int, int, str]]:
    """(version, seat, how) of the AI moves the worker of ``log`` made in the game."""
    found = re.findall(
        rf"AI move of {re.escape(game_id)} at (\d+): seat (\d+) (searched|chose)",
        log.read_text(errors="replace") if log.exists() else "",
    )
    return [(int(v), int(s), how) for v, s, how in found]


def ai_workers(container: Container, client: redis.Redis) -> int:
    return sum(
        wq.PROJECTIONS not in w.queue_names()
        for w in Worker.all(connection=client, queue=container.queues.queue(wq.AI))
    )


def finished(read_models: ReadModels, game_id: str) -> bool:
    summary = read_models.summary(game_id)
    return summary is not None and summary.status == "finished"


def _kill_mid_search(
    container: Container,
    client: redis.Redis,
    redis_url: str,
    log: Path,
    dead: int,
    default_log: Path,
) -> tuple[str, int]:
    """A new expert game, and its first search's worker killed once the search is under way:
    the game and the version searched. ``dead`` killed workers are still registered (until
    their heartbeat expires). The default worker (``default_log``) must have left the AI moves
    to the AI worker first: under load it took the search itself, and the kill missed it."""
    proc = start_worker(redis_url, log, *AI_WORKER)
    try:
        wait(lambda: ai_workers(container, client) == dead + 1, WAIT, "the AI worker")
        wait(lambda: "leaves AI moves" in default_log.read_text(), WAIT, "the default worker")
        game_id = container.commands.create_game("famiglia", 2, ai={0: "expert", 1: "expert"})
        pattern = f"ai:{{{game_id}}}:lease:*"
        wait(lambda: bool(client.keys(pattern)), WAIT, "a search")
        (lease,) = client.keys(pattern)
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    finally:
        stop(proc)
    return game_id, int(lease.rsplit(b":", 1)[1])


def _ai_to_start(container: Container) -> str:
    """A Famiglia game whose AI seat 0 (medium) plays first: the deal picks who starts (the
    others wait for their open seat's person: no job moves in them)."""
    while True:
        game_id = container.commands.create_game("famiglia", 2, ai={0: "medium"})
        game, state, _, _ = container.commands.load(game_id)
        if 0 in game.to_act(state):
            return game_id


@pytest.mark.parametrize("game", ["famiglia", "gangsta"])
def test_an_ai_game_at_medium_is_played_by_the_ai_worker(
    container: Container,
    workers_redis: redis.Redis,
    redis_url: str,
    read_models: ReadModels,
    tmp_path: Path,
    game: str,
) -> None:
    ai_log, main_log = tmp_path / "ai.log", tmp_path / "worker.log"
    with running(redis_url, ai_log, *AI_WORKER):
        wait(lambda: worker.ai_worker_alive(workers_redis), WAIT, "the AI worker")
        with running(redis_url, main_log, "--verbose"):
            game_id = container.commands.create_game(game, 2, ai={0: "medium", 1: "greedy"})
            wait_moving(
                container,
                game_id,
                lambda: finished(read_models, game_id),
                60,
                "the game to end",
            )
            # the game's last projection was the AI worker's: the default one's follow-up
            # (its own feed entry) finds it done
            assert assert_read_models_current(container, read_models, game_id) is not None
    made = moves(ai_log, game_id)
    assert moves(main_log, game_id) == [], "the default worker made AI moves"
    ai_commands = {
        (record.command_id, record.actor)
        for record in container.commands.events(game_id)
        if record.command_id.startswith("ai-")
    }
    by_seat = {seat: {int(c.split("-")[1]) for c, a in ai_commands if a == seat} for seat in (0, 1)}
    assert len(by_seat[0]) > 5 and len(by_seat[1]) > 5, "both AI seats moved"
    assert {v for v, s, how in made if s == 0 and how == "searched"} == by_seat[0]
    assert {v for v, s, how in made if s == 1 and how == "chose"} == by_seat[1]
    niceness = re.search(r"started \(pid \d+, nice (\d+)\): omerta-ai$", ai_log.read_text(), re.M)
    assert niceness is not None and int(niceness.group(1)) >= 15  # OMERTA_AI_NICE's default


def test_a_search_killed_with_its_worker_is_made_by_the_next_ai_worker(
    container: Container,
    workers_redis: redis.Redis,
    redis_url: str,
    read_models: ReadModels,
    tmp_path: Path,
) -> None:
    first_log, second_log = tmp_path / "ai-1.log", tmp_path / "ai-2.log"
    default_log = tmp_path / "worker.log"
    with running(redis_url, default_log):
        # The kill must land within the search's second: on a loaded machine the move can win
        # that race, and then the scenario did not happen; a new game tries again.
        for attempt in range(5):
            game_id, version = _kill_mid_search(
                container, workers_redis, redis_url, first_log, attempt, default_log
            )
            if container.commands.load(game_id).version == version:
                break
        else:
            pytest.fail("every search ended before its worker was killed")
        assert (
            container.commands.load(game_id).version == version
        )  # the search died with its worker
        assert workers_redis.exists(ai_due.lease_key(game_id, version))  # held until it expires
        with running(redis_url, second_log, *AI_WORKER):
            wait(lambda: any(m[0] == version for m in moves(second_log, game_id)), WAIT,
                 "the new AI worker to make the move")  # fmt: skip
            assert container.commands.load(game_id).version > version
            assert [m for m in moves(first_log, game_id) if m[0] == version] == []
        wait(lambda: read_models.version(game_id) == container.commands.load(game_id).version, WAIT,
             "the projection of the last move")  # fmt: skip
    assert_read_models_current(container, read_models, game_id)


def test_two_jobs_for_one_version_search_it_once(
    container: Container,
    workers_redis: redis.Redis,
    redis_url: str,
    read_models: ReadModels,
    tmp_path: Path,
) -> None:
    logs = [tmp_path / "ai-1.log", tmp_path / "ai-2.log"]
    with running(redis_url, logs[0], *AI_WORKER), running(redis_url, logs[1], *AI_WORKER):
        wait(lambda: ai_workers(container, workers_redis) == 2, WAIT, "both AI workers")
        game_id = container.commands.create_game("famiglia", 2, ai={0: "expert", 1: "expert"})
        version = container.commands.load(game_id).version
        project_jobs.project(
            container.context, game_id
        )  # its first AI move's job, then the catch-up's copy at once
        ai_due.enqueue_ai_move(container.context, game_id, version, ai_due.CATCH_UP)
        wait(lambda: container.commands.load(game_id).version > version, WAIT, "the first move")
        wait(lambda: container.queues.queue(wq.AI).count == 0, WAIT, "both jobs taken")
        done = f"AI move of {game_id} at {version}: "
        wait(lambda: sum(log.read_text().count(done) for log in logs) >= 2, WAIT, "both jobs")
    searched = [m for log in logs for m in moves(log, game_id) if m[0] == version]
    assert len(searched) == 1, searched


def test_the_ai_jobs_timeout_fits_the_games_levels(
    container: Container, workers_redis: redis.Redis
) -> None:
    for ai, expected in (
        ({0: "greedy", 1: 0}, ai_due.AI_TIMEOUT_MARGIN),
        ({0: "medium", 1: "greedy"}, 1 + ai_due.AI_TIMEOUT_MARGIN),  # 4 x 0.1 s, rounded up
        ({0: "expert", 1: "medium"}, 4 + ai_due.AI_TIMEOUT_MARGIN),
    ):
        game_id = container.commands.create_game("famiglia", 2, ai=ai)
        ai_due.enqueue_ai_move(container.context, game_id, 1)
        assert Job.fetch(ai_due.ai_job_id(game_id, 1), connection=workers_redis).timeout == expected


def test_a_job_finding_its_versions_search_under_way_leaves_the_move_to_it(
    container: Container, workers_redis: redis.Redis, drain: Callable[[], None]
) -> None:
    game_id = _ai_to_start(container)
    version = container.commands.load(game_id).version
    key = ai_due.lease_key(game_id, version)
    workers_redis.set(key, "another job's", px=60_000)  # as a search running elsewhere holds it
    project_jobs.project(container.context, game_id)
    drain()  # a real worker runs the job (and its catch-up pass, which leaves a leased move)
    assert container.commands.load(game_id).version == version
    workers_redis.delete(key)  # that search died without moving (its lease expired)
    ai_due.enqueue_ai_move(container.context, game_id, version, ai_due.CATCH_UP)
    drain()
    game, state, now, _ = container.commands.load(game_id)
    assert now > version and 0 not in game.to_act(state)  # moved; the person's turn now
    assert not workers_redis.keys(f"ai:{{{game_id}}}:lease:*")  # released once submitted


def test_a_default_worker_leaves_ai_moves_to_an_ai_worker_and_takes_them_back(
    container: Container, workers_redis: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    alive = [False]
    monkeypatch.setattr(worker, "ai_worker_alive", lambda *_: alive[0])
    default = worker.make_worker(container.context)
    served = lambda: [q.name for q in default._ordered_queues]  # noqa: E731
    default.run_maintenance_tasks()
    assert wq.AI in served()  # no AI worker: it plays the AI games
    alive[0] = True
    default.run_maintenance_tasks()
    assert served() == [q for q in wq.QUEUES if q not in worker.FALLBACK]
    alive[0] = False  # the AI worker restarts: gone for a moment
    default.run_maintenance_tasks()
    assert wq.AI not in served()
    for name in worker.FALLBACK:  # gone that long: it takes the AI moves (and reviews) over
        default._seen_at[name] -= worker.AI_WORKER_STALE
    default.run_maintenance_tasks()
    assert served() == list(wq.QUEUES)
    assert worker.make_worker(container.context, queues=[wq.AI]).ai_fallback is False
