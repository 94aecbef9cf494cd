"""The workers' archiving pass: finished games older than ``OMERTA_ARCHIVE_DAYS`` move to the
archive under the data directory; none while the setting is 0; at most one pass per period."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import redis

from bootstrap import Container, bootstrap
from services.eventstore import keys, shards
from services.eventstore.store import now_ms
from services.platform import config
from services.readside.archiving import DAY_MS, Passed
from services.readside.ratings import Ratings
from tests.services.helpers import play_out
from workers.projection.archive import ArchivePass


def container_with(real_redis: redis.Redis, tmp_path: Path, days: str) -> Container:
    env = {"OMERTA_VAR": str(tmp_path), "OMERTA_ARCHIVE_DAYS": days}
    return bootstrap(config.settings(env), store=real_redis, hooks=[], listeners=())


def finished_game(container: Container) -> str:
    game_id = container.commands.create_game("gangsta", 2, {})
    play_out(container.commands, game_id, random.Random(5))
    container.projector.project(game_id)
    Ratings(container.store).rate(game_id)  # as the rating job does
    return game_id


def test_the_pass_archives_what_ended_days_ago(real_redis: redis.Redis, tmp_path: Path) -> None:
    container = container_with(real_redis, tmp_path, "30")
    game_id = finished_game(container)
    history = container.commands.events(game_id)
    today = ArchivePass(container.context, clock=now_ms)
    assert today.maybe_run(list(range(shards.SHARDS))) == Passed(0, 0)

    later = ArchivePass(container.context, clock=lambda: now_ms() + 31 * DAY_MS)
    assert later.maybe_run(list(range(shards.SHARDS))) == Passed(1, 0)
    assert not real_redis.exists(keys.events_key(game_id))
    assert (tmp_path / "archive" / shards.TAGS[shards.of(game_id)] / f"{game_id}.zst").exists()
    assert container.commands.events(game_id) == history
    assert later.maybe_run(list(range(shards.SHARDS))) is None  # not due again yet


def test_no_pass_while_archiving_is_off(real_redis: redis.Redis, tmp_path: Path) -> None:
    container = container_with(real_redis, tmp_path, "0")
    game_id = finished_game(container)
    never = ArchivePass(container.context, clock=lambda: now_ms() + 3650 * DAY_MS)
    assert never.maybe_run(list(range(shards.SHARDS))) is None
    assert real_redis.exists(keys.events_key(game_id))


def test_a_bad_setting_stops_the_start() -> None:
    for bad in ("-1", "soon", "nan"):
        with pytest.raises(config.ConfigError, match="OMERTA_ARCHIVE_DAYS"):
            config.settings({"OMERTA_ARCHIVE_DAYS": bad})
    with pytest.raises(config.ConfigError, match="OMERTA_ARCHIVE_S3_URL"):
        config.settings({"OMERTA_ARCHIVE_S3_URL": "https://bucket"})
