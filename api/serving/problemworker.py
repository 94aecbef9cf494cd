"""gunicorn's gevent worker, whose live streams end at once when it stops, and whose own
refusals of an oversized or malformed request are problem+json like every refusal of the app's:
a request line over ``limit_request_line`` (414 ``uri_too_long``) and a header over
``limit_request_field_size``, or more than ``limit_request_fields`` of them (431
``headers_too_large``); a malformed request line, header (a NUL in it, a negative
``Content-Length``, one beside ``Transfer-Encoding: chunked``) or chunked body (400
``bad_request``, ``params.case`` saying which). gunicorn refuses them before the app sees the
request, in HTML; its other refusals (a transfer coding it lacks, an ``Expect`` it cannot meet)
are left to it.

On SIGTERM (gunicorn's graceful stop: the master's on ``systemctl stop``, a rolling upgrade's)
gunicorn stops accepting and waits up to ``graceful_timeout`` for the requests in flight; a
live stream would hold it all that time and then be cut. The worker closes the app's reader of
live events (``services.readside.fanout.Fanout.close``): every stream ends with a last
``retry`` and the browser reconnects, to another process, with ``Last-Event-ID``.

Loaded by gunicorn from the ``worker_class`` setting (``api.serving.server.settings``), in the
process ``api.serving`` has patched for gevent.
"""

from __future__ import annotations

from http import HTTPStatus
from typing import Any

import gevent
from flask import Flask
from gunicorn import util
from gunicorn.http.errors import (
    ChunkMissingTerminator,
    InvalidChunkExtension,
    InvalidChunkSize,
    InvalidH2CPreface,
    InvalidHeader,
    InvalidHeaderName,
    InvalidHTTPVersion,
    InvalidRequestLine,
    InvalidRequestMethod,
    InvalidResponseHeader,
    InvalidResponseHeaderName,
    LimitRequestHeaders,
    LimitRequestLine,
    ObsoleteFolding,
)
from gunicorn.workers.ggevent import GeventWorker

from api.context import Deps
from api.http import problems

# What is malformed (``params.case``), by the exceptions gunicorn's parser raises for it.
MALFORMED: tuple[tuple[tuple[type[Exception], ...], str, str], ...] = (
    (
        (InvalidRequestLine, InvalidRequestMethod, InvalidHTTPVersion, InvalidH2CPreface),
        "request_line",
        "the request line is malformed (a method, a target and an HTTP version)",
    ),
    (
        (InvalidHeader, InvalidHeaderName, ObsoleteFolding),
        "header",
        "a header is malformed (its name or value; or a Content-Length that is no length, "
        "or beside Transfer-Encoding)",
    ),
    (
        (InvalidChunkSize, ChunkMissingTerminator, InvalidChunkExtension),
        "body",
        "the chunked body is malformed",
    ),
)
# Subclasses of InvalidHeader(Name) for what the app tried to send: the server's fault.
APP_FAULTS = (InvalidResponseHeader, InvalidResponseHeaderName)


def refusal(exc: BaseException, cfg: Any) -> bytes | None:
    """The whole HTTP answer to ``exc`` if it is an oversized or malformed request; None
    otherwise."""
    malformed = [
        (case, detail)
        for kinds, case, detail in MALFORMED
        if isinstance(exc, kinds) and not isinstance(exc, APP_FAULTS)
    ]
    if malformed:
        status, code = 400, "bad_request"
        params: dict[str, Any] = {"case": malformed[0][0]}
        detail = malformed[0][1]
    elif isinstance(exc, LimitRequestLine):
        status, code = 414, "uri_too_long"
        params = {"max": cfg.limit_request_line}
        detail = f"the request line is longer than {cfg.limit_request_line} bytes"
    elif isinstance(exc, LimitRequestHeaders):
        status, code = 431, "headers_too_large"
        params = {"max": cfg.limit_request_field_size, "count": cfg.limit_request_fields}
        detail = (
            f"a header is longer than {cfg.limit_request_field_size} bytes, or there are more "
            f"than {cfg.limit_request_fields} headers"
        )
    else:
        return None
    body = problems.encode(status, code, detail, params)
    head = (
        f"HTTP/1.1 {status} {HTTPStatus(status).phrase}\r\nConnection: close\r\n"
        f"Content-Type: {problems.MEDIA_TYPE}\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    return head.encode("latin-1") + body


def end_streams(app: Flask) -> None:
    deps: Deps = app.extensions["omerta"]
    deps.fanout.close()


class ProblemWorker(GeventWorker):
    def handle_exit(self, sig: int, frame: Any) -> None:
        super().handle_exit(sig, frame)
        # Out of the signal handler: closing takes the fan-out's lock, which the interrupted
        # greenlet may hold.
        gevent.spawn(end_streams, self.wsgi)

    def handle_error(self, req: Any, client: Any, addr: Any, exc: BaseException) -> None:
        answer = refusal(exc, self.cfg)
        if answer is None:
            super().handle_error(req, client, addr, exc)
            return
        self.log.warning("Invalid request from ip=%s: %s", (addr or ("",))[0], exc)
        try:
            util.write_nonblock(client, answer)
        except OSError:  # the client is gone: nothing to tell
            self.log.debug("Failed to send error message.")
