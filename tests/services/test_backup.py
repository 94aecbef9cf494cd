"""Backups (``omerta export``, ``omerta import``): every key the service writes has a family;
the drill (play, export, wipe, import, verify, rebuild identical, games go on); a damaged,
forged or misplaced import writes nothing; a single server's backup restores into a cluster."""

from __future__ import annotations

import os
import random
import shutil
import stat
from pathlib import Path
from typing import Any, BinaryIO

import pytest
import redis
from redis.cluster import RedisCluster

from api.app import create_app
from api.cli import main as omerta
from bootstrap import Container, bootstrap
from services.backup import backupfile
from services.backup import export as export_module
from services.backup.export import export
from services.backup.families import FAMILIES, Fate, family_of
from services.backup.restore import check, restore
from services.eventstore import audit, keys
from services.eventstore.store import EventStore
from services.platform.embedded import EmbeddedServer
from tests.api.helpers import Api
from tests.services import backup_scenario
from tests.services.backup_scenario import Scenario, contents
from workers.projection.rebuild import rebuild, snapshot

pytestmark = pytest.mark.server


@pytest.fixture(scope="module")
def played(
    embedded_server: EmbeddedServer, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Scenario, backup_scenario.Dumped]:
    """The scenario played once for the module (its AI games are most of the module's time) on
    the session's server, and the store it left."""
    client = embedded_server.client()
    client.flushall()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("REDIS_URL", embedded_server.url)
        backup_scenario.settings(patch, str(tmp_path_factory.mktemp("scenario") / "var"))
        container = bootstrap()
        scenario = backup_scenario.play(container, backup_scenario.drainer(container))
    dumped = backup_scenario.dump(client)
    client.close()
    return scenario, dumped


