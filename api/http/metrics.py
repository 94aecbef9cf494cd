"""``GET /metrics``: the web server's figures for Prometheus, behind a bearer token.

Without ``OMERTA_METRICS_TOKEN`` the endpoint does not exist (404); with it, a request without
that token is 401 (``missing_token``, ``bad_token``; compared as SHA-256 digests, in constant
time). The figures are every web process's (``services.platform.metrics``): with
``PROMETHEUS_MULTIPROC_DIR`` set (``omerta serve`` sets it, ``api.serving.server``) the files of
all the server's processes, added up (prometheus_client's ``MultiProcessCollector``), else this
process's registry; and the store's figures read now (``workers.metrics.StoreCollector``: queues,
failed jobs, leases, replication, projection lag). The counters with known label values (503s
by code, store errors, the command service's own refusals) start at 0.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from collections.abc import Iterator
from typing import TYPE_CHECKING

from flask import Blueprint, Flask, Response, current_app
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from prometheus_client.metrics_core import Metric
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector

from api.context import token
from api.http.problems import API_CODES, ApiError
from services.games.handling import REFUSALS
from services.platform.metrics import at_zero
from workers.metrics import StoreCollector

if TYPE_CHECKING:  # api is below the composition root: only its type
    from bootstrap import Container

bp = Blueprint("metrics", __name__)
KEY = "omerta_metrics_export"


class _Export:
    """What ``/metrics`` serves: the token's digest, and the collectors it reads."""

    def __init__(self, container: Container) -> None:
        secret = container.settings.metrics_token
        self.digest = hashlib.sha256(secret.encode()).digest() if secret else None
        self.store = StoreCollector(container.context)
        self.registry = container.registry

    def collect(self) -> Iterator[Metric]:
        directory = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
        own: Collector = MultiProcessCollector(None, directory) if directory else self.registry
        yield from own.collect()
        yield from self.store.collect()


def install(app: Flask, container: Container) -> None:
    app.extensions[KEY] = _Export(container)
    metrics = container.metrics
    at_zero(metrics.unavailable, [c for c, (status, _) in API_CODES.items() if status == 503])
    at_zero(metrics.store_errors, ["web"])
    at_zero(metrics.commands_refused, REFUSALS)
    app.register_blueprint(bp)


@bp.get("/metrics")
def metrics() -> Response:
    export: _Export = current_app.extensions[KEY]
    if export.digest is None:  # as if there were no such route
        raise ApiError(404, "not_found", "no such resource")
    given = token()
    if given is None:
        raise ApiError(401, "missing_token", "the metrics need their bearer token")
    if not hmac.compare_digest(hashlib.sha256(given.encode()).digest(), export.digest):
        raise ApiError(401, "bad_token", "that is not the metrics' token")
    return Response(generate_latest(export), mimetype=CONTENT_TYPE_LATEST)
