"""``omerta run`` (what ``make run`` starts) as a user runs it: the embedded store with its data
in ./var, an RQ worker and gunicorn; Ctrl-C stops them all; the data is there after a restart.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import IO, Any

import pytest

from services.embedded import free_port

pytestmark = pytest.mark.server


def http(base: str, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(base + path, data=data, method=method, headers=headers)
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def own_store_env() -> dict[str, str]:
    """The environment without a store: ``omerta run`` starts its own under ./var."""
    return {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "OMERTA_VAR")}


def start(cwd: Path, port: int, log: IO[bytes]) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "api", "run", "--bind", f"127.0.0.1:{port}", "--web-workers", "1"],
        cwd=cwd,
        env=own_store_env(),
        start_new_session=True,  # its own process group, as a terminal's Ctrl-C sees it
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + 60
    while True:
        try:
            if http(f"http://127.0.0.1:{port}", "GET", "/readyz")["status"] == "ok":
                return proc
        except (urllib.error.URLError, ConnectionError):
            pass
        assert proc.poll() is None, "omerta run exited while starting"
        assert time.monotonic() < deadline, "omerta run never got ready"
        time.sleep(0.2)


def ctrl_c(proc: subprocess.Popen[bytes]) -> int:
    os.killpg(proc.pid, signal.SIGINT)  # the whole group, as the terminal does
    return proc.wait(40)


def listening(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


def test_omerta_run_serves_plays_stops_and_keeps_the_data(tmp_path: Path) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = (tmp_path / "run.log").open("ab")
    proc = start(tmp_path, port, log)
    try:
        ann = http(base, "POST", "/players", {"name": "Ann"})
        game = http(base, "POST", "/games", {"game": "famiglia", "seats": 2, "ai": {"1": 0}},
                    ann["token"])  # fmt: skip
        deadline = time.monotonic() + 30
        while 1 in (table := http(base, "GET", f"/games/{game['game_id']}"))["to_act"]:
            assert time.monotonic() < deadline, "the worker never moved the AI seat"
            time.sleep(0.1)
        assert table["to_act"] == [0] or table["result"] is not None
        store_port = int((tmp_path / "var" / "valkey.port").read_text())
    finally:
        status = ctrl_c(proc)
    assert status == 0
    assert not listening(port) and not listening(store_port), "something still runs"
    assert (tmp_path / "var" / "appendonlydir").is_dir()

    proc = start(tmp_path, port, log)
    try:
        assert http(base, "GET", "/me", token=ann["token"])["name"] == "Ann"
        with urllib.request.urlopen(base + "/", timeout=10) as page:  # the web pages too
            assert page.headers.get_content_type() == "text/html"
        assert http(base, "GET", f"/games/{game['game_id']}")["version"] == table["version"]
    finally:
        assert ctrl_c(proc) == 0
    log.close()
    output = (tmp_path / "run.log").read_text()
    assert "Traceback" not in output, "the stop was not clean (the store went first?)"
    assert output.count("Shutting down: Master") == 2  # gunicorn stopped gracefully twice


def test_a_child_that_dies_stops_everything(tmp_path: Path) -> None:
    with socket.socket() as taken:  # the web port is taken: gunicorn cannot start
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = subprocess.Popen(
            [sys.executable, "-m", "api", "run", "--bind", f"127.0.0.1:{port}"],
            cwd=tmp_path,
            env=own_store_env(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        assert proc.wait(60) == 1
    store_port = int((tmp_path / "var" / "valkey.port").read_text())
    assert not listening(store_port), "the store was left running"
