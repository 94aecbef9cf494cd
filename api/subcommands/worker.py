"""``omerta worker``: run an RQ worker for projections and AI moves (``workers.worker``;
``--queues ai``: an AI worker), with its metrics on a port of the loopback interface
(``--metrics-port``: the process's registry, ``services.platform.metrics``; the worker runs its
jobs in its own process, so they count there)."""

from __future__ import annotations

import argparse
import os
import sys

METRICS_HOST = "127.0.0.1"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "worker", help="run an RQ worker: projections, AI moves, catch-up (several may run)"
    )
    parser.add_argument("--burst", action="store_true", help="quit once the queues are empty")
    parser.add_argument(
        "--interval", type=int, default=5, help="seconds between catch-up passes (default 5)"
    )
    parser.add_argument("--name", help="worker name (default: RQ's)")
    parser.add_argument(
        "--queues",
        help="comma-separated queues to serve, of projections, ai, clocks, notify, mail "
        "(default: all, and AI moves only while no AI worker runs; `--queues ai`: an AI worker, "
        "at niceness OMERTA_AI_NICE)",
    )
    parser.add_argument(
        "--metrics-port",
        type=int,
        help="serve this worker's /metrics on 127.0.0.1:PORT (default OMERTA_WORKER_METRICS_PORT; "
        "none: no metrics server)",
    )
    parser.add_argument("--quiet", action="store_true", help="log warnings and errors only")
    parser.add_argument(
        "--verbose", action="store_true", help="log every job too (OMERTA_LOG_LEVEL=DEBUG)"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from prometheus_client import start_http_server

    from bootstrap import bootstrap
    from services.platform import config, storecheck
    from workers import worker
    from workers.metrics import start_at_zero
    from workers.queues import QUEUES

    try:
        queues = worker.queue_names(args.queues)
    except ValueError as exc:
        print(f"omerta worker: {exc}", file=sys.stderr)
        return 2
    settings = config.settings(os.environ)  # once: the jobs find them in the worker's context
    if not storecheck.at_start("worker", settings):
        return 2
    level = "WARNING" if args.quiet else "DEBUG" if args.verbose else None
    container = bootstrap(settings)
    start_at_zero(container.metrics, queues or QUEUES)
    port = args.metrics_port or container.settings.worker_metrics_port
    if port:  # loopback only: Prometheus scrapes it on this machine (docs/operators.md)
        start_http_server(port, METRICS_HOST, registry=container.registry)
    return worker.run(
        container.context,
        burst=args.burst,
        interval=args.interval,
        name=args.name,
        log_level=level,
        queues=queues,
    )
