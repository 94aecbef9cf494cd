"""Malformed HTTP, which gunicorn refuses before the app sees it, is answered problem+json like
every other refusal (400 ``bad_request``, ``params.case`` naming what is wrong), not gunicorn's
HTML page: raw bytes on a socket to the real ``omerta serve``."""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Iterator

import pytest

from api.http.problems import MEDIA_TYPE
from services.platform.embedded import EmbeddedServer
from tests.api.served import call, serve

pytestmark = pytest.mark.server

MALFORMED = {
    "a NUL in a header": (b"GET /legal HTTP/1.1\r\nHost: x\r\nX-Note: a\x00b\r\n\r\n", "header"),
    "a garbage request line": (b"\x01\x02 garbage\r\nHost: x\r\n\r\n", "request_line"),
    "Content-Length and chunked": (
        b"POST /players HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        "header",
    ),
    "a negative Content-Length": (
        b"POST /players HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
        "header",
    ),
}


@pytest.fixture(scope="module")
def port(embedded_server: EmbeddedServer) -> Iterator[int]:
    with serve({**os.environ, "REDIS_URL": embedded_server.url}) as port:
        yield port


def exchange(port: int, request: bytes) -> bytes:
    """All the server answers to ``request`` (it closes the connection after a refusal)."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(request)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return answer


@pytest.mark.parametrize("what", list(MALFORMED))
def test_malformed_http_is_a_problem(port: int, what: str) -> None:
    request, case = MALFORMED[what]
    head, _, body = exchange(port, request).partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:])
    assert lines[0] == "HTTP/1.1 400 Bad Request", what
    assert headers["Content-Type"] == MEDIA_TYPE, what
    assert int(headers["Content-Length"]) == len(body)
    problem = json.loads(body)
    assert problem == {
        "type": "/docs#problem-bad_request",
        "title": "Bad Request",
        "status": 400,
        "detail": problem["detail"],
        "code": "bad_request",
        "params": {"case": case},
    }
    assert problem["detail"]
    assert call(port, "GET", "/readyz")[0] == 200  # the worker serves on
