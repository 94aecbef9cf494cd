"""``omerta serve``: the web server (gunicorn, gevent workers) on the configured store."""

from __future__ import annotations

import argparse
import json
import os
import sys

from services.platform import config


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    serve = subparsers.add_parser("serve", help="run the HTTP API under gunicorn")
    serve.add_argument("--bind", help=f"address:port (default {config.DEFAULT_BIND})")
    serve.add_argument("--workers", type=int, help="processes (default: one per core)")
    serve.add_argument(
        "--connections",
        type=int,
        help=f"connections served at once per process (default {config.WEB_CONNECTIONS})",
    )
    serve.set_defaults(run=run_serve)


def run_serve(args: argparse.Namespace) -> int:
    """Becomes ``api.serving`` (same process id): a fresh interpreter gevent patches first.
    The bind address goes on in ``OMERTA_BIND``, which the default public URL is built on, the
    connections in ``OMERTA_WEB_CONNECTIONS``, of which the app's streams take a share; the
    limit of open files raised here holds in it."""
    from api.serving import server

    try:
        options = server.settings(args.bind, args.workers, args.connections)
        os.environ["OMERTA_BIND"] = options["bind"][0]
        os.environ["OMERTA_WEB_CONNECTIONS"] = str(options["worker_connections"])
        settings = config.settings(os.environ)
        config.public_url(settings)
        server.allow_open_files(settings)
    except config.ConfigError as exc:  # before the workers start, each failing with it
        print(f"omerta serve: {exc}", file=sys.stderr)
        return 2
    # Before the server's interpreter starts: prometheus_client reads it at import.
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(server.metrics_directory(settings, options))
    os.execv(sys.executable, [sys.executable, "-m", "api.serving", json.dumps(options)])
