"""A store that holds every key family the service writes, for the backup tests: players with a
second device, a passkey, an email address, preferences, a webhook, a push subscription and a
vacation; games of both kinds played to their end against the AI by real RQ work, a rematch, a
chat, a game left running with an AI seat, creations with Idempotency-Keys. Played once, its
store is kept (``dump``) and put back for each test that starts from it (``restore``). And a
reader of a store's keys by family, for comparing stores key by key."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
import redis

from api.app import create_app
from bootstrap import Container
from services.backup.families import Fate, family_of
from tests.api.helpers import Api, Who
from tests.api.test_push_api import browser_keys
from tests.authenticator import Authenticator
from tests.burst import BurstWorker
from workers import queues as wq

ORIGIN = "http://localhost:8000"  # as tests/api/test_passkeys.py: the tests' relying party
PHONE = {"User-Agent": "Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 Chrome/131.0 Safari"}


@dataclass(frozen=True)
class Scenario:
    ann: Who
    bob: Who
    running: str  # Ann (seat 0) against the AI (seat 1), under way
    finished: list[str]


def settings(monkeypatch: pytest.MonkeyPatch, var: str) -> None:
    """What the scenario needs of the settings: targets on loopback (they fail at once)."""
    monkeypatch.setenv("OMERTA_VAR", var)
    monkeypatch.setenv("OMERTA_WEBHOOKS_ALLOW_PRIVATE", "1")
    monkeypatch.setenv("OMERTA_PUSH_ALLOW_PRIVATE", "1")


def drainer(container: Container) -> Callable[[], None]:
    """Run every queued job of the service in this process until the queues are empty: a real
    RQ worker (``tests.burst.BurstWorker``: no fork, no start-up catch-up pass, so a call costs
    milliseconds) with the service's job class."""
    context = dataclasses.replace(container.context, serves_projections=True)
    queues = [context.queues.queue(name) for name in wq.QUEUES]

    def drain() -> None:
        worker = BurstWorker(queues, connection=context.queues.client, job_class=wq.bound(context))
        worker.work(burst=True, logging_level="ERROR")

    return drain


def key(name: str) -> dict[str, str]:
    return {"Idempotency-Key": f"backup-scenario-{name}-0123456789"}


def play(container: Container, drain: Callable[[], None]) -> Scenario:
    with create_app(container).test_client(use_cookies=False) as client:
        return _play(Api(client), drain)


