"""``omerta run`` (what ``make run`` starts) as a user runs it: the embedded store with its data
in ./var, an RQ worker and gunicorn; Ctrl-C, SIGHUP or SIGTERM stops them all in order; the data
is there after a restart; quiet logs unless ``--verbose``. It heals: the store, the worker and
the web server killed under load come back on their own, no acknowledged move lost, the games
end. No orphans: a killed supervisor's children exit; a new run stops an earlier run's leftovers
or refuses while that run goes on.
"""

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
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import pytest

from api.leftovers import start_time
from services.embedded import EmbeddedServer, free_port

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
    assert output.count("workers.worker: worker") == 4  # started, stopped, twice
    assert not per_job_lines(output), per_job_lines(output)  # quiet by default


def per_job_lines(output: str) -> list[str]:
    """RQ's lines about single jobs (taken, done, result kept) and gunicorn's access log."""
    return [
        line
        for line in output.splitlines()
        if "Job OK" in line or "omerta-ai:" in line or "omerta-projections:" in line
        or '"GET /' in line or '"POST /' in line
    ]  # fmt: skip


def test_verbose_logs_every_job_and_request(tmp_path: Path) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with (tmp_path / "run.log").open("ab") as log:
        proc = start(tmp_path, port, log, "--verbose")
        try:
            ann = http(base, "POST", "/players", {"name": "Ann"})
            game = http(base, "POST", "/games", {"game": "famiglia", "seats": 2, "ai": {"1": 0}},
                        ann["token"])  # fmt: skip
            wait_until(lambda: 1 not in http(base, "GET", f"/games/{game['game_id']}")["to_act"],
                       30, "the AI seat to move")  # fmt: skip
        finally:
            assert ctrl_c(proc) == 0
    output = (tmp_path / "run.log").read_text()
    lines = per_job_lines(output)
    assert any("Job OK" in line for line in lines) and any('"POST /games' in line for line in lines)


def test_a_child_that_dies_while_starting_stops_everything(tmp_path: Path) -> None:
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


def children(cwd: Path) -> dict[str, int]:
    """The supervisor's and its children's pids from the run's pid file."""
    recorded = json.loads((cwd / "var" / "run.pid").read_text())
    return {name: pid for name, (pid, _) in recorded.items()}


class Player(threading.Thread):
    """Plays seat 0 of a game against the AI to its end over HTTP, through every fault: a move
    whose answer was lost is sent again with the same Idempotency-Key. ``acked`` maps each key
    the server acknowledged to the version it answered."""

    def __init__(self, base: str, token: str, game_id: str):
        super().__init__(daemon=True)
        self.base, self.game_id = base, game_id
        self.auth = {"Authorization": f"Bearer {token}"}
        self.acked: dict[str, int] = {}
        self.failures = 0
        self.result: Any = None

    def get(self, path: str) -> Any:
        while True:
            try:
                status, body = call(self.base, "GET", path, **self.auth)
            except OSError:
                status, body = 0, None
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
                try:
                    status, body = call(self.base, "POST", f"{game}/commands", sent,
                                        **self.auth, **{"Idempotency-Key": key})  # fmt: skip
                except OSError:
                    status, body = 0, None
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


def kill_and_heal(cwd: Path, base: str, name: str, players: list[Player]) -> None:
    """SIGKILL the child ``name``; the supervisor restarts it, the service answers again and
    the games go on (a move acknowledged after the kill, unless the game ended)."""
    before = children(cwd)[name]
    moves = [len(p.acked) for p in players]
    os.kill(before, signal.SIGKILL)
    back = wait_until(lambda: children(cwd).get(name, before) != before, 30, f"{name} restarted")
    ready = wait_until(lambda: call(base, "GET", "/readyz")[0] == 200, 30, f"answers ({name})")
    print(f"{name} killed: restarted after {back:.1f} s, the service answered {ready:.1f} s later")
    wait_until(
        lambda: all(
            len(p.acked) > n or not p.is_alive() for p, n in zip(players, moves, strict=True)
        ),
        60,
        f"moves after the {name} was killed",
    )


