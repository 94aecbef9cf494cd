"""Finished games move to the archive (files, or an S3-compatible server: moto's, over HTTP) and
read exactly as before: the API's JSON, the pages, the audit, the rebuild; the store keeps only
a marker. A crash between the two phases leaves the game whole; a running game never moves."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import msgspec
import pytest
import redis
from flask import Flask
from moto.server import ThreadedMotoServer

from api.app import create_app
from api.cli import main as omerta
from services.eventstore import audit, keys, shards
from services.eventstore.archive import Archive, Archived, FileArchive, pack, unpack
from services.eventstore.archive_s3 import S3Archive
from services.eventstore.store import EventStore, now_ms
from services.games.commands import CommandService
from services.games.repository import EventStoreRepository
from services.readside import readmodels as rm
from services.readside import reviews
from services.readside.archiving import DAY_MS, Archiver, Passed, Refused
from services.readside.ratings import Ratings
from tests.api.helpers import Api, Who, container_of
from tests.services.helpers import play_out
from workers.projection import rebuild
from workers.projection.projector import Projector

pytestmark = pytest.mark.server

BUCKET = "omerta-archive"


@pytest.fixture(scope="module")
def s3_endpoint() -> Iterator[str]:
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    yield f"http://{host}:{port}"
    server.stop()


@pytest.fixture(params=["files", "s3"])
def archive(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Archive:
    """The archive, and the same one in the environment (for the apps' and the CLI's
    ``bootstrap()``)."""
    monkeypatch.setenv("OMERTA_VAR", str(tmp_path))
    if request.param == "files":
        return FileArchive(tmp_path / "archive")
    endpoint = request.getfixturevalue("s3_endpoint")
    for name, value in {
        "AWS_ENDPOINT_URL": endpoint,
        "AWS_ACCESS_KEY_ID": "omerta",
        "AWS_SECRET_ACCESS_KEY": "omerta-secret",
        "AWS_DEFAULT_REGION": "us-east-1",
    }.items():
        monkeypatch.setenv(name, value)
    prefix = tmp_path.name  # one test's objects apart from another's
    monkeypatch.setenv("OMERTA_ARCHIVE_S3_URL", f"s3://{BUCKET}/{prefix}")
    client = boto3.client("s3")
    client.create_bucket(Bucket=BUCKET)
    return S3Archive(f"s3://{BUCKET}/{prefix}", client)


@pytest.fixture
def service(real_redis: redis.Redis, archive: Archive) -> CommandService:
    store = EventStore(real_redis, archived=Archived(real_redis, archive))
    projector, ratings = Projector(store), Ratings(real_redis)

    def project_and_rate(game_id: str, *_: object) -> None:  # as the workers' jobs do
        projector.project(game_id)
        ratings.rate(game_id)

    return CommandService(EventStoreRepository(store, hooks=[project_and_rate]))


@pytest.fixture
def app(service: CommandService) -> Flask:
    return create_app(container_of(service), stream_seconds=0)


def played_out(api: Api, ann: Who, bob: Who, seed: int) -> str:
    made = api.new_game(ann, game="famiglia", seats=2)
    game_id = made["game_id"]
    api.join(bob, game_id, made["invites"][0]["code"])
    rng = random.Random(seed)
    while (game := api.ok("GET", f"/games/{game_id}"))["result"] is None:
        who = {ann.id: ann, bob.id: bob}[game["seats"][game["to_act"][0]]["player"]]
        api.random_move(who, game_id, rng)
    return game_id


def everything(api: Api, service: CommandService, game_id: str, ann: Who, bob: Who) -> Any:
    """What a reader can see of the game: the API's answers as bytes (its chat too), the pages,
    the audit."""
    version = api.ok("GET", f"/games/{game_id}")["version"]
    paths = [
        f"/games/{game_id}",
        f"/games/{game_id}/view",
        f"/games/{game_id}/history",
        f"/games/{game_id}/history?after=3",
        f"/games/{game_id}/chat",
        f"/games/{game_id}/events",  # the live stream: its events, then its end
        *(f"/games/{game_id}/replay/{v}" for v in (1, version // 2, version)),
        "/me/games",
        "/games?status=finished",
        f"/profile/{ann.id}",
        f"/play/{game_id}",
        f"/play/{game_id}/replay",
    ]
    seen = {}
    for who in (ann, bob, None):
        for path in paths:
            response = api.call("GET", path, who)
            seen[(who.name if who else None, path)] = (response.status_code, response.get_data())
    # A command is refused: game_over before the move, game_archived after it
    # (test_an_archived_game_is_read_and_rematched_but_written_no_more).
    return (
        seen,
        service.store.rows(game_id),
        service.store.meta(game_id),
        service.store.command_records(game_id, 2),
        audit.verify(service.store, game_id),
    )


def stored_keys(client: redis.Redis, game_id: str) -> list[str]:
    moved = [keys.events_key(game_id), keys.meta_key(game_id), rm.game_key(game_id)]
    moved += [keys.commands_key(game_id, seat) for seat in (None, 0, 1)]
    return [key for key in moved if client.exists(key)]


def test_an_archived_game_reads_as_before(
    api: Api, service: CommandService, real_redis: redis.Redis, archive: Archive
) -> None:
    ann, bob = api.player("Ann"), api.player("Bob")
    finished = played_out(api, ann, bob, 1)
    running = api.new_game(ann, game="famiglia", seats=2)["game_id"]
    before = everything(api, service, finished, ann, bob)
    running_keys = stored_keys(real_redis, running)
    archiver = Archiver(service.store)

    assert archiver.archive_older(30, now_ms()) == Passed(0, 0)  # ended just now
    assert archiver.archive_older(30, now_ms() + 31 * DAY_MS) == Passed(1, 0)

    assert stored_keys(real_redis, finished) == []
    assert real_redis.hexists(keys.archived_key(shards.of(finished)), finished)
    assert stored_keys(real_redis, running) == running_keys  # a running game stays
    assert everything(api, service, finished, ann, bob) == before
    # Another process (its own store objects: an empty cache) reads it from the archive too.
    other = CommandService(
        EventStoreRepository(EventStore(real_redis, archived=Archived(real_redis, archive)))
    )
    fresh = Api(create_app(container_of(other), stream_seconds=0).test_client())
    assert everything(fresh, other, finished, ann, bob) == before
    assert sorted(service.store.game_ids()) == sorted([finished, running])
    # Again: nothing left to do (the cursor moved on, and the game is marked).
    assert archiver.archive_older(30, now_ms() + 31 * DAY_MS) == Passed(0, 0)
    assert archiver.archive(finished) == "done"

    rebuilt = rebuild.rebuild(service.store)
    assert rebuilt.differences == []
    assert stored_keys(real_redis, finished) == []  # rebuilt, compared, and gone again
    assert everything(api, service, finished, ann, bob) == before


def test_the_commands_read_archived_games(
    api: Api, service: CommandService, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``omerta archive``, ``omerta verify --all``, ``omerta rebuild`` through the composition
    root's archive (the environment's: files or S3)."""
    monkeypatch.setenv("REDIS_URL", redis_url)
    ann, bob = api.player("Ann"), api.player("Bob")
    finished = played_out(api, ann, bob, 2)
    assert omerta(["archive", "--older-than", "0", "--quiet"]) == 0
    assert service.store.archived is not None
    assert service.store.archived.marker(finished) is not None
    assert omerta(["verify", "--all"]) == 0
    assert omerta(["rebuild", "--quiet"]) == 0


