"""Browser push end to end: the API in this process, a real ``omerta worker``
process, a local push service (``tests.workers.pushservice``) whose pushes the test decrypts
with the subscription's own private key (RFC 8291, as the browser would) and whose VAPID
signature it checks against the served public key (RFC 8292).

An opponent's move makes exactly one push, to the player whose turn it is, in the language
their page had; the projection run again from the old read model pushes nothing more; a 410
drops the subscription; a failing push service is retried; a preference turned off pushes
nothing; the catch-up sends a push whose worker died."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import msgspec
import pytest
import redis

from api.app import create_app
from bootstrap import Container
from services.notify import notifications as nt
from services.notify import push
from services.readside import readmodels as rm
from services.readside.readmodels import ReadModels
from tests.api.helpers import Api, Who
from tests.workers.helpers import start_worker, wait
from tests.workers.pushservice import Browser, PushService, push_service, vapid_claims
from tests.workers.test_webhooks import Table, _move, _quiet, _table
from workers.notify import channel
from workers.notify import push as notify_push

pytestmark = pytest.mark.server


@pytest.fixture
def push_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Set before the worker starts: it inherits them (the same VAPID key file as the API)."""
    monkeypatch.setenv("OMERTA_VAR", str(tmp_path / "var"))
    monkeypatch.setenv("OMERTA_PUSH_ALLOW_PRIVATE", "1")
    monkeypatch.setenv("OMERTA_WEBHOOK_BACKOFF", "1,3,1,1,1")
    monkeypatch.setenv("OMERTA_WEBHOOK_TIMEOUT", "5")


@pytest.fixture
def worker_env(push_env: None) -> None:
    """The container's settings are the workers' (``push_env``)."""


@pytest.fixture
def api(container: Container, workers_redis: redis.Redis, push_env: None) -> Iterator[Api]:
    with create_app(container).test_client(use_cookies=False) as client:
        yield Api(client)


