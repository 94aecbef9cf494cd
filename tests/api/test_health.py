"""Liveness and readiness: /readyz answers 503 (problem+json) when the store does not."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import msgspec
import pytest
import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from api.app import create_app
from api.cli import main
from api.context import COOKIE
from api.web import register as register_pages
from services.errors import Unavailable
from services.eventstore import shards
from services.eventstore.records import GameMeta
from services.eventstore.store import EventStore, NewEvent
from services.games.commands import CommandService
from services.games.repository import EventStoreRepository
from services.platform.embedded import free_port
from tests.api.helpers import Api, container_of
from tests.cluster import Cluster
from tests.feeds import id_in

META = GameMeta(game="famiglia", seats=2, options={}, ai={}, created=1)
EVENTS = [NewEvent("game_started", 1, msgspec.msgpack.encode({"type": "game_started"}))]


def test_ready_only_with_a_store() -> None:
    # No retries: redis-py's default retries with backoff would take seconds here.
    nowhere = redis.Redis(port=free_port(), socket_connect_timeout=1, retry=Retry(NoBackoff(), 0))
    app = create_app(
        container_of(CommandService(EventStoreRepository(EventStore(nowhere), hooks=[])))
    )
    api = Api(app.test_client())
    assert api.ok("GET", "/healthz") == {"status": "ok"}
    down = api.call("GET", "/readyz")
    assert (down.status_code, down.json["code"]) == (503, "store_unavailable")
    refused = api.call("POST", "/players", json={"name": "Ann"})
    assert (refused.status_code, refused.json["code"]) == (503, "store_unavailable")


def test_a_page_opens_without_a_store_whether_the_cookie_names_a_player_or_not() -> None:
    """A page asks the store whether its cookie names a player (so a visitor's scripts never
    ask ``GET /me``); a store that does not answer leaves that to the scripts, never a 503."""
    nowhere = redis.Redis(port=free_port(), socket_connect_timeout=1, retry=Retry(NoBackoff(), 0))
    app = create_app(
        container_of(CommandService(EventStoreRepository(EventStore(nowhere), hooks=[])))
    )
    register_pages(app)
    client = app.test_client()
    visitor = client.get("/")
    assert visitor.status_code == 200 and b"data-signed-in" not in visitor.data
    client.set_cookie(COOKIE, "a-token-the-store-cannot-check")
    unknown = client.get("/")
    assert unknown.status_code == 200 and b"data-signed-in" in unknown.data


@pytest.mark.server
def test_ready_with_the_store(api: Api) -> None:
    assert api.ok("GET", "/readyz") == {"status": "ok"}


def wait_until(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


@pytest.mark.cluster
def test_ready_names_the_shards_that_refuse_writes_after_a_failover(
    tmp_path: Path,
    redis_url: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """With ``OMERTA_MIN_REPLICAS=1`` and one replica per master, a failover leaves the promoted
    master without a replica: its shards' appends are refused (503) until the killed node is
    back as its replica. /readyz answered 200 meanwhile and ``omerta status`` said nothing."""
    with Cluster(tmp_path / "cluster") as cluster:
        client = cluster.client()
        store = EventStore(client, min_replicas=1, replica_timeout_ms=200)
        api = Api(
            create_app(
                container_of(CommandService(EventStoreRepository(store, hooks=[])))
            ).test_client()
        )
        monkeypatch.delenv("REDIS_URL", raising=False)
        monkeypatch.setenv("REDIS_CLUSTER_URL", cluster.url)
        monkeypatch.setenv("RQ_REDIS_URL", redis_url)
        monkeypatch.setenv("OMERTA_MIN_REPLICAS", "1")
        assert api.ok("GET", "/readyz") == {"status": "ok"}

        killed = cluster.kill_master_of(shards.key("any", 0))
        promoted = cluster.wait_promoted(shards.key("any", 0))
        orphaned = [
            s for s in range(shards.SHARDS) if cluster.master_of(shards.key("any", s)) == promoted
        ]
        address = f"127.0.0.1:{promoted.port}"

        def degraded() -> bool:
            answer = api.call("GET", "/readyz")
            return answer.status_code == 503 and answer.json["code"] == "store_degraded"

        wait_until(degraded, 30, "/readyz to say the store is degraded")
        answer = api.call("GET", "/readyz")
        assert answer.json["params"] == {
            "refused_shards": orphaned,
            "masters_without_replicas": [address],
        }
        # The shards named do refuse writes.
        with pytest.raises(Unavailable, match="0 of the 1 replicas"):
            store.append(id_in(orphaned[0], 16), 0, b"", "", None, EVENTS, meta=META)
        # A proxy that asks so keeps routing to the process (every process sees the same store).
        assert api.ok("GET", "/readyz?degraded=ok") == {
            "status": "degraded",
            "refused_shards": orphaned,
            "masters_without_replicas": [address],
        }
        bad = api.call("GET", "/readyz?degraded=yes")
        assert (bad.status_code, bad.json["code"]) == (400, "bad_parameter")
        assert main(["status"]) == 0
        assert json.loads(capsys.readouterr().out)["replication"] == {
            "min_replicas": 1,
            "refused_shards": orphaned,
            "masters_without_replicas": [address],
        }

        killed.restart()  # back, as the promoted master's replica
        wait_until(lambda: api.call("GET", "/readyz").status_code == 200, 60, "/readyz ok again")
        assert api.ok("GET", "/readyz") == {"status": "ok"}
        client.close()