def _play(api: Api, drain: Callable[[], None]) -> Scenario:
    made = api.ok("POST", "/players", json={"name": "Ann"}, headers=key("ann"))
    ann = Who(made["id"], made["name"], made["token"])
    bob = api.player("Bob")
    # Ann's second device (a sign-in link), a passkey, an address, preferences, targets.
    link = api.ok("POST", "/me/signin", ann)["link"].split("#", 1)[1]
    assert api.call("POST", "/signin", json={"link": link}, headers=PHONE).status_code == 200
    api.ok("POST", "/me/signin", ann)  # a live link and code
    options = api.ok("POST", "/me/passkeys/options", ann)
    answer = {"credential": Authenticator().create(options, ORIGIN)}
    assert api.call("POST", "/me/passkeys", ann, json=answer).status_code == 201
    assert (
        api.call("POST", "/me/email", ann, json={"address": "ann@example.net"}).status_code == 202
    )
    api.ok("PUT", "/me/notifications", ann, json={"webhook": {"game_ended": False}})
    hook = {"url": "http://127.0.0.1:9/hook"}
    api.ok("POST", "/me/webhooks", ann, json=hook, headers=key("hook"))
    push = {"endpoint": "http://127.0.0.1:9/push", "expirationTime": None, "keys": browser_keys()}
    api.ok("POST", "/me/push", ann, json=push)

    rng = random.Random(25)
    famiglia = api.new_game(ann, game="famiglia", seats=2, ai={"1": "greedy"})["game_id"]
    _to_the_end(api, ann, famiglia, rng, drain)
    gangsta = api.new_game(ann, game="gangsta", seats=3, ai={"1": "greedy", "2": "random"})[
        "game_id"
    ]
    # A few moves, then Ann concedes: a whole Gangsta! game of hers is a hundred drains,
    # minutes on a loaded machine, and adds no key family.
    for _ in range(6):
        _move_if_owed(api, ann, gangsta, rng)
        drain()
    api.play(ann, gangsta, {"type": "concede"})  # a bot plays her seat on to the end
    while api.ok("GET", f"/games/{gangsta}", ann)["result"] is None:
        drain()
    api.ok("POST", f"/games/{famiglia}/chat", ann, json={"text": "gg"}, headers=key("chat"))
    rematch = api.ok("POST", f"/games/{famiglia}/rematch", ann)["game_id"]
    # A game between people, joined with a key; and one against the AI left under way.
    clock = {"type": "per_move", "seconds": 24 * 3600}
    spec = {"game": "famiglia", "seats": 2, "public": True, "clock": clock}
    table = api.ok("POST", "/games", ann, json=spec, headers=key("game"))["game_id"]
    api.ok("POST", f"/games/{table}/join", bob, json={}, headers=key("join"))
    drain()
    api.ok("POST", "/me/vacation", bob, json={"days": 2})  # moves the clock of Bob's game
    running = api.new_game(ann, game="famiglia", seats=2, ai={"1": "random"})["game_id"]
    for _ in range(3):
        _move_if_owed(api, ann, running, rng)
        drain()
    api.ok("GET", f"/games/{running}", ann)
    assert rematch
    return Scenario(ann, bob, running, [famiglia, gangsta])


def _move_if_owed(api: Api, who: Who, game_id: str, rng: random.Random) -> None:
    """A random move of seat 0's when it owes one (the AI seats move in the drained jobs)."""
    if 0 in api.ok("GET", f"/games/{game_id}", who)["to_act"]:
        api.random_move(who, game_id, rng)


def _to_the_end(
    api: Api, who: Who, game_id: str, rng: random.Random, drain: Callable[[], None]
) -> None:
    while api.ok("GET", f"/games/{game_id}", who)["result"] is None:
        _move_if_owed(api, who, game_id, rng)
        drain()


# Each key of a store: its time to live (ms, 0 for none) and its DUMP.
Dumped = dict[bytes, tuple[int, bytes]]


def dump(client: redis.Redis) -> Dumped:
    """Every key of the store as ``restore`` puts it back (one that expires meanwhile is left)."""
    out: Dumped = {}
    for name in client.scan_iter(count=1000):
        ttl, value = client.pttl(name), client.dump(name)
        if value is not None and ttl != -2:
            out[name] = (max(ttl, 0), value)
    return out


def restore(client: redis.Redis, dumped: Dumped) -> None:
    """The keys of ``dump`` into the store, each with the time it had left then."""
    pipe = client.pipeline(transaction=False)
    for name, (ttl, value) in dumped.items():
        pipe.restore(name, ttl, value, replace=True)
    pipe.execute()


def contents(client: redis.Redis, fate: Fate) -> dict[bytes, Any]:
    """Every key of the families of ``fate`` in the store: its type and contents (in a form
    equal for equal contents), and whether it expires."""
    out: dict[bytes, Any] = {}
    for name in client.scan_iter(count=1000):
        family = family_of(name)
        if family is None or family.fate is not fate:
            continue
        kind = client.type(name)
        value: Any
        if kind == b"string":
            value = client.get(name)
        elif kind == b"hash":
            value = sorted(client.hgetall(name).items())
        elif kind == b"set":
            value = sorted(client.smembers(name))
        elif kind == b"zset":
            value = client.zrange(name, 0, -1, withscores=True)
        elif kind == b"list":
            value = client.lrange(name, 0, -1)
        else:
            value = client.xrange(name)
        out[name] = (kind, value, client.pttl(name) > 0)
    return out
