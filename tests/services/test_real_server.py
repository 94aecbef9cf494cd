"""The store against a real valkey-server (started by the tests): races between processes,
killed writers, server crashes and restarts from the append-only file, the CLI."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest
import redis

from services.errors import CommandIdReused, Unavailable
from services.eventstore import audit, keys
from services.eventstore.store import EventStore
from services.games.commands import CommandService
from services.games.repository import EventStoreRepository
from services.platform.embedded import EmbeddedServer
from tests.feeds import feed_length
from tests.services import racer
from tests.services.helpers import pick_move, play_out, tamper
from workers.projection.projector import Projector

pytestmark = pytest.mark.server

ROOT = Path(__file__).resolve().parents[2]
Factory = Callable[..., EmbeddedServer]


def check_store(client: redis.Redis, logs: list[Path], killed: bool = False) -> int:
    """Every stream is a racer's game and passes ``racer.check``; the feeds hold every game's
    start and every stored command; the number of acknowledged commands."""
    game_ids = sorted(EventStore(client).game_ids())
    assert game_ids == sorted(racer.games(client))
    acked = racer.check(client, logs, killed)
    carried = racer.stored_commands(
        CommandService(EventStoreRepository(EventStore(client))), game_ids
    )
    assert feed_length(client) == len(game_ids) + len(carried)
    return len(acked)


def dump_streams(client: redis.Redis) -> dict[bytes, Any]:
    return {key: client.xrange(key) for key in client.scan_iter(match="game:*:events")}


def test_racing_processes_lose_and_duplicate_nothing_and_survive_a_server_crash(
    embedded_server_factory: Factory, tmp_path: Path
) -> None:
    server = embedded_server_factory(tmp_path / "data")
    racers = racer.start(server.url, 8, 300, tmp_path)
    assert [p.wait(timeout=240) for p in racers] == [0] * 8
    client = server.client()
    logs = sorted(tmp_path.glob("racer-*.log"))
    acked = check_store(client, logs)
    assert acked > 300
    assert sum(log.read_text().count("\ndup ") for log in logs) > 10
    before = dump_streams(client)
    client.close()

    server.kill()  # a crash: no shutdown, the AOF is all there is
    restarted = embedded_server_factory(tmp_path / "data")
    client = restarted.client()
    assert dump_streams(client) == before
    assert check_store(client, logs) == acked


def test_writers_killed_mid_run_leave_every_stream_consistent(
    embedded_server_factory: Factory, tmp_path: Path
) -> None:
    server = embedded_server_factory()
    racers = racer.start(server.url, 4, 1_000_000, tmp_path)
    logs = [tmp_path / f"racer-{w}.log" for w in range(4)]
    deadline = time.monotonic() + 60
    while sum(log.read_text().count("\nok ") for log in logs if log.exists()) < 200:
        assert time.monotonic() < deadline and all(p.poll() is None for p in racers)
        time.sleep(0.05)
    for process in racers:
        process.send_signal(signal.SIGKILL)
        process.wait()
    assert check_store(server.client(), logs, killed=True) >= 200


def test_a_clean_restart_keeps_every_event(
    embedded_server_factory: Factory, tmp_path: Path
) -> None:
    server = embedded_server_factory(tmp_path / "data")
    svc = CommandService(EventStoreRepository(EventStore(server.client())))
    game_id = svc.create_game("gangsta", 3, {})
    play_out(svc, game_id, random.Random(1))
    before = dump_streams(server.client())
    server.stop()
    assert server.process is not None and server.process.returncode == 0
    restarted = embedded_server_factory(tmp_path / "data")
    assert dump_streams(restarted.client()) == before
    assert audit.verify(EventStore(restarted.client()), game_id) == []


def test_an_append_the_server_refuses_leaves_nothing_behind(real_redis: redis.Redis) -> None:
    svc = CommandService(EventStoreRepository(EventStore(real_redis)))
    game_id = svc.create_game("famiglia", 2, {})
    found = pick_move(svc, game_id, random.Random(1))
    assert found is not None
    before = {key: real_redis.dump(key) for key in real_redis.keys("*")}
    real_redis.config_set("maxmemory", 1)
    try:
        with pytest.raises(Unavailable) as caught:
            svc.handle(game_id, *found, "refused")
    finally:
        real_redis.config_set("maxmemory", 0)
    assert (caught.value.status, caught.value.code) == (503, "store_unavailable")
    assert {key: real_redis.dump(key) for key in real_redis.keys("*")} == before
    accepted = svc.handle(game_id, *found, "refused")  # the same id, now accepted once
    again = CommandService(EventStoreRepository(EventStore(real_redis))).handle(
        game_id, *found, "refused"
    )
    assert again.duplicate and (again.first, again.version) == (accepted.first, accepted.version)
    assert audit.verify(svc.store, game_id) == []


def omerta(url: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "REDIS_URL": url}
    omerta_script = Path(sys.executable).with_name("omerta")
    return subprocess.run(
        [str(omerta_script), *args], env=env, capture_output=True, text=True, timeout=60
    )


def test_omerta_verify_and_events(real_redis: redis.Redis, redis_url: str) -> None:
    svc = CommandService(EventStoreRepository(EventStore(real_redis)))
    games = [svc.create_game(*kind) for kind in [("famiglia", 2), ("gangsta", 4), ("gangsta", 2)]]
    for game_id in games[:2]:
        play_out(svc, game_id, random.Random(2))
    ok = omerta(redis_url, "verify", "--all")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert sorted(ok.stdout.split()) == sorted(["ok"] * 3 + games)

    shown = omerta(redis_url, "events", games[2])
    assert shown.returncode == 0 and len(shown.stdout.splitlines()) == svc.load(games[2]).version
    as_json = omerta(redis_url, "events", games[2], "--json").stdout.splitlines()
    started = msgspec.json.decode(as_json[0])
    assert started["type"] == "game_started" and started["event"]["secret"] is None
    full_lines = omerta(redis_url, "events", games[2], "--full", "--json").stdout.splitlines()
    full = msgspec.json.decode(full_lines[0])
    assert full["event"]["secret"] is not None

    tamper(real_redis, games[1], 7, lambda data: {**data, "forged": True})
    failed = omerta(redis_url, "verify", "--all")
    assert failed.returncode == 1
    assert f"FAIL {games[1]}: version 8: hash chain broken" in failed.stdout
    assert omerta(redis_url, "verify", games[0]).returncode == 0
    missing = omerta(redis_url, "events", "no-such-game")
    assert missing.returncode == 1 and "unknown_game" in missing.stderr


def run_python(code: str, env: dict[str, str], *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", code, *args],
        env=env,
        cwd=ROOT,
        text=True,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )


def test_without_redis_url_an_embedded_server_is_started_shared_and_stopped(
    tmp_path: Path,
) -> None:
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    env["OMERTA_VAR"] = str(tmp_path / "var")
    owner = run_python(
        "from bootstrap import bootstrap\n"
        "made = bootstrap()\n"
        "game_id = made.commands.create_game('gangsta', 2)\n"
        "print(game_id, made.store.connection_pool.connection_kwargs['port'], flush=True)\n"
        "input()\n",
        env,
    )
    assert owner.stdout is not None and owner.stdin is not None
    game_id, port = owner.stdout.readline().split()
    guest = run_python(
        "import sys\nfrom bootstrap import bootstrap\n"
        "made = bootstrap()\n"
        "print(made.commands.load(sys.argv[1]).version,"
        " made.store.connection_pool.connection_kwargs['port'])\n",
        env,
        game_id,
    )
    guest_out, _ = guest.communicate(timeout=30)
    assert guest_out.split()[1] == port and int(guest_out.split()[0]) > 0
    owner.communicate("\n", timeout=30)
    assert owner.returncode == 0
    with pytest.raises(redis.ConnectionError):
        redis.Redis(port=int(port)).ping()
    assert (tmp_path / "var" / "appendonlydir").is_dir()

    later = run_python(
        "import sys\nfrom bootstrap import bootstrap\n"
        "print(bootstrap().commands.load(sys.argv[1]).meta.game)\n",
        env,
        game_id,
    )
    assert later.communicate(timeout=30)[0].strip() == "gangsta"


def test_command_ids_are_scoped_by_seat_on_the_real_server(
    real_redis: redis.Redis, redis_url: str
) -> None:
    """The append script's idempotency records: one seat's id never blocks another seat, a
    seat's retry is still a duplicate, a seat's id reused for another command is refused."""
    svc = CommandService(EventStoreRepository(EventStore(real_redis)))
    game_id = svc.create_game("famiglia", 2)
    rng = random.Random(3)
    used: dict[int, tuple[Any, int]] = {}
    while len(used) < 2:
        found = pick_move(svc, game_id, rng)
        assert found is not None
        seat, command = found
        if seat in used:
            svc.handle(game_id, seat, command, f"other-{svc.load(game_id).version}")
            continue
        accepted = svc.handle(game_id, seat, command, "same-key")
        assert not accepted.duplicate
        used[seat] = (command, accepted.version)
    for seat, (command, version) in used.items():
        again = CommandService(EventStoreRepository(EventStore(real_redis))).handle(
            game_id, seat, command, "same-key"
        )
        assert again.duplicate and again.version == version
        assert type(command).__struct_config__.tag != "pass"
        with pytest.raises(CommandIdReused):
            svc.handle(game_id, seat, {"type": "pass"}, "same-key")
    for seat in used:
        assert real_redis.hexists(keys.commands_key(game_id, seat), "same-key")
    assert not real_redis.hexists(keys.commands_key(game_id), "same-key")
    assert audit.verify(svc.store, game_id) == []
    ok = omerta(redis_url, "verify", game_id)
    assert ok.returncode == 0, ok.stdout + ok.stderr


def test_a_game_stored_before_scoping_still_verifies_retries_and_rebuilds(
    real_redis: redis.Redis, redis_url: str
) -> None:
    """Games stored with every command's record in the one unscoped hash (the layout before
    command ids were scoped by seat) verify, replay, and keep refusing their old ids."""
    store = EventStore(real_redis)
    projector = Projector(store)  # read models as the workers keep them, for the rebuild
    svc = CommandService(
        EventStoreRepository(store, hooks=[lambda game_id, *_: projector.project(game_id)])
    )
    game_id = svc.create_game("famiglia", 2)
    rng = random.Random(4)
    sent = []
    for n in range(6):
        found = pick_move(svc, game_id, rng)
        assert found is not None
        svc.handle(game_id, *found, f"old-{n}")
        sent.append(found)
    for seat in range(2):  # back to the old layout: one hash for the whole game
        scoped = keys.commands_key(game_id, seat)
        for command_id, record in real_redis.hgetall(scoped).items():
            real_redis.hset(keys.commands_key(game_id), command_id, record)
        real_redis.delete(scoped)
    fresh = CommandService(EventStoreRepository(store, hooks=svc.hooks))
    assert audit.verify(fresh.store, game_id) == []
    seat, command = sent[-1]
    again = fresh.handle(game_id, seat, command, "old-5")
    assert again.duplicate and again.version == fresh.load(game_id).version
    for seat in range(2):  # an id used before scoping stays used, for every seat
        with pytest.raises(CommandIdReused):
            fresh.handle(game_id, seat, {"type": "pass"}, "old-0")
    assert audit.verify(fresh.store, game_id) == []
    for args in (("verify", game_id), ("rebuild",)):
        done = omerta(redis_url, *args)
        assert done.returncode == 0, done.stdout + done.stderr
