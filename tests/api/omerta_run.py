"""Driving ``omerta run`` from a test: start it in a directory of its own (its store under
./var), stop it, HTTP calls, its children's pids and store port, waiting for a condition
(``tests/api/test_run.py``, ``tests/faults``)."""

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


def http(base: str, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(base + path, data=data, method=method, headers=headers)
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def call(base: str, method: str, path: str, body: Any = None, **headers: str) -> tuple[int, Any]:
    """(status, JSON body), whatever the status; OSError when nothing answers."""
    data = json.dumps(body).encode() if body is not None else None
    headers = {"Content-Type": "application/json", **headers}
    request = urllib.request.Request(base + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def own_store_env() -> dict[str, str]:
    """The environment without a store: ``omerta run`` starts its own under ./var."""
    return {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "OMERTA_VAR")}


def start(cwd: Path, port: int, log: IO[bytes], *options: str) -> subprocess.Popen[bytes]:
    command = ["run", "--bind", f"127.0.0.1:{port}", "--web-workers", "1", *options]
    proc = subprocess.Popen(
        [sys.executable, "-m", "api", *command],
        cwd=cwd,
        env=own_store_env(),
        start_new_session=True,  # its own process group, as a terminal's Ctrl-C sees it
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + 100  # generous: CI's machine may be loaded 8 times over
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


def children(cwd: Path) -> dict[str, int]:
    """The supervisor's and its children's pids from the run's pid file."""
    recorded = json.loads((cwd / "var" / "run.pid").read_text())
    return {name: pid for name, (pid, _) in recorded.items()}


def run_store_port(cwd: Path) -> int:
    return int((cwd / "var" / "valkey.port").read_text())


def wait_until(condition: Any, timeout: float, what: str) -> float:
    """Seconds until ``condition()`` held."""
    began = time.monotonic()
    while True:
        try:
            if condition():
                return time.monotonic() - began
        except OSError:
            pass
        assert time.monotonic() - began < timeout, f"timed out waiting for {what}"
        time.sleep(0.1)
