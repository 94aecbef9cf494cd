"""``omerta run``: the store, a worker, an AI worker and the web server on this machine
(``api.serving.supervisor``)."""

from __future__ import annotations

import argparse
import os

from services.platform.config import DEFAULT_BIND


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    run = subparsers.add_parser(
        "run",
        help="start the store (embedded, data in ./var), a worker, an AI worker and the web server",
    )
    run.add_argument("--bind", default=DEFAULT_BIND, help="web address:port")
    run.add_argument("--web-workers", type=int, help="gunicorn processes (default: one per core)")
    run.add_argument(
        "--ai-workers",
        type=int,
        default=1,
        help="AI workers (omerta worker --queues ai; default 1)",
    )
    run.add_argument(
        "--verbose", action="store_true", help="log every job and request (OMERTA_LOG_LEVEL=DEBUG)"
    )
    run.set_defaults(run=run_all)


def run_all(args: argparse.Namespace) -> int:
    from api.serving import supervisor
    from services.platform import config, storecheck

    # A store of one's own (REDIS_URL) is checked before anything starts; the embedded one is
    # configured here, and the children check it anyway.
    found = config.settings(os.environ)
    if (found.redis_url or found.cluster_url) and not storecheck.at_start("run", found):
        return 2
    return supervisor.run(found, args.bind, args.web_workers, args.verbose, args.ai_workers)