@pytest.fixture
def scenario(
    played: tuple[Scenario, backup_scenario.Dumped],
    real_redis: redis.Redis,
    redis_url: str,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> Scenario:
    """The store as the scenario left it (put back into the emptied server), the settings it
    was played with: each test starts from it as from a scenario played for it alone."""
    monkeypatch.setenv("REDIS_URL", redis_url)
    backup_scenario.settings(monkeypatch, str(tmp_path / "var"))
    backup_scenario.restore(real_redis, played[1])
    return played[0]


def test_every_key_the_service_writes_has_a_family(
    scenario: Scenario, real_redis: redis.Redis
) -> None:
    unknown = sorted(k for k in real_redis.scan_iter(count=1000) if family_of(k) is None)
    assert unknown == [], "classify these in services/backup/families.py"
    used = {family_of(k).name for k in real_redis.scan_iter(count=1000)}  # type: ignore[union-attr]
    # The scenario makes the families that matter; the rest are rare (errors, in-flight state).
    rare = {"AI error", "AI search lease", "passkey challenge", "mail digests", "rate limits"}
    rare |= {"delivery record", "pending notices", "worker leases"}  # omerta worker's
    rare |= {"archived markers"}  # test_archived_games_are_in_the_backup's
    rare |= {"review", "reviews owed", "review progress", "review decisions"}  # reviews off
    assert {f.name for f in FAMILIES} - used <= rare


def test_a_key_of_no_family_is_found() -> None:
    assert family_of(b"game:{abc}:events") is not None
    assert family_of(b"game:{abc}:something-new") is None
    assert family_of(b"player:{abc}:new-records") is None


def test_the_restore_drill(
    scenario: Scenario,
    real_redis: redis.Redis,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Play, export, wipe, import, ``verify --all``, ``rebuild`` identical, and the game under
    way goes on: a move of Ann's (her token still signs her in) and the AI's answer."""
    exported = contents(real_redis, Fate.EXPORTED)
    read_models = snapshot(real_redis)
    path = tmp_path / "omerta.backup"
    assert omerta(["export", str(path)]) == 0
    out = capsys.readouterr()
    assert f"5 games, {len(exported)} keys exported" in out.out, out
    assert "exporting:" in out.err and not Path(f"{path}.partial").exists()
    assert omerta(["export", "--check", str(path)]) == 0
    assert "intact" in capsys.readouterr().out

    real_redis.flushall()
    assert omerta(["import", "--quiet", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"{len(exported)} keys of 5 games imported" in out and "0 problems" in out, out
    assert contents(real_redis, Fate.EXPORTED) == exported
    assert snapshot(real_redis) == read_models
    assert omerta(["verify", "--all"]) == 0
    assert omerta(["rebuild", "--quiet"]) == 0
    assert "identical" in capsys.readouterr().out

    container = bootstrap()  # a service started on the restored store
    drain = backup_scenario.drainer(container)
    with create_app(container).test_client(use_cookies=False) as client:
        api = Api(client)
        assert api.ok("GET", "/me", scenario.ann)["id"] == scenario.ann.id
        before = api.ok("GET", f"/games/{scenario.running}", scenario.ann)
        rng = random.Random(7)
        while 0 not in (table := api.ok("GET", f"/games/{scenario.running}"))["to_act"]:
            assert table["result"] is None, "the game ended before Ann could move"
            drain()
        # A turn may hold several of Ann's moves: she plays until the AI has answered.
        for _ in range(20):
            api.random_move(scenario.ann, scenario.running, rng)
            drain()
            events = api.ok("GET", f"/games/{scenario.running}/history", scenario.ann)["events"]
            actors = {e["actor"] for e in events if e["version"] > before["version"]}
            if 1 in actors or 0 not in api.ok("GET", f"/games/{scenario.running}")["to_act"]:
                break
    assert actors >= {0, 1}, "Ann moved and the AI answered"


def test_archived_games_are_in_the_backup(
    scenario: Scenario,
    real_redis: redis.Redis,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A game moved to the archive is exported from it, and imported back into the store whole:
    the backup alone brings it back (the archive's files are gone too)."""
    store = EventStore(real_redis)
    before = {game_id: store.rows(game_id) for game_id in scenario.finished}
    assert omerta(["archive", "--older-than", "0", "--quiet"]) == 0
    moved = [g for g in scenario.finished if not real_redis.exists(keys.events_key(g))]
    assert moved, "no finished game was archived"
    path = tmp_path / "omerta.backup"
    assert omerta(["export", "--quiet", str(path)]) == 0
    assert "5 games" in capsys.readouterr().out

    real_redis.flushall()
    shutil.rmtree(tmp_path / "var" / "archive")
    assert omerta(["import", "--quiet", str(path)]) == 0
    assert "0 problems" in capsys.readouterr().out
    for game_id in moved:
        assert real_redis.exists(keys.events_key(game_id)), game_id
    assert {game_id: store.rows(game_id) for game_id in scenario.finished} == before
    assert omerta(["verify", "--all"]) == 0


def damaged(path: Path, how: str) -> Path:
    data = bytearray(path.read_bytes())
    if how == "truncated":
        del data[len(data) * 2 // 3 :]
    else:  # one byte altered in the middle
        data[len(data) // 2] ^= 0x01
    out = path.with_name(f"{how}.backup")
    out.write_bytes(bytes(data))
    return out


def forged(path: Path, key: bytes) -> Path:
    """A well-formed backup (a right digest) that holds a key of no exported family."""
    out = path.with_name("forged.backup")
    with out.open("wb") as file:
        writer = backupfile.Writer(
            file, backupfile.Header(backupfile.FORMAT, backupfile.VERSION, 0, "x")
        )
        writer.key(backupfile.Key(key, "string", b"1"), "read models")
        writer.finish(0)
    return out


def test_a_damaged_forged_or_misplaced_import_writes_nothing(
    scenario: Scenario,
    real_redis: redis.Redis,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = tmp_path / "omerta.backup"
    assert omerta(["export", "--quiet", str(path)]) == 0
    # Into a store that is not empty: refused (2), the store as it was.
    before = contents(real_redis, Fate.EXPORTED)
    assert omerta(["import", "--dry-run", str(path)]) == 2
    assert omerta(["import", str(path)]) == 2
    assert "not empty" in capsys.readouterr().err
    assert contents(real_redis, Fate.EXPORTED) == before

    real_redis.flushall()
    bad = {
        damaged(path, "truncated"): "truncated",
        damaged(path, "altered"): "damaged",
        forged(path, b"rm:{abc}"): "no exported family",
    }
    for file, message in bad.items():
        assert omerta(["export", "--check", str(file)]) == 1
        assert omerta(["import", str(file)]) == 1
        err = capsys.readouterr().err
        assert message in err and "nothing written" in err, err
        assert list(real_redis.scan_iter()) == []
    assert omerta(["import", "--dry-run", str(path)]) == 0  # the file itself is sound


def test_a_single_servers_backup_restores_into_a_cluster(
    scenario: Scenario,
    real_redis: redis.Redis,
    cluster_redis: RedisCluster,
    tmp_path: Path,
) -> None:
    path = tmp_path / "omerta.backup"
    with path.open("wb") as out:
        done = export(real_redis, out, "redis://single")
    assert done.problems == [] and done.trailer.games == 5
    assert check(path)[1] == done.trailer
    restore(cluster_redis, path)
    assert contents(cluster_redis, Fate.EXPORTED) == contents(real_redis, Fate.EXPORTED)
    store = EventStore(cluster_redis)
    built = rebuild(store)
    assert built.games == 5
    assert snapshot(cluster_redis) == snapshot(real_redis)
    for game_id in store.game_ids():
        assert audit.verify(store, game_id) == []
    # And back: the cluster's own export restores into the (emptied) single server.
    again = tmp_path / "again.backup"
    with again.open("wb") as out:
        assert export(cluster_redis, out, "cluster").trailer.keys == done.trailer.keys
    expected = contents(real_redis, Fate.EXPORTED)
    real_redis.flushall()
    restore(real_redis, again)
    assert contents(real_redis, Fate.EXPORTED) == expected


def test_a_backup_is_readable_by_its_owner_only(
    container: Container, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A backup holds every player's sign-in secrets: mode 0600 from its creation on (before a
    byte is written), whatever the umask, and as the file it is renamed to."""
    modes: list[int] = []

    def watched(store: object, out: BinaryIO, *rest: Any) -> Any:
        modes.append(stat.S_IMODE(os.fstat(out.fileno()).st_mode))
        return export(store, out, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(export_module, "export", watched)
    path = tmp_path / "omerta.backup"
    (tmp_path / "omerta.backup.partial").write_bytes(b"left by an export killed earlier")
    umask = os.umask(0)
    try:
        assert omerta(["export", "--quiet", str(path)]) == 0
    finally:
        os.umask(umask)
    assert modes == [0o600]
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
