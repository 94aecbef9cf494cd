"""``omerta run`` (what ``make run`` starts) as a user runs it: the embedded store with its data
in ./var, an RQ worker and gunicorn; Ctrl-C, SIGHUP or SIGTERM stops them all in order; the data
is there after a restart; quiet logs unless ``--verbose``. No orphans: a killed supervisor's
children exit; a new run stops an earlier run's leftovers or refuses while that run goes on.
Its children killed, stalled or starved under load: ``tests/faults``.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest

from api.serving.leftovers import start_time
from services.platform.embedded import EmbeddedServer, free_port
from tests.api.omerta_run import (
    call,
    children,
    ctrl_c,
    http,
    listening,
    own_store_env,
    run_store_port,
    start,
    wait_until,
)

pytestmark = pytest.mark.server


WAIT = 100.0  # seconds a condition may take on a loaded machine (CI: load 16 on 2 cores)
WORKER_LINE = re.compile(r"workers\.worker: worker \S+ (started|stopped)")


def workers_started(log: Path, count: int) -> None:
    """Until the run's log says ``count`` workers started (a Ctrl-C before would stop a
    worker still importing: no line of it at all)."""
    wait_until(
        lambda: WORKER_LINE.findall(log.read_text()).count("started") >= count,
        WAIT,
        f"{count} workers started",
    )


def test_omerta_run_serves_plays_stops_and_keeps_the_data(tmp_path: Path) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = (tmp_path / "run.log").open("ab")
    proc = start(tmp_path, port, log)
    try:
        assert {"worker", "ai-worker", "web", "store"} <= set(children(tmp_path))
        ann = http(base, "POST", "/players", {"name": "Ann"})
        game = http(base, "POST", "/games", {"game": "famiglia", "seats": 2, "ai": {"1": 0}},
                    ann["token"])  # fmt: skip
        path = f"/games/{game['game_id']}"
        wait_until(lambda: 1 not in http(base, "GET", path)["to_act"], WAIT, "the AI seat to move")
        table = http(base, "GET", path)
        assert table["to_act"] == [0] or table["result"] is not None
        store_port = run_store_port(tmp_path)
        workers_started(tmp_path / "run.log", 3)
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
        workers_started(tmp_path / "run.log", 6)
    finally:
        assert ctrl_c(proc) == 0
    log.close()
    output = (tmp_path / "run.log").read_text()
    assert "Traceback" not in output, "the stop was not clean (the store went first?)"
    assert output.count("Shutting down: Master") == 2  # gunicorn stopped gracefully twice
    # started, stopped, twice: the worker, the AI worker and the analysis worker
    assert len(WORKER_LINE.findall(output)) == 12
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
                       WAIT, "the AI seat to move")  # fmt: skip

            def logged(what: str) -> bool:  # the move is visible before RQ logs its job
                return any(
                    what in line for line in per_job_lines((tmp_path / "run.log").read_text())
                )

            wait_until(lambda: logged("Job OK") and logged('"POST /games'), WAIT, "the job lines")
        finally:
            assert ctrl_c(proc) == 0


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
    store_port = run_store_port(tmp_path)
    assert not listening(store_port), "the store was left running"


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
    store_port = run_store_port(tmp_path)
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
        store_port = run_store_port(tmp_path)
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


def ai_answers(base: str, token: str, game_id: str) -> Callable[[], bool]:
    """A condition: Ann (seat 0) moves whenever it is her turn; true once the AI seat has
    moved after the condition was made (or the game is over)."""
    path = f"/games/{game_id}"
    since = http(base, "GET", path)["version"]

    def answered() -> bool:
        table = http(base, "GET", path)
        events = http(base, "GET", f"{path}/history", token=token)["events"]
        if table["result"] is not None or any(
            e["version"] > since and e["command_id"].startswith("ai-") for e in events
        ):
            return True
        if 0 in table["to_act"]:
            legal = http(base, "GET", f"{path}/legal", token=token)
            sent = {"command": legal["commands"][0], "expected_version": legal["version"]}
            call(base, "POST", f"{path}/commands", sent, Authorization=f"Bearer {token}")
        return False

    return answered


def test_a_hung_worker_is_killed_and_started_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A child stopped outright (SIGSTOP: a hung process) gives no sign of life: past
    ``OMERTA_CHILD_STALE_SECONDS`` the supervisor kills it and starts another, and the games
    against the AI move again."""
    monkeypatch.setenv("OMERTA_CHILD_STALE_SECONDS", "3")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with (tmp_path / "run.log").open("ab") as log:
        proc = start(tmp_path, port, log)
        hung = children(tmp_path)["ai-worker"]
        try:
            workers_started(tmp_path / "run.log", 3)
            ann = http(base, "POST", "/players", {"name": "Ann"})["token"]
            body = {"game": "famiglia", "seats": 2, "ai": {"1": 1}}
            game_id = http(base, "POST", "/games", body, ann)["game_id"]
            wait_until(ai_answers(base, ann, game_id), WAIT, "an AI move")
            os.kill(hung, signal.SIGSTOP)
            wait_until(lambda: children(tmp_path).get("ai-worker", hung) != hung, WAIT,
                       "the hung AI worker replaced")  # fmt: skip
            assert gone(hung)
            wait_until(ai_answers(base, ann, game_id), WAIT, "an AI move by the new AI worker")
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.kill(hung, signal.SIGCONT)  # left hung (the defect): it stops with the rest
            assert ctrl_c(proc) == 0
    assert "ai-worker gave no sign of life" in (tmp_path / "run.log").read_text()
