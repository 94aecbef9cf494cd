"""Driving ``omerta run`` from a test: start it in a directory of its own (its store under
./var), HTTP calls, its children's pids, players that play through every fault, and waiting for
the service to heal (``tests/api/test_run.py``, ``tests/faults``)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Callable
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


def children(cwd: Path) -> dict[str, int]:
    """The supervisor's and its children's pids from the run's pid file."""
    recorded = json.loads((cwd / "var" / "run.pid").read_text())
    return {name: pid for name, (pid, _) in recorded.items()}


def run_store_port(cwd: Path) -> int:
    return int((cwd / "var" / "valkey.port").read_text())


class Player(threading.Thread):
    """Plays seat 0 of a game against the AI to its end over HTTP, through every fault: a move
    whose answer was lost is sent again with the same Idempotency-Key. ``acked`` maps each key
    the server acknowledged to the version it answered; ``statuses`` counts every status the
    player's requests got (0: no answer)."""

    def __init__(self, base: str, token: str, game_id: str):
        super().__init__(daemon=True)
        self.base, self.game_id, self.token = base, game_id, token
        self.auth = {"Authorization": f"Bearer {token}"}
        self.acked: dict[str, int] = {}
        self.statuses: Counter[int] = Counter()
        self.failures = 0
        self.result: Any = None

    def send(self, method: str, path: str, body: Any = None, **headers: str) -> tuple[int, Any]:
        try:
            status, answer = call(self.base, method, path, body, **self.auth, **headers)
        except OSError:
            status, answer = 0, None
        self.statuses[status] += 1
        return status, answer

    def get(self, path: str) -> Any:
        while True:
            status, body = self.send("GET", path)
            if status == 200:
                return body
            self.failures += 1
            time.sleep(0.1)

    def run(self) -> None:
        game = f"/games/{self.game_id}"
        while (table := self.get(game))["result"] is None:
            if 0 not in table["to_act"]:
                time.sleep(0.05)
                continue
            legal = self.get(f"{game}/legal")
            key = f"ann-{len(self.acked)}"
            sent = {"command": legal["commands"][0], "expected_version": legal["version"]}
            while True:
                headers = {"Idempotency-Key": key}
                status, body = self.send("POST", f"{game}/commands", sent, **headers)
                if status == 200:
                    self.acked[key] = body["version"]
                    break
                if status in (409, 422):  # the AI moved first (or the game moved on): look again
                    break
                self.failures += 1
                time.sleep(0.1)
        self.result = table["result"]


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


def games_go_on(players: list[Player], what: str, timeout: float = 60) -> float:
    """Seconds until every game still running got a move acknowledged after now."""
    moves = [len(p.acked) for p in players]
    return wait_until(
        lambda: all(
            len(p.acked) > n or not p.is_alive() for p, n in zip(players, moves, strict=True)
        ),
        timeout,
        f"moves after {what}",
    )


def kill_and_heal(
    cwd: Path, base: str, name: str, players: list[Player], say: Callable[[str], None] = print
) -> None:
    """SIGKILL the child ``name``; the supervisor restarts it, the service answers again and
    the games go on (a move acknowledged after the kill, unless the game ended)."""
    before = children(cwd)[name]
    os.kill(before, signal.SIGKILL)
    back = wait_until(lambda: children(cwd).get(name, before) != before, 30, f"{name} restarted")
    ready = wait_until(lambda: call(base, "GET", "/readyz")[0] == 200, 30, f"answers ({name})")
    moved = games_go_on(players, f"the {name} was killed")
    say(f"{name} killed: restarted after {back:.1f} s, the service answered {ready:.1f} s "
        f"later, the games moved on {moved:.1f} s after that")  # fmt: skip


def acknowledged_once(player: Player, history: dict[str, Any]) -> None:
    """Each command the player got acknowledged is in its game's stream once: its events are
    one run of consecutive versions ending at the version it was acknowledged at."""
    for key, version in player.acked.items():
        versions = [e["version"] for e in history["events"] if e["command_id"] == key]
        assert versions == list(range(versions[0], version + 1)), (key, versions, version)