def test_omerta_run_heals_the_store_the_worker_and_the_web_server_killed_under_load(
    tmp_path: Path,
) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = (tmp_path / "run.log").open("ab")
    proc = start(tmp_path, port, log)
    try:
        players = []
        for name in ("Ann", "Bob"):
            me = http(base, "POST", "/players", {"name": name})
            game = http(base, "POST", "/games", {"game": "famiglia", "seats": 2, "ai": {"1": 0}},
                        me["token"])  # fmt: skip
            players.append(Player(base, me["token"], game["game_id"]))
        for player in players:
            player.start()
        wait_until(lambda: all(len(p.acked) >= 2 for p in players), 60, "the games to go")
        for name in ("store", "worker", "web"):
            kill_and_heal(tmp_path, base, name, players)
        for player in players:
            player.join(180)
            assert not player.is_alive(), "a game never ended"
            assert player.result is not None
        histories = [
            http(base, "GET", f"/games/{p.game_id}/history", token=p.auth["Authorization"][7:])
            for p in players
        ]
        store_port = int((tmp_path / "var" / "valkey.port").read_text())
    finally:
        status = ctrl_c(proc)
        log.close()
    assert status == 0
    for player, history in zip(players, histories, strict=True):
        for key, version in player.acked.items():  # each acknowledged move is there, once
            versions = [e["version"] for e in history["events"] if e["command_id"] == key]
            assert versions == list(range(versions[0], version + 1)), (key, versions, version)
    assert not listening(port) and not listening(store_port)
    verify = subprocess.run(
        [sys.executable, "-m", "api", "verify", "--all"], cwd=tmp_path, env=own_store_env(),
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert verify.returncode == 0, verify.stdout + verify.stderr


def gone(pid: int) -> bool:
    return start_time(pid) is None


@pytest.mark.parametrize(
    "stop",
    [
        lambda proc: proc.send_signal(signal.SIGHUP),  # the terminal closed
        lambda proc: os.killpg(proc.pid, signal.SIGTERM),  # the whole group: reaches only it
    ],
    ids=["sighup", "sigterm-to-the-group"],
)
def test_sighup_and_sigterm_stop_everything_in_order(
    tmp_path: Path, stop: Callable[[subprocess.Popen[bytes]], None]
) -> None:
    port = free_port()
    log = (tmp_path / "run.log").open("ab")
    proc = start(tmp_path, port, log)
    pids = children(tmp_path)
    store_port = int((tmp_path / "var" / "valkey.port").read_text())
    stop(proc)
    assert proc.wait(40) == 0
    log.close()
    assert all(gone(pid) for pid in pids.values()), pids
    assert not listening(port) and not listening(store_port)
    assert not (tmp_path / "var" / "run.pid").exists()
    output = (tmp_path / "run.log").read_text()
    assert "Traceback" not in output
    assert "Shutting down: Master" in output


def test_the_children_do_not_outlive_a_killed_supervisor(tmp_path: Path) -> None:
    port = free_port()
    with (tmp_path / "run.log").open("ab") as log:
        proc = start(tmp_path, port, log)
        pids = children(tmp_path)
        store_port = int((tmp_path / "var" / "valkey.port").read_text())
        os.killpg(
            proc.pid, signal.SIGKILL
        )  # the supervisor's whole group: the children are not in it
        proc.wait(10)
        wait_until(lambda: all(gone(pid) for pid in pids.values()), 40, "the children to exit")
        wait_until(lambda: not listening(port) and not listening(store_port), 20, "free ports")


def test_a_new_run_stops_the_leftovers_of_an_earlier_one(tmp_path: Path) -> None:
    port = free_port()
    var = tmp_path / "var"
    # Left by an earlier run whose supervisor is gone: its store, and a web server on the port.
    store = EmbeddedServer(var).start()
    (var / "valkey.port").write_text(f"{store.port}\n")
    assert store.process is not None
    holder = subprocess.Popen(
        [sys.executable, "-m", "http.server", "--bind", "127.0.0.1", str(port)],
        cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True,
    )  # fmt: skip
    try:
        wait_until(lambda: listening(port), 20, "the leftover web server")
        dead = subprocess.Popen([sys.executable, "-c", "pass"])
        dead.wait()
        left = {"store": store.process.pid, "web": holder.pid}
        record = {name: [pid, start_time(pid)] for name, pid in left.items()}
        record["supervisor"] = [dead.pid, 1]  # gone
        (var / "run.pid").write_text(json.dumps(record))
        with (tmp_path / "run.log").open("ab") as log:
            proc = start(tmp_path, port, log)
            try:
                assert holder.wait(20) is not None and store.process.wait(20) is not None
            finally:
                assert ctrl_c(proc) == 0
        output = (tmp_path / "run.log").read_text()
        assert f"store {store.process.pid}" in output and f"web {holder.pid}" in output
    finally:
        holder.kill()
        holder.wait()
        store.kill()


def test_a_second_run_refuses_while_the_first_runs(tmp_path: Path) -> None:
    port = free_port()
    with (tmp_path / "run.log").open("ab") as log:
        first = start(tmp_path, port, log)
        try:
            pids = children(tmp_path)
            second = subprocess.run(
                [sys.executable, "-m", "api", "run", "--bind", f"127.0.0.1:{free_port()}"],
                cwd=tmp_path, env=own_store_env(), capture_output=True, text=True, timeout=60,
            )  # fmt: skip
            assert second.returncode == 1
            for name, pid in pids.items():
                assert f"{name} {pid}" in second.stderr, second.stderr
            assert http(f"http://127.0.0.1:{port}", "GET", "/readyz")["status"] == "ok"
        finally:
            assert ctrl_c(first) == 0
