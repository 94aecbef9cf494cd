"""``deploy/compose.yaml`` and ``deploy/Caddyfile``: no Docker here, so the files' structure is
checked (the services the issue names, their settings, the store's durability, the proxy passing
live events unbuffered), and the one-shot cluster creation's script runs against six real
cluster-enabled nodes, twice (the second run must find the cluster formed and change nothing)."""

from __future__ import annotations

import itertools
import os
import re
import subprocess
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import fakeredis
import pytest
import yaml

from api.app import create_app
from services.eventstore.store import EventStore
from services.games.commands import CommandService
from services.games.repository import EventStoreRepository
from services.platform.config import public_url, settings
from services.platform.embedded import EmbeddedServer
from tests.api.helpers import container_of
from tests.cluster import cli_binary

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
NODES = [f"valkey-{n}" for n in range(1, 7)]
WEB = ["web-1", "web-2"]
WORKERS = ["worker-1", "worker-2", "ai-worker"]
OMERTA = WEB + WORKERS


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    return yaml.safe_load((DEPLOY / "compose.yaml").read_text())


@pytest.fixture(scope="module")
def services(compose: dict[str, Any]) -> dict[str, Any]:
    return compose["services"]


def options(command: list[str]) -> dict[str, str]:
    """``--name value`` pairs of a server's command line."""
    return {a[2:]: b for a, b in itertools.pairwise(command) if a.startswith("--")}


def test_the_services_the_issue_names(services: dict[str, Any]) -> None:
    expected = {*NODES, "valkey-cluster-init", "valkey-rq", *OMERTA, "proxy"}
    assert expected <= set(services)


@pytest.mark.parametrize("name", [*NODES, "valkey-rq"])
def test_every_valkey_is_durable_and_answers_a_healthcheck(
    services: dict[str, Any], name: str
) -> None:
    service = services[name]
    flags = options(service["command"])
    assert flags["appendonly"] == "yes"
    assert flags["appendfsync"] == "always"  # an acknowledged move is on disk
    assert flags["maxmemory-policy"] == "noeviction"  # what services.platform.storecheck demands
    assert "valkey-cli" in service["healthcheck"]["test"]
    assert any(v.endswith(":/data") for v in service["volumes"])


def test_the_cluster_nodes_keep_their_addresses_and_data(services: dict[str, Any]) -> None:
    addresses, volumes = set(), set()
    for name in NODES:
        assert options(services[name]["command"])["cluster-enabled"] == "yes"
        addresses.add(services[name]["networks"]["store"]["ipv4_address"])
        volumes.update(services[name]["volumes"])
    assert len(addresses) == len(NODES)
    assert len(volumes) == len(NODES)
    assert "cluster-enabled" not in options(services["valkey-rq"]["command"])  # RQ: no cluster


def test_the_cluster_is_created_once_the_nodes_answer(services: dict[str, Any]) -> None:
    init = services["valkey-cluster-init"]
    line = " ".join(init["command"][0].replace("\\\n", " ").split())  # continuations joined
    nodes = " ".join(f"{n}:6379" for n in NODES)
    assert f"--cluster create {nodes} --cluster-replicas 1 --cluster-yes" in line
    assert init["depends_on"] == {n: {"condition": "service_healthy"} for n in NODES}
    assert init["restart"] == "no"


@pytest.mark.parametrize("name", OMERTA)
def test_every_process_has_the_cluster_the_rq_server_and_the_settings(
    services: dict[str, Any], name: str
) -> None:
    service = services[name]
    env = service["environment"]
    cluster = re.fullmatch(r"redis://([\w-]+):6379", env["REDIS_CLUSTER_URL"])
    assert cluster and cluster.group(1) in NODES
    assert env["RQ_REDIS_URL"].startswith("redis://valkey-rq:6379")
    assert env["OMERTA_MIN_REPLICAS"] == "1"  # WAIT for the replica before acknowledging
    assert env["OMERTA_PUBLIC_URL"].startswith("https://")
    assert env["OMERTA_SECURE_COOKIES"] == "1"
    assert env["OMERTA_SECRET"].startswith("${OMERTA_SECRET:?")  # required, from deploy/.env
    assert "REDIS_URL" not in env
    assert service["depends_on"]["valkey-cluster-init"] == {
        "condition": "service_completed_successfully"
    }
    assert service["depends_on"]["valkey-rq"] == {"condition": "service_healthy"}
    assert "store" in service["networks"]
    assert service["restart"] == "unless-stopped"


