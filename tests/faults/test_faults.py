"""Fault injection under HTTP load: one ``omerta run``; players playing Famiglia
against the AI and Gangsta! against three AI seats, one game after another (``load``); one
fault after another: the store stalled (SIGSTOP), its memory full (``maxmemory`` reached, the
worker behind: a job lost), then the store, the worker, the AI worker and the web server killed
(SIGKILL).
After each the service answers again on its own and the games go on; at the end every game is
over, every acknowledged command is in its stream once at the version it was acknowledged at,
no request got a 5xx other than the store's 503, ``omerta verify --all`` passes and ``omerta
rebuild`` finds the read models identical.

Progress lines (the fault, how long until healthy) go to the terminal (``say``).
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
import redis

from services.platform.embedded import HOST, free_port
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
from tests.faults.load import (
    Player,
    Say,
    acknowledged_once,
    games_go_on,
    kill_and_heal,
    statuses,
)

pytestmark = pytest.mark.server

STALL_SECONDS = 6.0
FULL_SECONDS = 6.0  # long enough for the AI jobs of the full phase to be refused and overdue
HEADROOM = 4 * 1024  # bytes above used_memory: a few writes fill them


def stall_and_heal(cwd: Path, base: str, players: list[Player], say: Say) -> None:
    """SIGSTOP the store for ``STALL_SECONDS``, then SIGCONT: no process quits or is restarted,
    the service answers and the games go on."""
    before = children(cwd)
    os.kill(before["store"], signal.SIGSTOP)
    try:
        time.sleep(STALL_SECONDS)
    finally:
        os.kill(before["store"], signal.SIGCONT)
    ready = wait_until(lambda: call(base, "GET", "/readyz")[0] == 200, 30, "answers (stall)")
    moved = games_go_on(players, "the store's stall")
    assert children(cwd) == before, "a process quit while the store stalled"
    say(f"store stalled {STALL_SECONDS:.0f} s: answered {ready:.1f} s after SIGCONT, "
        f"games moved on {moved:.1f} s later, no process restarted")  # fmt: skip


def fill_and_heal(cwd: Path, base: str, players: list[Player], say: Say) -> None:
    """The store's memory full under load: writes get a 503 problem, reads answer; the limit
    lifted, the games go on. The worker is stopped as the memory fills, after a job was
    enqueued for it (a player joining the load creates a game): continued, it starts that job
    and the store refuses RQ's bookkeeping, so the job is lost, and the games go on only if
    the catch-up repairs it."""
    store = redis.Redis(host=HOST, port=run_store_port(cwd))
    worker = children(cwd)["worker"]
    player = players[0]
    try:
        assert store.config_get("maxmemory-policy")["maxmemory-policy"] == "noeviction"
        refused = statuses(players)[503]
        probes: Counter[int] = Counter()

        def write_refused() -> bool:  # the load's writes fill the rest; this one probes
            status, body = call(base, "POST", "/players", {"name": "Full"})
            probes[status] += 1
            return status == 503 and body["code"] == "store_unavailable"

        os.kill(worker, signal.SIGSTOP)
        try:
            newcomer = Player(base, "dan", {"game": "famiglia", "seats": 2, "ai": {"1": 1}})
            # The other games wait for the AI; this one's creation wakes a projection job, which
            # the stopped worker's blocking pop takes at once (the store answers it).
            newcomer.start()
            players.append(newcomer)
            wait_until(lambda: newcomer.games, 30, "a game created while the worker is stopped")
            used = store.info("memory")["used_memory"]
            store.config_set("maxmemory", used + HEADROOM)
            full = wait_until(write_refused, 30, "a write refused")
        finally:
            os.kill(worker, signal.SIGCONT)
        assert set(probes) <= {201, 503}, probes  # refused with a problem, never a 500
        game = f"/games/{player.games[-1].game_id}"
        for path in (game, f"{game}/history", "/me"):
            status, _ = call(base, "GET", path, **player.auth)
            assert status == 200, (path, status)  # reads answer
        time.sleep(FULL_SECONDS)
        during = statuses(players)[503] - refused
    finally:
        store.config_set("maxmemory", 0)
        store.close()
    moved = games_go_on(players, "the store's memory was freed")
    say(f"store memory full (limit {used + HEADROOM} B): writes refused after {full:.1f} s "
        f"(503 problem; the load got {during} more), reads answered; limit lifted "
        f"{FULL_SECONDS:.0f} s later: games moved on {moved:.1f} s after that")  # fmt: skip


def omerta(cwd: Path, *command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "api", *command], cwd=cwd, env=own_store_env(),
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def test_the_service_heals_every_fault_under_load(tmp_path: Path, say: Say) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = (tmp_path / "run.log").open("ab")
    began = time.monotonic()
    proc = start(tmp_path, port, log)
    try:
        players = [
            Player(base, "ann", {"game": "famiglia", "seats": 2, "ai": {"1": 0}}),
            Player(base, "bob", {"game": "famiglia", "seats": 2, "ai": {"1": "greedy"}}),
            Player(base, "cy", {"game": "gangsta", "seats": 4, "ai": {"1": 0, "2": 1, "3": 0}}),
        ]
        for player in players:
            player.start()
        wait_until(lambda: all(p.moves >= 2 for p in players), 60, "the games to go")
        stall_and_heal(tmp_path, base, players, say)
        fill_and_heal(tmp_path, base, players, say)
        for name in ("store", "worker", "ai-worker", "web"):
            kill_and_heal(tmp_path, base, name, players, say)
        for player in players:
            player.stop.set()
        for player in players:
            player.join(180)
            assert not player.is_alive(), f"a game of {player.name} never ended"
        games = [(p, g) for p in players for g in p.games]
        assert all(g.result is not None for _, g in games)
        played = ", ".join(f"{p.spec['game']}: {len(p.games)} ({p.moves} moves)" for p in players)
        say(f"every game over {time.monotonic() - began:.0f} s after the start; games played "
            f"against the AI (the players' moves acknowledged) {played}; answers seen: "
            f"{dict(sorted(statuses(players).items()))}")  # fmt: skip
        histories = [
            http(base, "GET", f"/games/{g.game_id}/history", token=p.token) for p, g in games
        ]
        store_port = run_store_port(tmp_path)
    finally:
        status = ctrl_c(proc)
        log.close()
    assert status == 0
    assert set(statuses(players)) <= {0, 200, 201, 409, 422, 503}, statuses(players)  # never a 500
    for (_, game), history in zip(games, histories, strict=True):
        acknowledged_once(game, history)
    assert not listening(port) and not listening(store_port)
    verify = omerta(tmp_path, "verify", "--all")
    assert verify.returncode == 0, verify.stdout + verify.stderr
    rebuild = omerta(tmp_path, "rebuild", "--quiet")
    assert rebuild.returncode == 0 and rebuild.stdout.rstrip().endswith(": identical"), (
        rebuild.stdout + rebuild.stderr
    )
    output = (tmp_path / "run.log").read_text()
    projected = sum(int(n) for n in re.findall(r"(\d+) games projected", output))
    revived = sum(int(n) for n in re.findall(r"(\d+) AI moves re-enqueued", output))
    say(f"the catch-up projected {projected} games and re-enqueued {revived} AI moves whose "
        f"jobs were lost; the worker's loop started again "
        f"{output.count('starting again in')} times; verify --all passed; rebuild: "
        f"{rebuild.stdout.strip()}")  # fmt: skip
