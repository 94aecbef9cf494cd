"""What gunicorn itself refuses, before the app sees the request, is problem+json like every
other refusal: a request line over its limit (414) and a header over its limit (431), against
the real ``omerta serve``."""

from __future__ import annotations

import http.client
import json
import os
from typing import Any

import pytest

from api.http.problems import MEDIA_TYPE
from tests.api.served import serve

pytestmark = pytest.mark.server


def _get(port: int, path: str, headers: dict[str, str]) -> tuple[int, str, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", path, headers=headers)
        response = conn.getresponse()
        return response.status, response.getheader("Content-Type", ""), response.read()
    finally:
        conn.close()


# A request line over gunicorn's 4094 bytes; a header line over its 8190 (a 9,000-char token).
OVERSIZED = [
    ("/games?" + "x" * 5000, {}, 414, "uri_too_long"),
    ("/me", {"Authorization": "Bearer " + "t" * 9000}, 431, "headers_too_large"),
]


def test_refused_by_the_server_as_problems(redis_url: str) -> None:
    with serve({**os.environ, "REDIS_URL": redis_url}) as port:
        for path, headers, status, code in OVERSIZED:
            got, media, body = _get(port, path, headers)
            assert (got, media) == (status, MEDIA_TYPE), code
            problem = json.loads(body)
            assert (problem["status"], problem["code"]) == (status, code)
            assert problem["type"] == f"/docs#problem-{code}" and problem["params"]["max"] > 0
            assert set(problem) == {"type", "title", "status", "detail", "code", "params"}
        assert _get(port, "/readyz", {})[0] == 200  # the worker serves on
