"""``omerta status``: what an operator checks first, as one JSON object on stdout: the store it
reads (``store``: a cluster, a server, or the embedded server that runs for ``OMERTA_VAR``; with
none of these it says so on stderr and exits 2: it never starts a server, whose empty store
would read as a healthy idle one), the shards that refuse writes for want of replicas and the
masters without any (``replication``, ``services.eventstore.replication``), the queues' lengths,
the failed jobs, the workers alive (``workers``: their announcements,
``workers.projection.leases.Presence``, which lapse within a lease of a worker's death; RQ keeps a
killed worker registered for minutes), whether an AI worker is (without one the default workers make
the AI moves), how long the longest-owed AI move has waited (``oldest_ai_due_ms``: a few seconds at
most while workers run, see ``workers.projection.catchup``), and the shard leases (``shard_leases``:
how many shards each projection worker holds, and the shards no worker holds,
``workers.projection.leases``: all of them while no worker runs, none for long while one does)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from services.platform.config import Settings

NO_STORE = 2


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "status",
        help="the store, queues, failed jobs, workers, the oldest owed AI move and the shard "
        "leases, as JSON",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from services.platform import config

    configured = config.settings(os.environ)
    found = which_store(configured)
    if found is None:
        print(
            "omerta status: no store to read: REDIS_URL and REDIS_CLUSTER_URL are unset and no"
            f" embedded server runs for OMERTA_VAR {configured.var} (omerta run starts one)",
            file=sys.stderr,
        )
        return NO_STORE
    store, settings = found
    from bootstrap import bootstrap
    from workers.status import snapshot

    status = {"store": store, **snapshot(bootstrap(settings).context)}
    print(json.dumps(status, indent=2))
    return 0


def which_store(settings: Settings) -> tuple[dict[str, str], Settings] | None:
    """What ``settings`` name as the store (kind and address, never a password), and settings
    that reach it without starting a server; None when they name none that runs."""
    import msgspec

    from services.platform import servers
    from services.platform.embedded import HOST

    if settings.cluster_url or settings.redis_url:
        parts = urlsplit(settings.cluster_url or settings.redis_url or "")
        kind = "cluster" if settings.cluster_url else "server"
        return {"kind": kind, "address": f"{parts.hostname}:{parts.port or 6379}"}, settings
    port = servers.running_embedded_port(settings)
    if port is None:
        return None
    address = f"{HOST}:{port}"
    store = {"kind": "embedded", "address": address, "var": str(settings.var)}
    return store, msgspec.structs.replace(settings, redis_url=f"redis://{address}/0")
