"""Each request's id (``services.platform.logs``): the client's ``X-Request-Id`` when it is a
sane token (a proxy's, say), else a new one; held while the request runs, so that its log lines
and the jobs it enqueues carry it (``workers.queues.OmertaJob``), and echoed in the answer's
``X-Request-Id``. At ``DEBUG`` every request logs one line (method, path, status, time)."""

from __future__ import annotations

import logging
import time

from flask import Flask, Response, g, request

from services.platform import logs

HEADER = "X-Request-Id"

log = logging.getLogger("api.requests")


def install(app: Flask) -> None:
    app.before_request(_begin)
    app.after_request(_answer)
    app.teardown_request(_end)


def _begin() -> None:
    g.request_id_token = logs.REQUEST_ID.set(logs.request_id(request.headers.get(HEADER)))
    g.request_began = time.perf_counter()


def _answer(response: Response) -> Response:
    request_id = logs.REQUEST_ID.get()
    if request_id is not None:
        response.headers[HEADER] = request_id
    if log.isEnabledFor(logging.DEBUG) and "request_began" in g:
        took = time.perf_counter() - g.request_began
        log.debug(
            "%s %s %d %.1f ms", request.method, request.path, response.status_code, 1000 * took
        )
    return response


def _end(exc: BaseException | None) -> None:
    """The request is over: its greenlet may serve the connection's next one."""
    token = g.pop("request_id_token", None)
    if token is not None:
        logs.REQUEST_ID.reset(token)
