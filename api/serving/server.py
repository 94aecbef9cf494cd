"""gunicorn serving the app: the settings ``omerta serve`` uses (``deploy/gunicorn.conf.py``
loads the same ones for operators running gunicorn themselves).

Worker class ``gevent`` (``api.serving.problemworker``: its refusals of an oversized or
malformed request are problem+json): each process serves up to ``connections`` requests at
once, each in a greenlet, so a live-events stream (``api.live.sse``, at most
``api.app.STREAM_SECONDS`` long, mostly waiting for the process's one reader of the store,
``services.readside.fanout``) costs a greenlet, not a thread nor a Redis connection: a process
keeps answering moves with thousands of game pages open (``tests/benchmarks/bench_streams.py``),
and keeps connections for requests whatever their number (``api.live.capacity``: streams hold at
most ``OMERTA_WEB_STREAMS`` of them). Waiting for the store yields to the other requests at no
more cost than a greenlet switch, which on two cores gave 10-25 % more requests/s than
``gthread`` threads for both the trivial and the command endpoint (``make bench``). The app
(``site()``: the API and the web pages) is created in each worker after the fork (no
``preload_app``), after gunicorn's gevent worker has patched the standard library:
Redis connections and the command service's snapshot cache are per process.
"""

from __future__ import annotations

import os
import re
import resource
import shutil
from pathlib import Path
from typing import Any

from flask import Flask
from gunicorn.app.base import BaseApplication
from prometheus_client import multiprocess

from api import web
from api.app import create_app
from services.platform import config, logs

DEFAULT_BIND = config.DEFAULT_BIND


def settings(
    bind: str | None = None, workers: int | None = None, connections: int | None = None
) -> dict[str, Any]:
    """From the arguments, else the environment (``OMERTA_BIND``, ``OMERTA_WEB_WORKERS``,
    ``OMERTA_WEB_CONNECTIONS``), else defaults: one process per core, 10,000 connections each
    (``services.platform.config``: live-event streams may hold only a share of them)."""
    env = os.environ
    return {
        "bind": [bind or env.get("OMERTA_BIND") or DEFAULT_BIND],
        "workers": workers or int(env.get("OMERTA_WEB_WORKERS") or os.cpu_count() or 1),
        "worker_connections": connections or config.web_connections(dict(env)),
        "worker_class": "api.serving.problemworker.ProblemWorker",  # gevent, problem+json refusals
        "timeout": 60,  # a worker silent this long is restarted (streams end well before)
        "graceful_timeout": 10,
        "keepalive": 5,
        "accesslog": env.get("OMERTA_ACCESS_LOG") or None,
        "errorlog": "-",
        "loglevel": "info",
        "proc_name": "omerta-web",
        # One fixed control-socket path per user would clash between servers (tests, bench).
        "control_socket_disable": True,
        # gunicorn's own lines as the app's (services.platform.logs): JSON when asked
        "logconfig_dict": _log_config(env),
    }


def allow_open_files(settings: config.Settings) -> None:
    """Raise this process's soft limit of open files (``ulimit -n``; gunicorn's workers inherit
    it) to what a web process may need with the environment's settings
    (``config.open_files_needed``): at the usual soft limit of 1024, connections past it would
    be refused while the settings count them as free. A hard limit below the need stops the
    start, naming what to change."""
    needed = config.open_files_needed(settings)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft >= needed:
        return
    if hard != resource.RLIM_INFINITY and hard < needed:
        raise config.ConfigError(
            f"a web process may need {needed} open files with OMERTA_WEB_CONNECTIONS and "
            f"OMERTA_WEB_STREAMS as set, and the hard limit is {hard}: raise it (systemd: "
            f"LimitNOFILE=, Docker: --ulimit nofile=, a shell: ulimit -Hn) or lower "
            f"OMERTA_WEB_CONNECTIONS"
        )
    resource.setrlimit(resource.RLIMIT_NOFILE, (needed, hard))


def _log_config(env: os._Environ[str]) -> dict[str, Any]:
    """gunicorn's loggers with the app's format (``OMERTA_LOG_FORMAT``); an empty dict keeps
    gunicorn's own."""
    if env.get("OMERTA_LOG_FORMAT") != "json":
        return {}
    access = ["console"] if env.get("OMERTA_ACCESS_LOG") else []
    handler = {
        "class": "logging.StreamHandler",
        "formatter": "json",
        "filters": ["request_id"],
        "stream": "ext://sys.stderr",
    }
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": "services.platform.logs.json_formatter"}},
        "filters": {"request_id": {"()": "services.platform.logs.RequestIdFilter"}},
        "handlers": {"console": handler},
        "loggers": {
            "gunicorn.error": {"handlers": ["console"], "level": "INFO", "propagate": False},
            # gunicorn logs every request once a logging config is given: only when asked
            "gunicorn.access": {"handlers": access, "level": "INFO", "propagate": False},
        },
    }


def metrics_directory(settings: config.Settings, options: dict[str, Any]) -> Path:
    """Where the web processes keep their metrics (``PROMETHEUS_MULTIPROC_DIR``): under the data
    directory, one per bind address (servers sharing it must not add up each other's files),
    emptied: the files of an earlier server's processes would be counted again."""
    bind = re.sub(r"[^A-Za-z0-9.]+", "_", options["bind"][0])
    directory = settings.var / "metrics" / f"web-{bind}"
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True)
    return directory


def on_exit(server: Any) -> None:
    """gunicorn's hook at its end: its processes' metrics files go with it (``omerta serve``'s
    directory, made for this server alone)."""
    directory = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if directory:
        shutil.rmtree(directory, ignore_errors=True)


def child_exit(server: Any, worker: Any) -> None:
    """gunicorn's hook: a dead web process's live gauges (open streams) stop counting."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        multiprocess.mark_process_dead(worker.pid)


def site(settings: config.Settings | None = None) -> Flask:
    """What the web server serves: the JSON API and the web pages (``api.web``) on it, on this
    process's objects (made here, once per process: gunicorn calls it after the fork), logging
    as the settings say (``services.platform.logs``): ``omerta serve``'s, else the
    environment's (gunicorn run with ``deploy/gunicorn.conf.py``)."""
    from bootstrap import bootstrap  # the composition root, above api: the entry point's

    container = bootstrap(settings)
    logs.configure(container.settings.log_level, container.settings.log_format)
    app = create_app(container)
    web.register(app)
    return app


class Server(BaseApplication):
    def __init__(self, options: dict[str, Any], settings: config.Settings) -> None:
        self.options = options
        self.settings = settings
        super().__init__()

    def load_config(self) -> None:
        assert self.cfg is not None
        for key, value in self.options.items():
            if value is not None and key in self.cfg.settings:  # older gunicorns lack some
                self.cfg.set(key, value)
        # functions: not among the JSON options
        self.cfg.set("child_exit", child_exit)
        self.cfg.set("on_exit", on_exit)

    def load(self) -> Any:
        return site(self.settings)


def serve(options: dict[str, Any], settings: config.Settings) -> None:
    Server(options, settings).run()