def test_the_commands(services: dict[str, Any]) -> None:
    for name in WEB:
        assert services[name]["command"] == ["omerta", "serve", "--bind", "0.0.0.0:8000"]
        assert "/readyz" in " ".join(services[name]["healthcheck"]["test"])
        assert "front" in services[name]["networks"]
    for name in ("worker-1", "worker-2"):
        assert services[name]["command"][-2:] == ["omerta", "worker"]
    assert services["ai-worker"]["command"] == ["omerta", "worker", "--queues", "ai"]


def test_only_the_proxy_is_published(services: dict[str, Any]) -> None:
    published = [name for name, service in services.items() if service.get("ports")]
    assert published == ["proxy"]
    assert {"80:80", "443:443"} <= set(services["proxy"]["ports"])
    assert "./Caddyfile:/etc/caddy/Caddyfile:ro" in services["proxy"]["volumes"]


def caddy_blocks(text: str) -> list[tuple[str, list[str]]]:
    """The Caddyfile's directive blocks one level inside the site: (the line opening the
    block, its lines); comments dropped."""
    lines = [line.split("#", 1)[0].strip() for line in text.splitlines()]
    lines = [line for line in lines if line]
    blocks: list[tuple[str, list[str]]] = []
    depth = 0
    for line in lines:
        if line.endswith("{"):
            depth += 1
            if depth == 2:
                blocks.append((line[:-1].strip(), []))
                continue
        if line == "}":
            depth -= 1
        elif depth >= 2:
            blocks[-1][1].append(line)
    return blocks


def test_the_proxy_passes_every_live_event_route_unbuffered(services: dict[str, Any]) -> None:
    text = (DEPLOY / "Caddyfile").read_text()
    matcher = re.search(r"^\s*@events path (.+)$", text, re.MULTILINE)
    assert matcher
    matched = set(matcher.group(1).split())
    store = fakeredis.FakeRedis()
    app = create_app(container_of(CommandService(EventStoreRepository(EventStore(store)))))
    # Every stream of the app (its routes ending in /events), in Caddy's glob form.
    streams = {re.sub(r"<[^>]+>", "*", rule.rule) for rule in app.url_map.iter_rules()
               if rule.rule.endswith("/events")}  # fmt: skip
    assert streams and streams <= matched
    proxies = {head: body for head, body in caddy_blocks(text) if head.startswith("reverse_proxy")}
    events = [body for head, body in proxies.items() if "@events" in head.split()]
    assert len(events) == 1 and "flush_interval -1" in events[0]
    for head in proxies:
        upstreams = set(head.split()[1:]) - {"@events"}
        assert upstreams == {f"{name}:8000" for name in WEB}


def test_the_health_checks_keep_the_web_processes_of_a_degraded_store(
    services: dict[str, Any],
) -> None:
    """A store some of whose shards refuse writes (a master without its replica) is every web
    process's: /readyz's plain 503 would take them all out, refusing every request."""
    text = (DEPLOY / "Caddyfile").read_text()
    proxies = [body for head, body in caddy_blocks(text) if head.startswith("reverse_proxy")]
    assert proxies
    for body in proxies:
        assert "health_uri /readyz?degraded=ok" in [line.strip() for line in body]
    for name in WEB:
        assert "/readyz?degraded=ok" in " ".join(services[name]["healthcheck"]["test"])


