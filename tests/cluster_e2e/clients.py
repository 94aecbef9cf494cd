"""HTTP clients of the service's web processes: each request to the next process in turn, so a
game is played through all of them; the read models' progress, read on the cluster."""

from __future__ import annotations

import http.client
import json
import random
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from services.eventstore.store import EventStore
from services.readside.readmodels import ReadModels
from tests.api.omerta_run import call
from tests.faults.load import Player

STATUSES = {0, 200, 201, 409, 422, 503}  # what a load may see: never a 5xx but the store's 503


class Web:
    """Requests to ``bases`` in turn; ``statuses`` counts what came back."""

    def __init__(self, bases: list[str]) -> None:
        self.bases = bases
        self.turn = 0
        self.statuses: Counter[int] = Counter()

    def call(
        self, method: str, path: str, body: Any = None, token: str = "", **headers: str
    ) -> tuple[int, Any]:
        base = self.bases[self.turn % len(self.bases)]
        self.turn += 1
        if token:
            headers["Authorization"] = f"Bearer {token}"
        status, answer = call(base, method, path, body, **headers)
        self.statuses[status] += 1
        return status, answer

    def ok(self, method: str, path: str, body: Any = None, token: str = "", **headers: str) -> Any:
        status, answer = self.call(method, path, body, token, **headers)
        assert status in (200, 201), (method, path, status, answer)
        return answer

    def status(self, method: str, path: str, body: Any = None, token: str = "") -> tuple[int, Any]:
        """(status, the problem's ``code``) of any route: a page's, a live stream's too (the
        answer's head only)."""
        host, port = self.bases[self.turn % len(self.bases)].removeprefix("http://").split(":")
        self.turn += 1
        conn = http.client.HTTPConnection(host, int(port), timeout=30)
        headers = {"Content-Type": "application/json", "Connection": "close"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        try:
            conn.request(method, path, json.dumps(body) if body is not None else None, headers)
            response = conn.getresponse()
            self.statuses[response.status] += 1
            if response.getheader("Content-Type", "").startswith("application/problem+json"):
                return response.status, json.loads(response.read())["code"]
            return response.status, None
        finally:
            conn.close()

    def player(self, name: str) -> dict[str, Any]:
        return self.ok("POST", "/players", {"name": name})

    def random_move(self, token: str, game_id: str, rng: random.Random, key: str) -> Any:
        """One of the caller's legal commands (a pass only when nothing else is legal, so a
        Famiglia game does not end at once in a double pass)."""
        legal = self.ok("GET", f"/games/{game_id}/legal", token=token)
        moves = [c for c in legal["commands"] if c["type"] != "pass"] or legal["commands"]
        body = {"command": rng.choice(moves), "expected_version": legal["version"]}
        path = f"/games/{game_id}/commands"
        return self.ok("POST", path, body, token=token, **{"Idempotency-Key": key})


class Aborted(Exception):
    """A test failed: its players stop at once rather than play on into the next test."""


class Alternating(Player):
    """``tests.faults.load.Player`` (seat 0 of games against the AI, retrying with the same
    Idempotency-Key what got no answer or a 503) sending each request to the next web
    process."""

    def __init__(self, bases: list[str], name: str, spec: dict[str, Any]) -> None:
        self.bases = bases
        self.turn = 0
        self.abort = threading.Event()
        super().__init__(bases[0], name, spec)

    def send(self, method: str, path: str, body: Any = None, key: str | None = None) -> Any:
        if self.abort.is_set():
            raise Aborted
        self.turn += 1
        self.base = self.bases[self.turn % len(self.bases)]
        return super().send(method, path, body, key)


STALL = 180.0  # seconds without a move acknowledged to any player: the service is stuck


@contextmanager
def playing(players: list[Alternating], stall: float = STALL) -> Iterator[list[Alternating]]:
    """The players playing; at the end of the block each finishes the game it plays (asserted:
    a loaded machine is slow, so this fails only when no player got a move acknowledged for
    ``stall`` seconds). Whatever fails, in the block or in that wait, the players stop at once
    rather than play on into the next test."""
    for player in players:
        player.start()
    try:
        yield players
        for player in players:
            player.stop.set()
        moves, progress = -1, time.monotonic()
        while alive := [p.name for p in players if p.is_alive()]:
            if (made := sum(p.moves for p in players)) > moves:
                moves, progress = made, time.monotonic()
            assert time.monotonic() - progress < stall, f"the games of {alive} never ended"
            time.sleep(0.1)
    finally:
        for player in players:
            player.abort.set()
        for player in players:
            player.join(30)


def lagging(store: EventStore, game_ids: list[str]) -> dict[str, tuple[int, int]]:
    """The games whose read model is behind their stream: (read model's version, stream's)."""
    read_models = ReadModels(store.redis)
    behind = {}
    for game_id in game_ids:
        projected, version = read_models.version(game_id), store.version(game_id)
        if projected != version:
            behind[game_id] = (projected, version)
    return behind


def eventually(check: Callable[[], Any], what: str, timeout: float = 60.0) -> Any:
    """``check()``'s first true answer within ``timeout`` seconds (the read models follow the
    events through the workers)."""
    deadline = time.monotonic() + timeout
    while not (found := check()):
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)
    return found