@pytest.fixture
def worker(api: Api, redis_url: str, tmp_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    proc = start_worker(redis_url, tmp_path / "worker.log")
    yield proc
    proc.terminate()
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _subscribe(api: Api, who: Who, service: PushService, lang: str = "en") -> Browser:
    browser = Browser()
    sub = browser.subscription(service.endpoint(who.id))
    api.ok("POST", "/me/push", who, json=sub, headers={"Accept-Language": lang})
    return browser


def _both(api: Api, table: Table, service: PushService) -> dict[str, Browser]:
    """Each player's browser subscribed: Ann's page in English, Bob's in Japanese."""
    langs = {"Ann": "en", "Bob": "ja"}
    return {
        who.id: _subscribe(api, who, service, langs[who.name]) for who in table.players.values()
    }


def test_a_move_pushes_once_to_the_next_player_encrypted_and_signed(
    container: Container,
    api: Api,
    read_models: ReadModels,
    workers_redis: redis.Redis,
    worker: object,
) -> None:
    table = _table(api, read_models)
    _quiet(container, workers_redis)
    key = api.ok("GET", "/push/key")["key"]
    with push_service() as service:
        browsers = _both(api, table, service)
        before = workers_redis.hgetall(rm.game_key(table.game_id))
        waiting, _ = _move(container, api, read_models, table)
        wait(lambda: len(service.pushes) == 1, 30, "the push")
        _quiet(container, workers_redis)
        assert len(service.pushes) == 1
        (sent,) = service.to(waiting.id)
        claims = vapid_claims(sent.headers["authorization"], key)
        assert claims["aud"] == service.base
        assert claims["sub"].startswith("mailto:") and claims["exp"] > time.time()
        assert sent.headers["content-encoding"] == "aes128gcm"
        assert int(sent.headers["ttl"]) == push.TTL
        shown = browsers[waiting.id].decrypt(sent.body)
        japanese = waiting.name == "Bob"
        assert shown == {
            "event": "your_turn",
            "game_id": table.game_id,
            "game": "ファミリア" if japanese else "Famiglia",
            "title": "あなたの番です" if japanese else "Your turn",
            "body": "ファミリアであなたの番です。" if japanese else "Your turn in Famiglia.",
            "url": f"/play/{table.game_id}",
        }
        other = next(b for who, b in browsers.items() if who != waiting.id)
        with pytest.raises(Exception):  # noqa: B017 (any failure: it is not the other's push)
            other.decrypt(sent.body)

        # The projection runs again from the read model as it was before the move (one that
        # died before its write): the same notice, already pushed.
        key_ = rm.game_key(table.game_id)
        workers_redis.delete(key_)
        workers_redis.hset(key_, mapping=before)
        container.projector.project(table.game_id)
        _quiet(container, workers_redis)
        assert len(service.pushes) == 1
        sent_records = [
            k
            for k in workers_redis.scan_iter("notify:delivery:*")
            if workers_redis.get(k) == nt.SENT
        ]
        assert len(sent_records) == 1


def test_a_410_drops_the_subscription(
    container: Container,
    api: Api,
    read_models: ReadModels,
    workers_redis: redis.Redis,
    worker: object,
) -> None:
    table = _table(api, read_models)
    _quiet(container, workers_redis)
    with push_service() as service:
        _both(api, table, service)
        service.answers = [410]
        waiting, _ = _move(container, api, read_models, table)
        wait(lambda: len(service.pushes) == 1, 30, "the push")
        _quiet(container, workers_redis)
        assert api.ok("GET", "/me/push", waiting)["subscriptions"] == []
        mover = next(w for w in table.players.values() if w.id != waiting.id)
        assert len(api.ok("GET", "/me/push", mover)["subscriptions"]) == 1
        assert len(service.pushes) == 1  # not retried
        # The next turn of the player who still has a browser is pushed (the test can fail).
        _move(container, api, read_models, table)
        wait(lambda: len(service.to(mover.id)) == 1, 30, "the push to the other player")


def test_a_failing_push_service_is_retried_with_backoff(
    container: Container,
    api: Api,
    read_models: ReadModels,
    workers_redis: redis.Redis,
    worker: object,
) -> None:
    table = _table(api, read_models)
    _quiet(container, workers_redis)
    with push_service() as service:
        browsers = _both(api, table, service)
        service.answers = [500, 503]
        waiting, _ = _move(container, api, read_models, table)
        wait(lambda: len(service.pushes) == 3, 60, "the retries")
        _quiet(container, workers_redis)
        assert len(service.pushes) == 3
        assert [browsers[waiting.id].decrypt(p.body)["event"] for p in service.pushes] == [
            "your_turn"
        ] * 3
        assert len(api.ok("GET", "/me/push", waiting)["subscriptions"]) == 1  # kept
        # OMERTA_WEBHOOK_BACKOFF: the second retry 3 s after the second failure (RQ's
        # scheduler counts whole seconds: at least 2 s).
        assert service.pushes[2].at - service.pushes[1].at >= 2.0


def test_a_push_preference_turned_off_pushes_nothing(
    container: Container,
    api: Api,
    read_models: ReadModels,
    workers_redis: redis.Redis,
    worker: object,
) -> None:
    table = _table(api, read_models)
    _quiet(container, workers_redis)
    with push_service() as service:
        _both(api, table, service)
        for who in table.players.values():
            api.ok("PUT", "/me/notifications", who, json={"push": {"your_turn": False}})
        _move(container, api, read_models, table)
        _quiet(container, workers_redis)
        assert service.pushes == []
        for who in table.players.values():
            api.ok("PUT", "/me/notifications", who, json={"push": {"your_turn": True}})
        _move(container, api, read_models, table)
        wait(lambda: len(service.pushes) == 1, 30, "the push")


def test_the_catch_up_sends_a_push_whose_worker_died_once_its_claim_is_gone(
    container: Container, api: Api, workers_redis: redis.Redis, drain: Callable[[], None]
) -> None:
    bob = api.player("Bob")
    with push_service() as service:
        browser = _subscribe(api, bob, service)
        sub_id = push.subscription_id(service.endpoint(bob.id))
        notice = nt.Notice(bob.id, "your_turn", "g-lost", "gangsta", 7, 1)
        member = msgspec.json.encode((bob.id, sub_id, notice))
        pushes = notify_push.Push(workers_redis, container.queues, container.settings)
        # A worker took the job, claimed the sending and died: the job is lost to RQ for now,
        # the claim and the pending entry (already due) are left.
        delivery = nt.delivery_id(notice, "push", sub_id)
        token = nt.claim(workers_redis, delivery, 60)
        assert token is not None
        workers_redis.zadd(pushes.pending.key(bob.id), {member: 0})
        assert channel.catch_up([pushes]) == 0  # held: the claim decides
        nt.release(workers_redis, delivery, token)  # its lease is over
        assert channel.catch_up([pushes]) == 1
        drain()
        (sent,) = service.pushes
        assert browser.decrypt(sent.body)["game_id"] == "g-lost"
        assert nt.was_sent(workers_redis, delivery)
        assert workers_redis.zcard(pushes.pending.key(bob.id)) == 0
        assert channel.catch_up([pushes]) == 0
