"""Webhooks end to end: the API in this process, a real ``omerta worker`` process,
a local receiver. An opponent's move makes exactly one signed call to the player whose turn it
is; the projection run again from the old read model sends nothing more; a worker killed while
the receiver holds the call ends with one delivery (one delivery id; the call made again, the
documented at-least-once edge of HTTP); a failing receiver is retried with backoff; a
preference turned off sends nothing."""

from __future__ import annotations

import hashlib
import hmac
import json
import random
import signal
import subprocess
import threading
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import redis
from rq.job import JobStatus
from rq.registry import FailedJobRegistry, StartedJobRegistry

from api.app import create_app
from bootstrap import Container
from services.eventstore import shards
from services.notify import notifications as nt
from services.platform.embedded import free_port
from services.readside import readmodels as rm
from services.readside.readmodels import ReadModels
from tests.api.helpers import Api, Who
from tests.scrapes import Scrape, scrape
from tests.workers.helpers import start_worker, stop, wait
from tests.workers.receiver import HOLD, Receiver, receiver
from workers import queues as wq
from workers.notify import mail_pending as notify_mail_pending
from workers.notify import notices as notify_notices
from workers.notify import push as notify_push
from workers.notify import webhooks as notify_webhooks

pytestmark = pytest.mark.server

PENDING = [  # the fan-outs' and every channel's, every shard's
    key
    for name in (
        notify_notices.FAN_OUTS, notify_webhooks.PENDING, notify_push.PENDING,
        notify_mail_pending.PENDING,
    )
    for key in shards.keys(name)
]  # fmt: skip
JOBS = ("notify-*", "webhook-*", "push-*", "mail-*", "maildigest-*")  # every channel's


@pytest.fixture
def hooks_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Set before the worker starts: it inherits them."""
    monkeypatch.setenv("OMERTA_WEBHOOKS_ALLOW_PRIVATE", "1")
    monkeypatch.setenv("OMERTA_WEBHOOK_BACKOFF", "1,3,1,1,1")
    monkeypatch.setenv("OMERTA_WEBHOOK_TIMEOUT", "5")


@pytest.fixture
def worker_env(hooks_env: None) -> None:
    """The container's settings are the workers' (``hooks_env``)."""


@pytest.fixture
def api(container: Container, workers_redis: redis.Redis, hooks_env: None) -> Iterator[Api]:
    with create_app(container).test_client(use_cookies=False) as client:
        yield Api(client)


@pytest.fixture
def worker(api: Api, redis_url: str, tmp_path: Path) -> Iterator[list[subprocess.Popen[bytes]]]:
    """Started workers (the test may add more); all stopped at the end."""
    started = [start_worker(redis_url, tmp_path / "worker.log")]
    yield started
    for proc in started:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
    for proc in started:
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@dataclass
class Table:
    game_id: str
    players: dict[int, Who]  # seat -> player


def _projected(container: Container, read_models: ReadModels, game_id: str) -> rm.Summary:
    head = container.commands.load(game_id)[2]
    wait(lambda: read_models.version(game_id) >= head, 30, "the projection")
    summary = read_models.summary(game_id)
    assert summary is not None
    return summary


def _table(api: Api, read_models: ReadModels) -> Table:
    ann, bob = api.player("Ann"), api.player("Bob")
    created = api.new_game(ann, game="famiglia", seats=2)
    seat = api.join(bob, created["game_id"], created["invites"][0]["code"])
    wait(
        lambda: (
            (s := read_models.summary(created["game_id"])) is not None
            and all(x.kind == "player" for x in s.seats)
        ),
        30,
        "the seats projected",
    )
    return Table(created["game_id"], {seat: bob, 1 - seat: ann})


def _register(api: Api, who: Who, url: str) -> str:
    return api.ok("POST", "/me/webhooks", who, json={"url": url})["secret"]


def _move(container: Container, api: Api, read_models: ReadModels, table: Table) -> tuple[Who, int]:
    """The player to act moves until the turn passes (a Famiglia turn may take more than one
    command: the player owes a decision throughout, which notifies nobody); the other player,
    now to act, and their seat."""
    summary = _projected(container, read_models, table.game_id)
    (mover,) = summary.to_act
    rng = random.Random(1)
    while summary.to_act == [mover]:
        api.random_move(table.players[mover], table.game_id, rng)
        summary = _projected(container, read_models, table.game_id)
    assert summary.to_act == [1 - mover]
    return table.players[1 - mover], 1 - mover


def _quiet(
    container: Container,
    client: redis.Redis,
    abandoned: frozenset[str] = frozenset(),
    timeout: float = 60,
) -> set[str]:
    """Wait until the notification jobs of every channel are all done, scheduled digests
    included (but ``abandoned``: jobs of a killed worker, which RQ notices only a minute later);
    the ids of the jobs failed for good. A job that succeeds is deleted as it ends
    (``result_ttl=0``): none left means none queued, running, or waiting for a retry (a
    queue's length alone misses a job between its pop and its start)."""
    registry = container.queues.queue(wq.NOTIFY).failed_job_registry

    def failed() -> set[str]:
        return set(registry.get_job_ids()) - abandoned

    def jobs_left() -> set[str]:
        found = set()
        for pattern in JOBS:
            keys = client.scan_iter(f"rq:job:{pattern}")
            found |= {k.decode().removeprefix("rq:job:") for k in keys}
        return found - abandoned - failed()

    wait(
        lambda: not jobs_left() and not any(client.zcard(p) for p in PENDING),
        timeout,
        "the notification jobs to finish",
    )
    return failed()


def _signature_ok(secret: str, call_headers: dict[str, str], body: bytes) -> bool:
    timestamp = call_headers["X-Omerta-Timestamp"]
    mac = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256)
    return hmac.compare_digest(call_headers["X-Omerta-Signature"], "sha256=" + mac.hexdigest())


