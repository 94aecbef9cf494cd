"""``deploy/systemd/`` and the commands ``deploy/README.md`` gives for them, run for real where
they can be: where ``valkey-server``/``valkey-cli`` come from (the wheel's ``bin/``: Debian 12
has no Valkey package), the cluster's creation, RQ's server's address, the fail-back after a
failover."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import redis

from services.platform.embedded import EmbeddedServer
from tests.cluster import Cluster, cli_binary

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
UNITS = DEPLOY / "systemd"
README = (DEPLOY / "README.md").read_text()
LINKED = "/usr/local/bin"


def shell_lines(section: str) -> list[str]:
    """The lines of the ``sh`` blocks of the README's section ``section`` (a heading's text)."""
    start = README.index(section)
    end = README.find("\n#", start + len(section))
    blocks = re.findall(r"```sh\n(.*?)```", README[start : end if end > 0 else None], re.DOTALL)
    return [line for block in blocks for line in block.splitlines()]


def line_with(lines: list[str], text: str) -> str:
    found = [line for line in lines if text in line]
    assert len(found) == 1, f"{text!r} in {found}"
    return found[0].split("  #")[0]


def wait(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def test_the_units_run_the_wheel_s_valkey_linked_where_the_readme_says() -> None:
    lines = shell_lines("## systemd")
    found = line_with(lines, "BIN=").replace("/opt/omerta/.venv/bin/python", sys.executable)
    done = subprocess.run(
        ["sh", "-c", f"{found}; echo $BIN"], capture_output=True, text=True, check=True
    )
    bin_dir = Path(done.stdout.strip())
    assert (bin_dir / "valkey-server").is_file() and (bin_dir / "valkey-cli").is_file()
    assert Path(cli_binary()).parent == bin_dir
    link = line_with(lines, "ln -sf")
    assert "valkey-server valkey-cli" in link and LINKED in link
    for unit in ("omerta-valkey.service", "omerta-valkey-cluster@.service"):
        start = re.search(r"^ExecStart=(\S+)", (UNITS / unit).read_text(), re.MULTILINE)
        assert start and start.group(1) == f"{LINKED}/valkey-server", unit


def test_rq_s_server_listens_on_loopback_unless_told_the_private_address() -> None:
    unit = (UNITS / "omerta-valkey.service").read_text()
    assert 'Environment="OMERTA_VALKEY_LISTEN=--bind 127.0.0.1"' in unit
    assert "EnvironmentFile=-/etc/omerta/valkey.env" in unit  # optional: loopback without it
    start = re.search(r"^ExecStart=.*$", unit, re.MULTILINE)
    assert start and " $OMERTA_VALKEY_LISTEN " in start.group(0)  # unbraced: split in words
    told = line_with(shell_lines("## systemd"), "OMERTA_VALKEY_LISTEN=")
    assert "/etc/omerta/valkey.env" in told and "--bind 127.0.0.1 10.0.0.10" in told


def test_the_listen_setting_as_the_unit_passes_it_starts_valkey(tmp_path: Path) -> None:
    """The words of ``OMERTA_VALKEY_LISTEN`` (systemd splits an unbraced ``$VAR``) are options
    the server takes."""
    told = line_with(shell_lines("## systemd"), "OMERTA_VALKEY_LISTEN=")
    value = re.search(r"OMERTA_VALKEY_LISTEN=([^']+)'", told)
    assert value
    # 127.0.0.2 stands for the private address (Linux's loopback is all of 127/8).
    words = [w.replace("10.0.0.10", "127.0.0.2") for w in value.group(1).split()]
    with EmbeddedServer(tmp_path, extra_args=tuple(words)) as server:
        assert server.client().config_get("protected-mode") == {"protected-mode": "no"}
        assert redis.Redis(host="127.0.0.2", port=server.port).ping()


@pytest.fixture
def nine_nodes(tmp_path: Path) -> Iterator[list[EmbeddedServer]]:
    cluster = ("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
               "--cluster-node-timeout", "1000")  # fmt: skip
    nodes = [EmbeddedServer(tmp_path / f"n{n}", extra_args=cluster) for n in range(9)]
    try:
        with ThreadPoolExecutor(3) as pool:  # each start waits for its server
            list(pool.map(EmbeddedServer.start, nodes))
        yield nodes
    finally:
        for node in nodes:
            node.stop()


def roles(nodes: list[EmbeddedServer]) -> list[str]:
    found = []
    for node in nodes:
        client = node.client()
        try:
            if b"cluster_state:ok" not in client.execute_command("CLUSTER", "INFO"):
                return []
            found.append(client.info("replication")["role"])
        finally:
            client.close()
    return sorted(found)


@pytest.mark.cluster
def test_the_readme_s_cluster_creation_makes_three_masters_of_two_replicas(
    nine_nodes: list[EmbeddedServer],
) -> None:
    create = line_with(shell_lines("## systemd"), "--cluster create")
    addresses = re.findall(r"\b10\.0\.0\.\d+:7000\b", create)
    assert len(addresses) == len(nine_nodes) and "--cluster-replicas 2" in create
    for address, node in zip(addresses, nine_nodes, strict=True):
        create = create.replace(address, f"127.0.0.1:{node.port}")
    words = shlex.split(create)
    assert words[0] == "valkey-cli"
    subprocess.run([cli_binary(), *words[1:]], check=True, capture_output=True, timeout=120)
    wait(lambda: roles(nine_nodes) == ["master"] * 3 + ["slave"] * 6, 60, "3 masters, 6 replicas")


@pytest.mark.cluster
def test_the_readme_s_fail_back_makes_the_old_master_master_again(tmp_path: Path) -> None:
    lines = shell_lines("### Replicas and failover")
    fail_back = line_with(lines, "cluster failover")
    with Cluster(tmp_path) as cluster:
        key = "{s00}"
        killed = cluster.kill_master_of(key)
        promoted = cluster.wait_promoted(key)
        killed.restart()  # as systemd restarts it: it rejoins as the promoted one's replica

        def in_sync() -> bool:
            try:
                return killed.client().info("replication").get("master_link_status") == "up"
            except redis.RedisError:
                return False

        wait(in_sync, 60, "the old master to catch up as a replica")
        words = shlex.split(fail_back.replace("10.0.0.11", "127.0.0.1"))
        words[words.index("-p") + 1] = str(killed.port)
        subprocess.run([cli_binary(), *words[1:]], check=True, capture_output=True, timeout=30)

        def master_again() -> bool:
            try:
                return cluster.master_of(key) is killed
            except LookupError:  # the nodes do not agree yet
                return False

        wait(master_again, 60, "the old master to be master again")
        assert promoted.client().info("replication")["role"] == "slave"
