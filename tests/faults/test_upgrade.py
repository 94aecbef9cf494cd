"""Rolling upgrades: the previous release's processes replaced by this one's under load, one at
a time, in the order the operators' guide gives (every worker first, then the web processes);
and the live streams of a stopping web process, which end at once and resume on another.

Processes are ``omerta serve`` and ``omerta worker`` of one tree or the other
(``tests.faults.versions``) on one store; the players (``tests.faults.load``) retry whatever got
no answer with the same ``Idempotency-Key``, as a client does, and move to the next web process
once theirs stops accepting, as a load balancer sends them.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import redis
from rq.registry import FailedJobRegistry

from api.serving import server
from services.platform.embedded import EmbeddedServer
from tests.api.omerta_run import call, http, wait_until
from tests.faults.load import Player, Say, acknowledged_once, games_go_on, statuses
from tests.faults.streams import Stream
from tests.faults.versions import ROOT, Omerta, Web, imported_from, previous_tree, tree_env
from workers.queues import QUEUES

pytestmark = pytest.mark.server

GRACEFUL_TIMEOUT = server.settings()["graceful_timeout"]
GOODBYE = range(1000, 3001)  # the last retry hint's ms (api.live.sse.goodbye)


@pytest.fixture
def processes() -> Iterator[list[Omerta]]:
    """The processes a test started: what is left of them is killed at its end."""
    started: list[Omerta] = []
    yield started
    for process in started:
        process.kill()


def move(base: str, token: str, game_id: str, key: str) -> None:
    """Seat 0's first legal command, once seat 0 is to act (again if the AI moved first)."""
    path = f"/games/{game_id}"
    headers = {"Authorization": f"Bearer {token}"}
    for attempt in range(10):
        wait_until(lambda: 0 in http(base, "GET", path, token=token)["to_act"], 60, "seat 0")
        legal = http(base, "GET", f"{path}/legal", token=token)
        sent = {"command": legal["commands"][0], "expected_version": legal["version"]}
        key_now = {"Idempotency-Key": f"{key}-{attempt}"}
        status, _ = call(base, "POST", f"{path}/commands", sent, **headers, **key_now)
        if status == 200:
            return
        assert status == 409, status
    raise AssertionError("seat 0 never moved")


def follow_to(streams: list[Stream], web: Web, path: str, token: str, final: int) -> None:
    """Reconnect as a page's EventSource does (with the last id got) whenever the last of
    ``streams`` ends, until the game's version ``final`` came."""
    deadline = time.monotonic() + 60
    while not ((ids := [i for s in streams for i in s.ids]) and int(ids[-1]) >= final):
        if streams[-1].ended:
            streams.append(Stream(web.port, path, token, ids[-1] if ids else "0"))
            streams[-1].start()
        assert time.monotonic() < deadline, f"the page never got version {final}: {ids[-5:]}"
        time.sleep(0.1)


def version(base: str, token: str, game_id: str) -> int:
    return int(http(base, "GET", f"/games/{game_id}/legal", token=token)["version"])


def ended_with_goodbye(stream: Stream) -> None:
    assert stream.ended == "clean", stream.ended
    name, value = stream.fields[-1]
    assert name == "retry" and int(value) in GOODBYE, stream.fields[-3:]


def once_each(*streams: Stream) -> list[int]:
    """The events' versions the streams got, in order: each once, none missing."""
    got = [int(i) for stream in streams for i in stream.ids]
    assert got == list(range(got[0], got[0] + len(got))), got
    return got


