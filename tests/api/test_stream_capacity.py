"""A web process serves at most ``OMERTA_WEB_STREAMS`` live-event streams at once, fewer than its
``OMERTA_WEB_CONNECTIONS``: open game pages never take the connections that requests need (with
every connection held by a stream, the API stopped answering and no page opened). One stream
more is 503 ``streams_full`` with ``Retry-After``; the page's ``EventSource`` starts a new one
later. Against the real ``omerta run`` with small settings, more streams than connections; and
the defaults' arithmetic (``services.platform.config``), open files included."""

from __future__ import annotations

import json
import os
import resource
import socket
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from pathlib import Path

import pytest

from api.app import STREAM_SECONDS
from api.http.problems import MEDIA_TYPE
from api.serving import server
from services.platform import config
from services.platform.embedded import free_port
from tests.api.omerta_run import ctrl_c, http, start

pytestmark = pytest.mark.server

CONNECTIONS, STREAMS = 60, 40
OPENED = 80  # more than the connections: every one of them, were streams not capped
WAIT = 60.0  # seconds the answers may take on a loaded machine
KEEPALIVE = server.settings()["keepalive"]  # seconds gunicorn keeps an idle connection


def open_stream(port: int, path: str) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=WAIT)
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    return sock


def answer(sock: socket.socket, deadline: float) -> tuple[int, dict[str, str], bytes] | None:
    """The status, headers and body begun of the answer on ``sock``; None if none came in time."""
    data = b""
    while b"\r\n\r\n" not in data:
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            chunk = sock.recv(65536)
        except TimeoutError:
            return None
        if not chunk:
            return None
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.lower(): v for k, v in (line.split(": ", 1) for line in lines[1:])}
    if "content-length" in headers:
        while len(body) < int(headers["content-length"]):
            body += sock.recv(65536)
    return int(lines[0].split()[1]), headers, body


def get(base: str, path: str) -> int:
    """The status of ``path``; a timeout if it gets no connection (held by streams)."""
    with urllib.request.urlopen(base + path, timeout=15) as response:
        response.read()
        return int(response.status)


def test_streams_leave_connections_for_requests(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OMERTA_WEB_CONNECTIONS", str(CONNECTIONS))
    monkeypatch.setenv("OMERTA_WEB_STREAMS", str(STREAMS))
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    proc = start(tmp_path, port, (tmp_path / "run.log").open("ab"))
    socks: list[socket.socket] = []
    try:
        ann = http(base, "POST", "/players", {"name": "Ann"})
        game = http(base, "POST", "/games", {"game": "famiglia", "seats": 2}, ann["token"])
        table = f"/games/{game['game_id']}"
        socks = [open_stream(port, f"{table}/events") for _ in range(OPENED)]
        deadline = time.monotonic() + WAIT
        answers = [answer(sock, deadline) for sock in socks]
        got = Counter(a[0] if a else None for a in answers)
        assert got == {200: STREAMS, 503: OPENED - STREAMS}, got

        refused = [(sock, a) for sock, a in zip(socks, answers, strict=True) if a and a[0] == 503]
        for sock, (_, headers, body) in refused:
            # The refusal's connection is closed at once, not kept alive for a next request
            # (seconds) among the connections that requests need.
            sock.settimeout(KEEPALIVE / 2)
            assert sock.recv(1) == b"", "the refused stream's connection is kept open"
            assert headers["content-type"] == MEDIA_TYPE
            retry = int(headers["retry-after"])
            assert 1 <= retry <= STREAM_SECONDS + 1  # when the process's oldest stream ends
            problem = json.loads(body)
            assert (problem["status"], problem["code"]) == (503, "streams_full")
            assert problem["params"] == {"most": STREAMS, "retry_after": retry}
        for _, headers, _ in (a for a in answers if a and a[0] == 200):
            assert headers["content-type"].startswith("text/event-stream")  # open, waiting

        # With every stream it serves held open, the API answers and pages open, at once.
        for what in (table, f"{table}/history", "/"):
            assert get(base, what) == 200, what
        bob = http(base, "POST", "/players", {"name": "Bob"})
        assert bob["name"] == "Bob"
    finally:
        for sock in socks:
            sock.close()
        assert ctrl_c(proc) == 0


def test_the_defaults_fit_thousands_of_pages_with_a_reserve_for_requests() -> None:
    defaults = config.settings({})
    assert defaults.web_connections == 10_000
    # Each open game page holds two streams (the game's and the player's): 4,000 pages a process.
    assert defaults.web_streams == 8_000
    # What docs/operators.md promises the requests of each process, at the least.
    assert defaults.web_connections - defaults.web_streams >= 2_000
    # Set alone, the connections keep the same share for streams; the streams set below them.
    assert config.settings({"OMERTA_WEB_CONNECTIONS": "60"}).web_streams == 48
    both = {"OMERTA_WEB_CONNECTIONS": "60", "OMERTA_WEB_STREAMS": "40"}
    assert config.settings(both).web_streams == 40


@pytest.mark.parametrize(
    "env",
    [
        {"OMERTA_WEB_STREAMS": "10000"},  # as many as the connections: none left for requests
        {"OMERTA_WEB_CONNECTIONS": "60", "OMERTA_WEB_STREAMS": "61"},
        {"OMERTA_WEB_STREAMS": "0"},
        {"OMERTA_WEB_CONNECTIONS": "1"},
        {"OMERTA_WEB_CONNECTIONS": "many"},
    ],
)
def test_streams_must_leave_connections_for_requests(env: dict[str, str]) -> None:
    with pytest.raises(config.ConfigError, match="OMERTA_WEB_"):
        config.settings(env)


def limits_after(soft: int, hard: int, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Open files allowed to a process started with ``soft``/``hard`` after the web server's
    start has fitted them to ``env``'s settings (``api.serving.server.allow_open_files``)."""
    code = (
        "import resource, sys\n"
        f"resource.setrlimit(resource.RLIMIT_NOFILE, ({soft}, {hard}))\n"
        "import os\n"
        "from api.serving import server\n"
        "from services.platform import config\n"
        "server.allow_open_files(config.settings(os.environ))\n"
        "print(*resource.getrlimit(resource.RLIMIT_NOFILE))\n"
    )
    return subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_the_server_raises_its_open_files_to_what_the_defaults_need() -> None:
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    needed = config.open_files_needed(config.settings({}))
    # connections, a store connection for each request, and some for the rest
    assert needed == 10_000 + 2_000 + config.OPEN_FILES_SPARE
    if hard != resource.RLIM_INFINITY:
        assert hard >= needed, "this machine's hard limit is below the defaults' need"
    ran = limits_after(1024, hard, {})
    assert ran.returncode == 0, ran.stderr
    assert int(ran.stdout.split()[0]) >= needed


def test_a_hard_limit_too_low_stops_the_start_naming_what_to_change() -> None:
    ran = limits_after(1024, 4096, {})
    assert ran.returncode != 0
    assert "OMERTA_WEB_CONNECTIONS" in ran.stderr and "LimitNOFILE" in ran.stderr
    assert limits_after(1024, 4096, {"OMERTA_WEB_CONNECTIONS": "1000"}).returncode == 0