def test_a_move_calls_the_next_players_webhook_once_signed_and_a_second_projection_adds_nothing(
    container: Container,
    api: Api,
    read_models: ReadModels,
    workers_redis: redis.Redis,
    worker: list,
) -> None:
    table = _table(api, read_models)
    _quiet(container, workers_redis)  # the join's notice went out before any webhook existed
    with receiver() as ann_hooks, receiver() as bob_hooks:
        urls = {table.players[0].id: ann_hooks, table.players[1].id: bob_hooks}
        secrets = {who.id: _register(api, who, urls[who.id].url) for who in table.players.values()}
        before = workers_redis.hgetall(rm.game_key(table.game_id))
        waiting, seat = _move(container, api, read_models, table)
        got: Receiver = urls[waiting.id]
        wait(lambda: len(got.calls) == 1, 30, "the webhook call")
        _quiet(container, workers_redis)
        others = [r for who, r in urls.items() if who != waiting.id]
        assert [len(r.calls) for r in others] == [0]
        (call,) = got.calls
        assert _signature_ok(secrets[waiting.id], call.headers, call.body)
        other = next(who.id for who in table.players.values() if who.id != waiting.id)
        assert not _signature_ok(secrets[other], call.headers, call.body)
        sent = json.loads(call.body)
        assert sent["event"] == "your_turn" and sent["seat"] == seat
        assert sent["game_id"] == table.game_id and sent["delivery"] == call.delivery

        # The projection runs again from the read model as it was before the move (a
        # projection that died before its write): the same notice, already sent.
        key = rm.game_key(table.game_id)
        workers_redis.delete(key)
        workers_redis.hset(key, mapping=before)
        container.projector.project(table.game_id)
        _quiet(container, workers_redis)
        assert len(got.calls) == 1
        assert nt.was_sent(workers_redis, call.delivery)


def test_a_worker_killed_mid_send_ends_with_one_delivery(
    container: Container,
    api: Api,
    read_models: ReadModels,
    workers_redis: redis.Redis,
    worker: list[subprocess.Popen[bytes]],
    redis_url: str,
    tmp_path: Path,
) -> None:
    table = _table(api, read_models)
    _quiet(container, workers_redis)
    with receiver() as hooks:
        for who in table.players.values():
            _register(api, who, hooks.url)
        hooks.answers = [HOLD]
        _move(container, api, read_models, table)
        assert hooks.held.wait(30), "the call never came"
        worker[0].send_signal(signal.SIGKILL)  # while the receiver holds the call
        worker[0].wait(10)
        hooks.release.set()
        (first,) = hooks.calls
        assert not nt.was_sent(workers_redis, first.delivery)
        queue = container.queues.queue(wq.NOTIFY)
        abandoned = frozenset(StartedJobRegistry(queue=queue).get_job_ids())
        worker.append(start_worker(redis_url, tmp_path / "worker.log"))
        wait(lambda: nt.was_sent(workers_redis, first.delivery), 60, "the delivery")
        _quiet(container, workers_redis, abandoned)
        # The receiver had the body once already (its answer never reached the worker): the
        # call is made again with the same delivery id, and only that one is marked sent.
        assert hooks.deliveries() == {first.delivery}
        assert len(hooks.calls) == 2
        assert hooks.calls[0].body == hooks.calls[1].body