def test_live_streams_end_at_once_when_their_web_process_stops(
    tmp_path: Path,
    embedded_server_factory: Callable[..., EmbeddedServer],
    processes: list[Omerta],
    say: Say,
) -> None:
    env = tree_env(ROOT, embedded_server_factory().url, tmp_path / "var")
    processes.append(Omerta(ROOT, env, tmp_path / "worker.log", "worker", "--interval", "1"))
    first = Web(ROOT, env, tmp_path / "web-1.log")
    processes.append(first)
    second = Web(ROOT, env, tmp_path / "web-2.log")
    processes.append(second)
    token = http(first.base, "POST", "/players", {"name": "ann"})["token"]
    spec = {"game": "famiglia", "seats": 2, "ai": {"1": 0}}
    game = http(first.base, "POST", "/games", spec, token=token)["game_id"]
    move(first.base, token, game, "ann-0")
    events = Stream(first.port, f"/games/{game}/events", token)
    inbox = Stream(first.port, "/me/events", token)
    for stream in (events, inbox):
        stream.start()
        wait_until(lambda s=stream: s.opened.is_set() or s.ended, 30, "the stream to open")
    wait_until(lambda: events.ids, 30, "the game's events")

    stopped = time.monotonic()
    first.stop()
    wait_until(lambda: events.ended and inbox.ended, GRACEFUL_TIMEOUT, "the streams to end")
    ended_with_goodbye(events)
    ended_with_goodbye(inbox)
    assert first.wait(GRACEFUL_TIMEOUT + 30) == 0
    exited = time.monotonic() - stopped
    assert "graceful timeout" not in first.log.read_text()  # the streams ended it, not the cut

    # While no page follows the game, it moves on (on the other process); the page's
    # EventSource reconnects there with the last id it got, and gets what it missed once.
    move(second.base, token, game, "ann-1")
    now = version(second.base, token, game)
    assert now > int(events.ids[-1])
    resumed = Stream(second.port, f"/games/{game}/events", token, last_event_id=events.ids[-1])
    resumed.start()
    wait_until(lambda: resumed.ids and int(resumed.ids[-1]) >= now, 30, "the missed events")
    got = once_each(events, resumed)
    assert resumed.ids[0] == str(int(events.ids[-1]) + 1)  # the first event it missed
    second.stop()
    wait_until(lambda: resumed.ended, GRACEFUL_TIMEOUT, "the resumed stream to end")
    ended_with_goodbye(resumed)
    ended = (max(events.ended_at, inbox.ended_at) - stopped) * 1000
    say(f"SIGTERM to a web process: its game and player streams ended with a retry hint "
        f"{ended:.0f} ms later, the process exited after {exited:.2f} s (graceful_timeout "
        f"{GRACEFUL_TIMEOUT} s); the stream resumed "
        f"on another process from version {events.ids[-1]}: versions {got[0]}..{got[-1]} "
        f"each once")  # fmt: skip


def replace_web(
    old: Web, new_tree: Path, env: dict[str, str], log: Path, players: list[Player]
) -> tuple[Web, float]:
    """A new web process of ``new_tree`` started, the old one stopped (SIGTERM) and its players
    sent to the new one once the old stops accepting; the new process and how long the old took
    to exit."""
    new = Web(new_tree, env, log)
    stopped = time.monotonic()
    old.stop()
    wait_until(lambda: not old.accepting(), GRACEFUL_TIMEOUT, "the old web to stop accepting")
    for player in players:
        if player.base == old.base:
            player.base = new.base
    old.wait(GRACEFUL_TIMEOUT + 30)
    return new, time.monotonic() - stopped


def omerta(*command: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "api", *command], cwd=ROOT, env=env, capture_output=True,
        text=True, timeout=120,
    )  # fmt: skip


def failed_jobs(url: str) -> dict[str, list[str]]:
    client = redis.Redis.from_url(url)
    try:
        failed = {q: FailedJobRegistry(q, connection=client).get_job_ids() for q in QUEUES}
    finally:
        client.close()
    return {queue: ids for queue, ids in failed.items() if ids}


