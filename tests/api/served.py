"""``omerta serve`` as a process of its own on a free port, for tests that need the real web
server (gunicorn's gevent worker), and a plain HTTP call to it."""

from __future__ import annotations

import http.client
import json
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from services.platform.embedded import free_port


def call(
    port: int, method: str, path: str, body: object = None, token: str = "", timeout: float = 30
) -> tuple[int, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    try:
        conn.request(method, path, json.dumps(body) if body is not None else None, headers)
        response = conn.getresponse()
        return response.status, json.loads(response.read() or b"null")
    finally:
        conn.close()


@contextmanager
def serve(env: dict[str, str], workers: int = 1) -> Iterator[int]:
    """One web server of ``workers`` processes with ``env``, ready (``/readyz`` answers 200);
    its port."""
    for _ in range(5):
        port = free_port()
        bind = f"127.0.0.1:{port}"
        proc = subprocess.Popen(
            [sys.executable, "-m", "api", "serve", "--bind", bind, "--workers", str(workers)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            if _ready(proc, port):
                yield port
                return
        finally:
            proc.terminate()
            proc.wait(30)
    raise AssertionError("omerta serve exited while starting, on five ports")


def _ready(proc: subprocess.Popen[bytes], port: int) -> bool:
    """Whether ``proc`` got ready on ``port``; False if it exited first. The free port may be
    taken by another test's server before ours binds it (a CI run read an HTML 501 from one):
    ours then exits, and an answer that is not ours (not JSON) means not ready yet."""
    deadline = time.monotonic() + 60
    while proc.poll() is None:
        assert time.monotonic() < deadline, "omerta serve never got ready"
        try:
            if call(port, "GET", "/readyz")[0] == 200:
                return True
        except (OSError, ValueError):  # not listening yet, or another server's answer
            pass
        time.sleep(0.2)
    return False
