"""A small HTTP client for the API tests: players with tokens, JSON calls, random legal play."""

from __future__ import annotations

import dataclasses
import itertools
import os
import random
from dataclasses import dataclass
from typing import Any

import msgspec
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from bootstrap import Container, bootstrap, tables
from services.games.commands import CommandService
from services.games.rematch import Rematches
from services.platform import config


def container_of(service: CommandService, **settings: Any) -> Container:
    """The objects of a test's app around its own command service (and that service's hooks),
    on its store; RQ's queues on the same client, the projector without listeners. ``settings``:
    the test's, over the suite's (``config.Settings`` fields: ``rate_limits=...``)."""
    store = service.store.redis
    found = msgspec.structs.replace(config.settings(os.environ), **settings)
    made = bootstrap(found, store=store, queues_client=store, hooks=service.hooks, listeners=())
    rematches = Rematches(service, made.players)
    return dataclasses.replace(
        made,
        commands=service,
        rematches=rematches,
        tables=tables(found, store, made.secret, service, made.players, rematches, made.chat),
    )


@dataclass(frozen=True)
class Who:
    id: str
    name: str
    token: str

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


class Api:
    """Every response of every call is kept in ``seen`` (the security test scans them all)."""

    def __init__(self, client: FlaskClient) -> None:
        self.client = client
        self.seen: list[tuple[str, str, TestResponse]] = []
        self._ids = itertools.count()

    def call(
        self,
        method: str,
        path: str,
        who: Who | None = None,
        json: Any = None,
        data: bytes | None = None,
        headers: dict[str, str] | None = None,
    ) -> TestResponse:
        sent = {**(who.auth if who else {}), **(headers or {})}
        if data is not None and not any(k.lower() == "content-type" for k in sent):
            sent["Content-Type"] = "application/json"  # raw bytes are a JSON API's body too
        response = self.client.open(path, method=method, json=json, data=data, headers=sent)
        response.get_data()  # read a stream to its end now
        self.seen.append((method, path, response))
        return response

    def ok(self, method: str, path: str, who: Who | None = None, **kwargs: Any) -> Any:
        response = self.call(method, path, who, **kwargs)
        assert response.status_code in (200, 201), (path, response.status_code, response.json)
        return response.json

    def player(self, name: str) -> Who:
        body = self.ok("POST", "/players", json={"name": name})
        return Who(body["id"], body["name"], body["token"])

    def new_game(self, who: Who, **spec: Any) -> dict[str, Any]:
        return self.ok("POST", "/games", who, json=spec)

    def join(self, who: Who, game_id: str, invite: str | None) -> int:
        return self.ok("POST", f"/games/{game_id}/join", who, json={"invite": invite})["seat"]

    def play(self, who: Who, game_id: str, command: Any, version: int | None = None) -> Any:
        body = {"command": command, "expected_version": version}
        key = {"Idempotency-Key": f"{who.id}-{next(self._ids)}"}
        return self.ok("POST", f"/games/{game_id}/commands", who, json=body, headers=key)

    def random_move(self, who: Who, game_id: str, rng: random.Random) -> Any:
        """One of the caller's legal commands (a pass only when nothing else is legal, so a
        Famiglia game does not end at once in a double pass)."""
        legal = self.ok("GET", f"/games/{game_id}/legal", who)
        moves = [c for c in legal["commands"] if c["type"] != "pass"] or legal["commands"]
        assert moves, f"seat {legal['seat']} is to act but has no legal command"
        return self.play(who, game_id, rng.choice(moves), legal["version"])