def test_rolling_upgrade_under_load(
    tmp_path: Path,
    embedded_server_factory: Callable[..., EmbeddedServer],
    processes: list[Omerta],
    say: Say,
) -> None:
    store = embedded_server_factory()
    old_tree = previous_tree(tmp_path / "previous")
    old_env = tree_env(old_tree, store.url, tmp_path / "var")
    new_env = tree_env(ROOT, store.url, tmp_path / "var")
    assert imported_from(old_tree, old_env) == old_tree
    assert imported_from(ROOT, new_env) == ROOT
    began = time.monotonic()

    def worker(tree: Path, env: dict[str, str], name: str, *options: str) -> Omerta:
        args = ("worker", "--interval", "1", *options)
        processes.append(Omerta(tree, env, tmp_path / f"{name}.log", *args))
        return processes[-1]

    def web(tree: Path, env: dict[str, str], name: str) -> Web:
        started = Web(tree, env, tmp_path / f"{name}.log")
        processes.append(started)
        return started

    workers = [
        worker(old_tree, old_env, "old-worker"),
        worker(old_tree, old_env, "old-ai", "--queues", "ai"),
    ]
    webs = [web(old_tree, old_env, "old-web-1"), web(old_tree, old_env, "old-web-2")]
    players = [
        Player(webs[0].base, "ann", {"game": "famiglia", "seats": 2, "ai": {"1": 0}}),
        Player(webs[1].base, "bob", {"game": "famiglia", "seats": 2, "ai": {"1": "greedy"}}),
        Player(webs[0].base, "cy", {"game": "gangsta", "seats": 4, "ai": {"1": 0, "2": 1, "3": 0}}),
    ]
    for player in players:
        player.start()
    wait_until(lambda: all(p.moves >= 2 for p in players), 60, "the games to go")
    # A page follows Gangsta! (the longest game here) on the first old web process.
    followed, follower = players[2].games[-1].game_id, players[2]
    page = Stream(webs[0].port, f"/games/{followed}/events", follower.token)
    page.start()
    wait_until(lambda: page.opened.is_set() or page.ended, 30, "the page's stream to open")
    say(f"the previous release served the load: {len(workers) + len(webs)} processes ready "
        f"and every player moving {time.monotonic() - began:.1f} s after the start")  # fmt: skip

    # Workers first: the new ones run the jobs queued by old web processes (RENAMED), old ones
    # could not run a new web's. Every old worker stops (finishing its job) before a new one
    # starts, whose jobs an old worker would otherwise take and fail.
    stopped = time.monotonic()
    for old in workers:
        old.stop()
    for old in workers:
        assert old.wait(60) == 0
    gap = time.monotonic() - stopped
    worker(ROOT, new_env, "new-worker")
    worker(ROOT, new_env, "new-ai", "--queues", "ai")
    moved = games_go_on(players, "the workers' upgrade")
    say(f"workers upgraded: the old ones stopped in {gap:.1f} s, the games moved on "
        f"{moved:.1f} s after the new ones started (running the old web's jobs)")  # fmt: skip

    def upgrade_web(n: int) -> Web:
        new, took = replace_web(webs[n], ROOT, new_env, tmp_path / f"new-web-{n + 1}.log", players)
        processes.append(new)
        webs[n] = new
        moved = games_go_on(players, f"web process {n + 1}'s upgrade")
        say(f"web process {n + 1} upgraded: the old one exited {took:.1f} s after SIGTERM, the "
            f"games moved on {moved:.1f} s later; answers seen so far: "
            f"{dict(sorted(statuses(players).items()))}")  # fmt: skip
        return new

    # The page's stream ends with its process (the previous release cuts it at the graceful
    # timeout); its EventSource reconnects to the new one with the last id it got.
    new = upgrade_web(0)
    wait_until(lambda: page.ended, 30, "the old page stream to end")
    path, streams = f"/games/{followed}/events", [page]
    streams.append(Stream(new.port, path, follower.token, page.ids[-1] if page.ids else "0"))
    streams[-1].start()
    upgrade_web(1)

    for player in players:
        player.stop.set()
    for player in players:
        player.join(180)
        assert not player.is_alive(), f"a game of {player.name} never ended"
    games = [(p, g) for p in players for g in p.games]
    assert all(g.result is not None for _, g in games)
    histories = [
        http(webs[0].base, "GET", f"/games/{g.game_id}/history", token=p.token) for p, g in games
    ]
    final = next(
        h["events"][-1]["version"]
        for (_, g), h in zip(games, histories, strict=True)
        if g.game_id == followed
    )
    follow_to(streams, new, path, follower.token, final)
    got = once_each(*streams)
    assert got[-1] == final, (got[-1], final)
    for process in processes:
        process.stop()
    for process in processes:
        process.wait(60)

    assert set(statuses(players)) <= {0, 200, 201, 409, 422}, statuses(players)  # never a 5xx
    for (_, game), history in zip(games, histories, strict=True):
        acknowledged_once(game, history)
    assert failed_jobs(store.url) == {}
    verify = omerta("verify", "--all", env=new_env)
    assert verify.returncode == 0, verify.stdout + verify.stderr
    rebuild = omerta("rebuild", "--quiet", env=new_env)
    assert rebuild.returncode == 0 and rebuild.stdout.rstrip().endswith(": identical"), (
        rebuild.stdout + rebuild.stderr
    )
    played = ", ".join(f"{p.spec['game']}: {len(p.games)} ({p.moves} moves)" for p in players)
    say(f"upgraded under load in {time.monotonic() - began:.0f} s; games {played}; the page's "
        f"stream resumed on the new process: versions {got[0]}..{got[-1]} each once over "
        f"{len(streams)} responses; no job failed; verify --all passed; rebuild: "
        f"{rebuild.stdout.strip()}")  # fmt: skip
