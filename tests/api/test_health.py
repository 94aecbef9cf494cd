"""Liveness and readiness: /readyz answers 503 (problem+json) when the store does not."""

from __future__ import annotations

import pytest
import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from api.app import create_app
from services.commands import CommandService
from services.embedded import free_port
from services.players import Players
from services.store import EventStore
from tests.api.helpers import Api


def test_ready_only_with_a_store() -> None:
    # No retries: redis-py's default retries with backoff would take seconds here.
    nowhere = redis.Redis(port=free_port(), socket_connect_timeout=1, retry=Retry(NoBackoff(), 0))
    app = create_app(CommandService(EventStore(nowhere), hooks=[]), Players(nowhere))
    api = Api(app.test_client())
    assert api.ok("GET", "/healthz") == {"status": "ok"}
    down = api.call("GET", "/readyz")
    assert (down.status_code, down.json["code"]) == (503, "store_unavailable")
    refused = api.call("POST", "/players", json={"name": "Ann"})
    assert (refused.status_code, refused.json["code"]) == (503, "store_unavailable")


@pytest.mark.server
def test_ready_with_the_store(api: Api) -> None:
    assert api.ok("GET", "/readyz") == {"status": "ok"}
