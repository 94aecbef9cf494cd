"""``omerta archive`` killed (SIGKILL) while it moves games: every game is then either whole in
the store, or archived (its marker, a sound archive, no keys left); run again, it moves the rest,
and every game reads and verifies as before."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
from pathlib import Path

import redis

from bootstrap import Container, bootstrap
from services.eventstore import audit, keys
from services.eventstore.archive import problems, unpack
from services.games.commands import CommandService
from services.games.repository import EventStoreRepository
from services.platform import config
from services.readside import readmodels as rm
from services.readside.ratings import Ratings
from tests.services.helpers import play_out
from tests.workers.helpers import WORKER, served_view, wait

GAMES = 30


def seen(container: Container, game_id: str) -> object:
    """The game's events, its read model's summary and seat 0's view as served (by a service
    with nothing cached: from the archive once the game is there)."""
    summary = container.read_models.summary(game_id)
    served = served_view(CommandService(EventStoreRepository(container.events)), game_id, 0)
    return container.commands.events(game_id), summary, served


def test_a_killed_archiver_leaves_every_game_whole_or_archived(
    real_redis: redis.Redis, redis_url: str, tmp_path: Path
) -> None:
    env = {"OMERTA_VAR": str(tmp_path), "REDIS_URL": redis_url}
    container = bootstrap(config.settings(env), store=real_redis, hooks=[], listeners=())
    svc, rng = container.commands, random.Random(9)
    games = []
    for _ in range(GAMES):
        game_id = svc.create_game("gangsta", 2, {})
        play_out(svc, game_id, rng)
        container.projector.project(game_id)
        Ratings(real_redis).rate(game_id)
        games.append(game_id)
    before = {g: seen(container, g) for g in games}
    store, archived = container.events, container.events.archived
    assert archived is not None

    def marked() -> int:
        return sum(archived.marker(g) is not None for g in games)

    archiver = subprocess.Popen(
        [sys.executable, "-c", WORKER, "archive", "--older-than", "0", "--quiet"],
        env={**os.environ, **env},
    )
    wait(lambda: marked() >= 1, 30, "the first game archived")
    archiver.send_signal(signal.SIGKILL)
    archiver.wait()

    for game_id in games:
        moved = [keys.events_key(game_id), keys.meta_key(game_id), rm.game_key(game_id)]
        left = sum(real_redis.exists(key) for key in moved)
        if archived.marker(game_id) is None:
            assert left == len(moved), f"{game_id}: not archived, yet keys are gone"
        else:
            assert left == 0, f"{game_id}: archived, yet keys are left"
            data = archived.archive.get(game_id)
            assert data is not None and problems(unpack(data), game_id) == []
    print(f"killed after {marked()} of {GAMES} games")

    rerun = subprocess.run(
        [sys.executable, "-c", WORKER, "archive", "--older-than", "0", "--quiet"],
        env={**os.environ, **env},
        timeout=120,
    )
    assert rerun.returncode == 0
    assert marked() == GAMES
    for game_id in games:
        assert seen(container, game_id) == before[game_id]
        assert audit.verify(store, game_id) == []