def test_the_systemd_environment_documents_the_cluster_settings(
    services: dict[str, Any],
) -> None:
    documented = set(re.findall(r"^#?\s*([A-Z_]+)=", (DEPLOY / "systemd/omerta.env").read_text(),
                                re.MULTILINE))  # fmt: skip
    assert set(services["web-1"]["environment"]) - documented <= {
        "OMERTA_VAR",  # the units' working directory's var/; the image's own path here
        "OMERTA_SMTP_URL",
        "OMERTA_MAIL_FROM",
    }


@pytest.fixture
def fresh_nodes(tmp_path: Path) -> Iterator[list[EmbeddedServer]]:
    cluster = ("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
               "--cluster-node-timeout", "1000")  # fmt: skip
    nodes = [EmbeddedServer(tmp_path / f"n{n}", extra_args=cluster) for n in range(len(NODES))]
    try:
        with ThreadPoolExecutor(len(nodes)) as pool:  # each start waits for its server
            list(pool.map(EmbeddedServer.start, nodes))
        yield nodes
    finally:
        for node in nodes:
            node.stop()


def _formed(nodes: list[EmbeddedServer]) -> bool:
    """Every node sees the cluster ok, and 3 are masters, 3 replicas."""
    roles = []
    for node in nodes:
        client = node.client()
        try:
            if b"cluster_state:ok" not in client.execute_command("CLUSTER", "INFO"):
                return False
            roles.append(client.info("replication")["role"])
        finally:
            client.close()
    return sorted(roles) == ["master"] * 3 + ["slave"] * 3


@pytest.mark.cluster
def test_the_cluster_creation_script_forms_the_cluster_once(
    services: dict[str, Any], fresh_nodes: list[EmbeddedServer]
) -> None:
    """The init service's script, with the nodes' names replaced by ``localhost`` and their
    ports (valkey-cli resolves a name before CLUSTER MEET, as it must for compose's names)."""
    script = services["valkey-cluster-init"]["command"][0]
    for name, node in zip(NODES, fresh_nodes, strict=True):
        script = script.replace(f"{name}:6379", f"localhost:{node.port}")
    script = script.replace("-h valkey-1", f"-h localhost -p {fresh_nodes[0].port}")
    assert "valkey-" not in script.replace("valkey-cli", "")
    env = {**os.environ, "PATH": f"{Path(cli_binary()).parent}:{os.environ['PATH']}"}

    def run() -> str:
        done = subprocess.run(["sh", "-c", script], env=env, capture_output=True, text=True,
                              timeout=120)  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    assert "the cluster is formed" not in run()
    deadline = time.monotonic() + 30  # the script waits for its first node; the rest follow
    while not _formed(fresh_nodes):
        assert time.monotonic() < deadline, "the nodes did not all see 3 masters, 3 replicas"
        time.sleep(0.1)
    assert "the cluster is formed" in run()


def interpolated(env: dict[str, str], given: dict[str, str]) -> dict[str, str]:
    """The environment compose would pass: ``${NAME:-default}`` and ``${NAME:?error}`` read
    from ``given`` (deploy/.env)."""

    def value(found: re.Match[str]) -> str:
        name, kind, rest = found.group(1), found.group(2), found.group(3)
        if name in given:
            return given[name]
        assert kind == ":-", f"{name} is required"
        return rest

    pattern = re.compile(r"\$\{(\w+)(:-|:\?)([^}]*)\}")
    return {k: pattern.sub(value, str(v)) for k, v in env.items()}


@pytest.mark.parametrize("name", OMERTA)
def test_the_service_takes_the_settings_as_they_are(services: dict[str, Any], name: str) -> None:
    env = interpolated(services[name]["environment"], {"OMERTA_SECRET": "s" * 32})
    config = settings(env)
    assert config.cluster_url == env["REDIS_CLUSTER_URL"] and config.redis_url is None
    assert config.rq_url == env["RQ_REDIS_URL"]
    assert config.min_replicas == 1
    assert config.secure_cookies
    assert config.secret == "s" * 32
    assert public_url(config) == "https://localhost"
    assert config.rate_limits.proxies == 1
