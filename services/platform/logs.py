"""The processes' logs: plain lines, or one JSON object a line (``OMERTA_LOG_FORMAT=json``,
python-json-logger), each carrying the request id of the work it is part of.

A request id names one command's road: the web app takes the client's ``X-Request-Id`` (when it
is a sane token) or makes one (``api.http.requestid``), the jobs enqueued while it holds carry
it in their meta (``workers.queues.OmertaJob``), and the worker holds it while it runs such a
job (``workers.worker``), so the jobs those jobs enqueue carry it too. ``REQUEST_ID`` holds it:
a context variable, so each request's greenlet (gevent) or thread sees its own.
"""

from __future__ import annotations

import logging
import re
import sys
import uuid
from contextvars import ContextVar

from pythonjsonlogger.json import JsonFormatter

# A context variable, not process state: each request (greenlet) and each job sees its own value.
REQUEST_ID: ContextVar[str | None] = ContextVar("omerta_request_id", default=None)
META_KEY = "request_id"  # its name in an RQ job's meta

_SANE = re.compile(r"[A-Za-z0-9._:-]{1,64}")
TEXT_FORMAT = "%(asctime)s %(name)s: %(message)s"
JSON_FIELDS = ("asctime", "levelname", "name", "message", "process")


def request_id(given: str | None) -> str:
    """``given`` if it is a sane id (a proxy's or a client's: letters, digits, ``._:-``, at
    most 64), else a new one: an id goes into log lines and must not forge or flood them."""
    if given and _SANE.fullmatch(given):
        return given
    return uuid.uuid4().hex


class RequestIdFilter(logging.Filter):
    """Puts the current request id (``REQUEST_ID``; ``-`` outside any) on every record."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = REQUEST_ID.get() or "-"
        return True


def json_formatter() -> logging.Formatter:
    """One object a line: the time, level, logger, message, pid and request id, and whatever
    a record's ``extra`` gave (also gunicorn's ``logconfig_dict``, ``api.serving.server``)."""
    return JsonFormatter(
        [*JSON_FIELDS, "request_id"], rename_fields={"levelname": "level", "asctime": "time"}
    )


def formatter(fmt: str) -> logging.Formatter:
    """``text``: the plain line; ``json``: ``json_formatter``."""
    return json_formatter() if fmt == "json" else logging.Formatter(TEXT_FORMAT, datefmt="%X")


def configure(level: str, fmt: str) -> None:
    """The root logger's one handler (stderr) at ``level``, in ``fmt`` (``text``/``json``)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(formatter(fmt))
    handler.addFilter(RequestIdFilter())
    logging.basicConfig(level=level, handlers=[handler], force=True)