def test_a_failing_receiver_is_retried_with_backoff(
    container: Container,
    api: Api,
    read_models: ReadModels,
    workers_redis: redis.Redis,
    worker: list,
) -> None:
    table = _table(api, read_models)
    _quiet(container, workers_redis)
    with receiver() as hooks:
        for who in table.players.values():
            _register(api, who, hooks.url)
        hooks.answers = [500, 503]
        _move(container, api, read_models, table)
        wait(lambda: len(hooks.calls) == 3, 60, "the retries")
        _quiet(container, workers_redis)
        assert len(hooks.calls) == 3 and len(hooks.deliveries()) == 1
        assert nt.was_sent(workers_redis, hooks.calls[0].delivery)
        # OMERTA_WEBHOOK_BACKOFF: the second retry 3 s after the second failure (RQ's
        # scheduler counts whole seconds: at least 2 s).
        assert hooks.calls[2].at - hooks.calls[1].at >= 2.0


def test_a_preference_turned_off_sends_nothing(
    container: Container,
    api: Api,
    read_models: ReadModels,
    workers_redis: redis.Redis,
    worker: list,
) -> None:
    table = _table(api, read_models)
    _quiet(container, workers_redis)
    with receiver() as hooks:
        for who in table.players.values():
            _register(api, who, hooks.url)
            prefs = api.ok("PUT", "/me/notifications", who, json={"webhook": {"your_turn": False}})
            assert prefs["webhook"] == {
                "your_turn": False,
                "game_ended": True,
                "player_joined": True,
                "time_low": True,
            }
            assert prefs["email"]["your_turn"] is True
        _move(container, api, read_models, table)
        _quiet(container, workers_redis)
        assert hooks.calls == []
        # Back on: the next move's call comes (the test can fail: the receiver works).
        for who in table.players.values():
            api.ok("PUT", "/me/notifications", who, json={"webhook": {"your_turn": True}})
        _move(container, api, read_models, table)
        wait(lambda: len(hooks.calls) == 1, 30, "the webhook call")


