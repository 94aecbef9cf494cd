"""The store's settings that lose data, checked at start, against a real server configured
each way (``services.platform.storecheck``), and the processes that refuse to start on it."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import redis

from services.platform import storecheck
from services.platform.embedded import HOST, EmbeddedServer, free_port

pytestmark = pytest.mark.server

Factory = Callable[..., EmbeddedServer]
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def server(embedded_server_factory: Factory) -> EmbeddedServer:
    return embedded_server_factory()


def test_a_store_as_the_embedded_one_is_configured_passes_silently(server: EmbeddedServer) -> None:
    assert storecheck.check(server.client()) == []


@pytest.mark.parametrize("policy", ["allkeys-lru", "volatile-ttl", "allkeys-random"])
def test_a_store_that_evicts_is_refused_naming_the_setting(
    server: EmbeddedServer, policy: str
) -> None:
    client = server.client()
    client.config_set("maxmemory-policy", policy)
    for relaxed in (False, True):  # eviction is never an operator's durability choice
        with pytest.raises(storecheck.UnsafeStore, match=f"maxmemory-policy is {policy}"):
            storecheck.check(client, relaxed=relaxed)


def test_no_aof_or_a_relaxed_fsync_warns_unless_the_operator_chose_it(
    server: EmbeddedServer,
) -> None:
    client = server.client()
    client.config_set("appendfsync", "everysec")
    [warning] = storecheck.check(client)
    assert "appendfsync is everysec" in warning and "OMERTA_ALLOW_RELAXED_DURABILITY" in warning
    assert storecheck.check(client, relaxed=True) == []
    client.config_set("appendonly", "no")
    [warning] = storecheck.check(client)
    assert "appendonly no" in warning
    assert storecheck.check(client, relaxed=True) == []


def test_a_store_that_refuses_config_get_gets_a_warning_that_it_cannot_be_checked(
    server: EmbeddedServer,
) -> None:
    server.client().acl_setuser(
        "app", enabled=True, passwords=["+secret"], keys=["*"], commands=["+@all", "-config"]
    )
    limited = redis.Redis(host=HOST, port=server.port, username="app", password="secret")
    [warning] = storecheck.check(limited)
    assert "could not check" in warning and "noeviction" in warning


def omerta(url: str, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(Path(sys.executable).with_name("omerta")), *args],
        env={**os.environ, "REDIS_URL": url, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize(
    "command",
    [["worker", "--burst"], ["serve", "--bind", "127.0.0.1:0", "--workers", "1"], ["run"]],
    ids=["worker", "serve", "run"],
)
def test_the_processes_refuse_to_start_on_an_evicting_store(
    server: EmbeddedServer, command: list[str]
) -> None:
    server.client().config_set("maxmemory-policy", "allkeys-lru")
    if command == ["run"]:
        command = ["run", "--bind", f"127.0.0.1:{free_port()}", "--web-workers", "1"]
    done = omerta(server.url, *command)
    assert done.returncode == 2, done.stderr
    assert "refusing to start" in done.stderr and "maxmemory-policy is allkeys-lru" in done.stderr


def test_gunicorn_with_the_deployment_config_refuses_an_evicting_store(
    server: EmbeddedServer,
) -> None:
    server.client().config_set("maxmemory-policy", "allkeys-lru")
    gunicorn = str(Path(sys.executable).with_name("gunicorn"))
    config = str(ROOT / "deploy" / "gunicorn.conf.py")
    done = subprocess.run(
        [gunicorn, "-c", config, "--bind", f"127.0.0.1:{free_port()}", "api.serving.server:site()"],
        env={**os.environ, "REDIS_URL": server.url},
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    assert "maxmemory-policy is allkeys-lru" in done.stderr


def test_a_worker_on_a_store_without_fsync_always_warns_and_starts(
    server: EmbeddedServer,
) -> None:
    server.client().config_set("appendfsync", "no")
    done = omerta(server.url, "worker", "--burst")
    assert done.returncode == 0, done.stderr
    assert "warning: the store's appendfsync is no" in done.stderr
    quiet = omerta(server.url, "worker", "--burst", OMERTA_ALLOW_RELAXED_DURABILITY="1")
    assert quiet.returncode == 0 and "appendfsync" not in quiet.stderr