def test_omerta_archive_skipping_a_game_owed_a_review_succeeds(
    api: Api,
    service: CommandService,
    real_redis: redis.Redis,
    redis_url: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A game owed a review waits for it (a documented reason): counted, exit 0; exit 1 is
    kept for a failure."""
    monkeypatch.setenv("REDIS_URL", redis_url)
    ann, bob = api.player("Ann"), api.player("Bob")
    owed = played_out(api, ann, bob, 6)
    real_redis.zadd(reviews.owed_key(shards.of(owed)), {owed: now_ms()})
    assert omerta(["archive", "--older-than", "0", "--quiet"]) == 0
    assert capsys.readouterr().out == "0 games archived, 1 waiting for a later pass\n"
    assert service.store.archived is not None
    assert service.store.archived.marker(owed) is None
    assert len(stored_keys(real_redis, owed)) >= 3


def test_an_archived_game_is_read_and_rematched_but_written_no_more(
    api: Api, service: CommandService, real_redis: redis.Redis
) -> None:
    """What an archived game accepts (docs/api.md, docs/players.md): reading (the pages, its
    history, its chat: ``test_an_archived_game_reads_as_before``) and a rematch; a move, a
    table command (a concession, a draw offer) or a chat message is 409 ``game_archived``, and
    nothing is written."""
    ann, bob = api.player("Ann"), api.player("Bob")
    game_id = played_out(api, ann, bob, 7)
    said = api.call("POST", f"/games/{game_id}/chat", ann, json={"text": "good game"})
    assert said.status_code == 201
    path = f"/games/{game_id}/commands"
    before = api.call("POST", path, ann, json={"command": {"type": "concede"}})
    assert (before.status_code, before.json["code"]) == (422, "game_over")  # finished, not moved
    assert Archiver(service.store).archive(game_id) == "ok"
    version = service.store.version(game_id)

    for command in ({"type": "concede"}, {"type": "offer_draw"}, {"type": "pass"}):
        refused = api.call("POST", path, bob, json={"command": command})
        assert refused.status_code == 409, (command, refused.json)
        assert refused.json["code"] == "game_archived"
        assert refused.headers["Content-Type"] == "application/problem+json"
    chat = f"/games/{game_id}/chat"
    refused = api.call("POST", chat, bob, json={"text": "still there?"})
    assert (refused.status_code, refused.json["code"]) == (409, "game_archived")
    japanese = api.call("POST", chat, bob, json={"text": "?"}, headers={"Accept-Language": "ja"})
    assert japanese.json["detail"] != refused.json["detail"]
    assert [m["text"] for m in api.ok("GET", chat, ann)["messages"]] == ["good game"]
    assert service.store.version(game_id) == version
    assert stored_keys(real_redis, game_id) == []

    rematch = api.call("POST", f"/games/{game_id}/rematch", ann)
    assert rematch.status_code == 200, rematch.json
    assert api.ok("GET", f"/games/{rematch.json['game_id']}", ann)["result"] is None


def test_a_crash_between_the_phases_leaves_the_game_whole(
    api: Api, service: CommandService, real_redis: redis.Redis
) -> None:
    ann, bob = api.player("Ann"), api.player("Bob")
    game_id = played_out(api, ann, bob, 3)
    before = everything(api, service, game_id, ann, bob)
    archiver = Archiver(service.store)

    bundle = archiver.write(game_id)  # phase 1, then the process dies
    assert stored_keys(real_redis, game_id) != []
    assert not real_redis.hexists(keys.archived_key(shards.of(game_id)), game_id)
    assert everything(api, service, game_id, ann, bob) == before

    # The game changed meanwhile (its read model rewritten at another version): no move.
    real_redis.hset(rm.game_key(game_id), "version", bundle.version - 1)
    assert archiver.commit(bundle) == "changed"
    assert not real_redis.hexists(keys.archived_key(shards.of(game_id)), game_id)
    real_redis.hset(rm.game_key(game_id), "version", bundle.version)

    assert archiver.archive(game_id) == "ok"  # run again: written again, then moved
    assert archiver.commit(bundle) == "done"  # a second commit changes nothing
    assert stored_keys(real_redis, game_id) == []
    assert everything(api, service, game_id, ann, bob) == before


def test_a_running_game_is_never_archived(
    api: Api, service: CommandService, real_redis: redis.Redis
) -> None:
    ann, bob = api.player("Ann"), api.player("Bob")
    made = api.new_game(ann, game="famiglia", seats=2)
    api.join(bob, made["game_id"], made["invites"][0]["code"])
    with pytest.raises(Refused):
        Archiver(service.store).write(made["game_id"])
    assert Archiver(service.store).archive_older(0, now_ms() + 365 * DAY_MS) == Passed(0, 0)
    assert len(stored_keys(real_redis, made["game_id"])) >= 3


def test_a_damaged_archive_is_never_committed(
    api: Api, service: CommandService, real_redis: redis.Redis
) -> None:
    ann, bob = api.player("Ann"), api.player("Bob")
    game_id = played_out(api, ann, bob, 4)
    archiver = Archiver(service.store)

    class Lossy:
        """An archive that loses the last byte of what it keeps."""

        def __init__(self, inner: Archive) -> None:
            self.inner = inner

        def put(self, game_id: str, data: bytes) -> None:
            self.inner.put(game_id, data[:-1])

        def get(self, game_id: str) -> bytes | None:
            return self.inner.get(game_id)

    assert service.store.archived is not None
    archiver.archived = Archived(real_redis, Lossy(service.store.archived.archive))
    with pytest.raises(Refused, match="read back"):
        archiver.archive(game_id)
    assert archiver.archive_older(0, now_ms() + DAY_MS) == Passed(0, 0, failed=1)
    assert not real_redis.hexists(keys.archived_key(shards.of(game_id)), game_id)
    assert len(stored_keys(real_redis, game_id)) >= 4


def test_a_missing_archive_is_unavailable_not_an_error(
    api: Api, service: CommandService, real_redis: redis.Redis, tmp_path: Path
) -> None:
    """A process whose archive lacks the game (a backup restored without it) answers 503."""
    ann, bob = api.player("Ann"), api.player("Bob")
    game_id = played_out(api, ann, bob, 5)
    assert Archiver(service.store).archive(game_id) == "ok"
    empty = Archived(real_redis, FileArchive(tmp_path / "elsewhere"))
    elsewhere = CommandService(EventStoreRepository(EventStore(real_redis, archived=empty)))
    other = Api(create_app(container_of(elsewhere), stream_seconds=0).test_client())
    for path in (f"/games/{game_id}/history", f"/games/{game_id}"):
        response = other.call("GET", path, ann)
        assert response.status_code == 503, (path, response.status_code)
        assert response.json["code"] == "store_unavailable"


def test_read_models_still_holding_views_rebuild_without_a_difference(
    real_redis: redis.Redis, tmp_path: Path
) -> None:
    """Read models once held every seat's view (a ``views`` field, no longer written): the
    rebuild drops it from the store's read models and leaves it in an archived one, and counts
    neither a difference; any other field that differs is still found."""
    files = FileArchive(tmp_path / "archive")
    store = EventStore(real_redis, archived=Archived(real_redis, files))
    service = CommandService(
        EventStoreRepository(store, hooks=[lambda game_id, *_: Projector(store).project(game_id)])
    )
    kept, moved = (service.create_game("famiglia", 2) for _ in range(2))
    for seed, game_id in enumerate((kept, moved)):
        play_out(service, game_id, random.Random(seed))
        Ratings(real_redis).rate(game_id)  # as the rating job does
        real_redis.hset(rm.game_key(game_id), "views", b"as an earlier version wrote them")
    assert Archiver(store).archive(moved) == "ok"

    assert rebuild.rebuild(store).differences == []
    assert not real_redis.hexists(rm.game_key(kept), "views")
    data = files.get(moved)
    assert data is not None and b"views" in (unpack(data).hash(rm.game_key(moved)) or {})

    bundle = unpack(data)  # the archived read model's index entries changed: a difference
    key = rm.game_key(moved)
    changed = {**(bundle.hash(key) or {}), b"indexes": b"[]"}
    hashes = {**bundle.hashes, key: sorted(changed.items())}
    files.put(moved, pack(msgspec.structs.replace(bundle, hashes=hashes)))
    afresh = EventStore(real_redis, archived=Archived(real_redis, files))  # no cached bundle
    assert rebuild.rebuild(afresh).differences == [key]