@pytest.fixture
def public_hosts_only(hooks_env: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """Webhooks' default (set before the worker starts): each try resolves the host first and
    refuses a private address."""
    monkeypatch.delenv("OMERTA_WEBHOOKS_ALLOW_PRIVATE")
    monkeypatch.setenv("OMERTA_WEBHOOK_BACKOFF", "1,1")


def test_a_host_that_does_not_resolve_is_tried_with_backoff_then_given_up_and_shown(
    container: Container,
    public_hosts_only: None,
    api: Api,
    read_models: ReadModels,
    workers_redis: redis.Redis,
    worker: list,
    tmp_path: Path,
) -> None:
    """A name that does not resolve is a failed delivery like any other: tried as the backoff
    says, then given up, logged once without a traceback, shown in the listing; nothing sends
    it again afterwards."""
    table = _table(api, read_models)
    _quiet(container, workers_redis)
    for who in table.players.values():
        _register(api, who, "http://omerta-webhook-test.invalid/hook")
    waiting, _ = _move(container, api, read_models, table)

    def failure() -> Any:
        (hook,) = api.ok("GET", "/me/webhooks", waiting)["webhooks"]
        return hook["last_failure"]

    wait(lambda: (f := failure()) is not None and f["given_up"], 60, "the sending given up")
    assert _quiet(container, workers_redis) == set()
    found = failure()
    assert found == {"at": found["at"], "reason": "dns", "status": None, "given_up": True}
    log = tmp_path / "worker.log"
    wait(lambda: "given up" in log.read_text(), 10, "the give-up logged")
    text = log.read_text()
    assert "Traceback" not in text, text
    assert text.count("webhook delivery failed") == 3 and text.count("given up") == 1, text


def test_a_creator_to_act_first_is_told_it_is_their_turn_when_the_game_starts(
    container: Container,
    api: Api,
    read_models: ReadModels,
    workers_redis: redis.Redis,
    worker: list,
) -> None:
    """Ann makes a game whose deal gives her the first move and leaves (asynchronous play);
    when Bob takes the other seat, her hook is told he joined and that it is her turn."""
    ann, bob = api.player("Ann"), api.player("Bob")
    created = api.new_game(ann, game="famiglia", seats=2, seat=0)
    while _first_to_act(container, created["game_id"]) != 0:  # the deal decides
        created = api.new_game(ann, game="famiglia", seats=2, seat=0)
    game_id = created["game_id"]
    _projected(container, read_models, game_id)
    _quiet(container, workers_redis)
    with receiver() as hooks:
        _register(api, ann, hooks.url)
        assert api.join(bob, game_id, created["invites"][0]["code"]) == 1

        def told() -> list[tuple[str, str, int]]:
            bodies = [json.loads(call.body) for call in list(hooks.calls)]
            return sorted((b["event"], b["game_id"], b["seat"]) for b in bodies)

        wait(lambda: len(told()) >= 2, 20, "Ann's two notices")
        assert _quiet(container, workers_redis) == set()
        assert told() == [("player_joined", game_id, 1), ("your_turn", game_id, 0)]


def _first_to_act(container: Container, game_id: str) -> int:
    game, state, _, _ = container.commands.load(game_id)
    (seat,) = game.to_act(state)
    return seat


@pytest.mark.parametrize("workers", [1, 2])
def test_games_starting_while_others_end_send_every_notice_once(
    container: Container,
    api: Api,
    read_models: ReadModels,
    workers_redis: redis.Redis,
    worker: list[subprocess.Popen[bytes]],
    redis_url: str,
    tmp_path: Path,
    workers: int,
) -> None:
    """One worker (as ``omerta run`` has) or two; four games end (a concession) while four new
    games are made and joined at once (their first projection may come before or after the
    join): every notice the read models imply reaches its player's webhook exactly once:
    ``game_ended`` to both players of an ended game, ``player_joined`` to a creator,
    ``your_turn`` to whoever acts first."""
    worker.extend(
        start_worker(redis_url, tmp_path / f"worker{n}.log") for n in range(2, workers + 1)
    )
    ending = [_table(api, read_models) for _ in range(4)]
    creators = [api.player(f"Carl{i}") for i in range(4)]
    joiners = [api.player(f"Dan{i}") for i in range(4)]
    _quiet(container, workers_redis)
    with receiver() as hooks:
        for table in ending:
            for who in table.players.values():
                _register(api, who, hooks.url)
        for who in (*creators, *joiners):
            _register(api, who, hooks.url)
        app = create_app(container)
        expected: Counter[tuple[str, str, int]] = Counter()
        for table in ending:
            expected.update(("game_ended", table.game_id, seat) for seat in table.players)
        lock = threading.Lock()
        started: list[str] = []
        start = threading.Barrier(len(ending) + len(creators))

        def concede(table: Table) -> None:
            with app.test_client(use_cookies=False) as client:
                start.wait()
                Api(client).play(table.players[0], table.game_id, {"type": "concede"})

        def start_game(creator: Who, joiner: Who) -> None:
            with app.test_client(use_cookies=False) as client:
                caller = Api(client)
                start.wait()
                created = caller.new_game(creator, game="famiglia", seats=2)
                seat = caller.join(joiner, created["game_id"], created["invites"][0]["code"])
                game, state, _, _ = container.commands.load(created["game_id"])
                with lock:
                    started.append(created["game_id"])
                    expected[("player_joined", created["game_id"], seat)] += 1
                    for owing in game.to_act(state):  # the game starts: the creator too
                        expected[("your_turn", created["game_id"], owing)] += 1

        threads = [threading.Thread(target=concede, args=(t,)) for t in ending]
        threads += [
            threading.Thread(target=start_game, args=pair)
            for pair in zip(creators, joiners, strict=True)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        # Every thread did its part (one that raised added nothing).
        assert len(started) == 4
        assert len(expected) == 8 + 4 + sum(1 for e, _, _ in expected if e == "your_turn")

        def told() -> Counter[tuple[str, str, int]]:
            bodies = [json.loads(call.body) for call in list(hooks.calls)]
            return Counter((b["event"], b["game_id"], b["seat"]) for b in bodies)

        for game_id in [*(t.game_id for t in ending), *started]:
            _projected(container, read_models, game_id)
        wait(
            lambda: all(s.kind == "player" for g in started for s in read_models.summary(g).seats),
            30,
            "the seats projected",
        )
        assert _quiet(container, workers_redis) == set()
        assert told() == expected


def test_deliveries_are_counted_by_channel(
    container: Container,
    api: Api,
    read_models: ReadModels,
    workers_redis: redis.Redis,
    redis_url: str,
    tmp_path: Path,
) -> None:
    """A worker's metrics (``--metrics-port``): a failed try and the sending, each counted for
    the webhook channel, the failed try as a job to be retried."""
    port = free_port()
    proc = start_worker(redis_url, tmp_path / "worker.log", "--metrics-port", str(port))
    try:
        table = _table(api, read_models)
        _quiet(container, workers_redis)
        with receiver() as hooks:
            for who in table.players.values():
                _register(api, who, hooks.url)
            hooks.answers = [500]
            _move(container, api, read_models, table)
            wait(lambda: len(hooks.calls) == 2, 60, "the retry")
            _quiet(container, workers_redis)

        def counted() -> Scrape:
            try:
                return scrape(port)
            except OSError:  # not listening yet
                return Scrape({}, set())

        wait(lambda: counted().value("omerta_notices_sent_total", channel="webhook") == 1, 30,
             "the sending counted")  # fmt: skip
        figures = counted()
        assert figures.value("omerta_notices_failed_total", channel="webhook") == 1
        assert figures.value("omerta_jobs_retried_total", queue="omerta-notify") == 1
        assert figures.value("omerta_jobs_failed_total", queue="omerta-notify") == 0
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)


@pytest.mark.parametrize("lost", ["deleted", "failed"])
def test_a_fan_out_lost_after_its_projection_wrote_is_run_again_by_the_catch_up(
    container: Container,
    api: Api,
    workers_redis: redis.Redis,
    redis_url: str,
    tmp_path: Path,
    lost: str,
) -> None:
    """Bob joins Ann's game; its projection writes the read model and enqueues the fan-out,
    whose job is then lost before any worker runs it: deleted (RQ's server restarted without
    its AOF) or failed for good (a worker killed in every try). No later projection derives
    those notices again (the read model is written); the catch-up of the worker started
    afterwards runs the fan-out again, and Ann hears of Bob's joining once."""
    ann, bob = api.player("Ann"), api.player("Bob")
    with receiver() as hooks:
        _register(api, ann, hooks.url)
        created = api.new_game(ann, game="famiglia", seats=2)
        game_id = created["game_id"]
        seat = api.join(bob, game_id, created["invites"][0]["code"])
        assert container.projector.project(game_id).written  # type: ignore[union-attr]
        queue = container.queues.queue(wq.NOTIFY)
        (fan_out,) = queue.get_job_ids()
        job = queue.fetch_job(fan_out)
        assert job is not None
        if lost == "deleted":
            job.delete()
        else:
            queue.remove(job)
            job.set_status(JobStatus.FAILED)
            FailedJobRegistry(queue=queue).add(job, exc_string="killed in every try")
        # The fan-out's lease runs out (it is held for longer than a test should wait).
        for key in shards.keys(notify_notices.FAN_OUTS):
            for member in workers_redis.zrange(key, 0, -1):
                workers_redis.zadd(key, {member: 0})
        game, state, _, _ = container.commands.load(game_id)
        expected = [("player_joined", game_id, seat)]
        expected += [("your_turn", game_id, s) for s in game.to_act(state) if s != seat]

        def told() -> list[tuple[str, str, int]]:
            bodies = [json.loads(call.body) for call in list(hooks.calls)]
            return sorted((b["event"], b["game_id"], b["seat"]) for b in bodies)

        log = tmp_path / "worker.log"
        proc = start_worker(redis_url, log)
        try:
            wait(lambda: len(told()) >= len(expected), 30, "Ann's notices")
            failed = {fan_out} if lost == "failed" else set()
            assert _quiet(container, workers_redis) == failed
        finally:
            stop(proc, log)
        assert told() == sorted(expected)
