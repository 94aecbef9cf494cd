"""HTTP load that plays through every fault: players on seat 0 of games against the AI, one
game after another, retrying whatever got no answer or a 503 with the same Idempotency-Key;
waiting for the games to move on after a fault; checking what was acknowledged."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.api.omerta_run import call, children, http, wait_until

Say = Callable[[str], None]
STALLS = 5  # a player may wait this many stall deadlines while the others move (games_go_on)


@dataclass
class Game:
    game_id: str
    acked: dict[str, int] = field(default_factory=dict)  # Idempotency-Key: version answered
    result: Any = None


class Player(threading.Thread):
    """Plays seat 0 of a new game of ``spec`` (the body of ``POST /games``) to its end, then
    another, until ``stop`` is set: then it ends the game it plays. ``statuses`` counts every
    status its requests got (0: no answer)."""

    def __init__(self, base: str, name: str, spec: dict[str, Any]) -> None:
        super().__init__(daemon=True)
        self.base, self.name, self.spec = base, name, spec
        self.token = http(base, "POST", "/players", {"name": name})["token"]
        self.auth = {"Authorization": f"Bearer {self.token}"}
        self.games: list[Game] = []
        self.statuses: Counter[int] = Counter()
        self.stop = threading.Event()

    @property
    def moves(self) -> int:
        return sum(len(g.acked) for g in self.games)

    def send(self, method: str, path: str, body: Any = None, key: str | None = None) -> Any:
        """The answer's body once a 2xx came, None for a 409 or 422; retried otherwise."""
        headers = {**self.auth, **({"Idempotency-Key": key} if key else {})}
        while True:
            try:
                status, answer = call(self.base, method, path, body, **headers)
            except OSError:
                status, answer = 0, None
            self.statuses[status] += 1
            if 200 <= status < 300:
                return answer
            if status in (409, 422) and method == "POST":
                return None
            time.sleep(0.1)

    def run(self) -> None:
        while not self.stop.is_set():
            created = self.send("POST", "/games", self.spec, key=f"game-{len(self.games)}")
            game = Game(created["game_id"])
            self.games.append(game)
            self.play(game)

    def play(self, game: Game) -> None:
        path = f"/games/{game.game_id}"
        while (table := self.send("GET", path))["result"] is None:
            if 0 not in table["to_act"]:
                time.sleep(0.05)
                continue
            legal = self.send("GET", f"{path}/legal")
            key = f"{self.name}-{len(game.acked)}"
            sent = {"command": legal["commands"][0], "expected_version": legal["version"]}
            accepted = self.send("POST", f"{path}/commands", sent, key=key)
            if accepted is not None:  # else the AI moved first (or the game moved on)
                game.acked[key] = accepted["version"]
        game.result = table["result"]


def statuses(players: list[Player]) -> Counter[int]:
    return sum((p.statuses for p in players), Counter())


def games_go_on(players: list[Player], what: str, stall: float = 60) -> float:
    """Seconds until every player got a move acknowledged after now. A loaded machine is slow,
    a service that did not heal makes no moves: this fails when no player got one for
    ``stall`` seconds, or when some player got none for ``STALLS`` times that."""
    began = time.monotonic()
    moves = [p.moves for p in players]
    seen, progress = sum(moves), began
    while not all(p.moves > n for p, n in zip(players, moves, strict=True)):
        now = time.monotonic()
        if (total := sum(p.moves for p in players)) > seen:
            seen, progress = total, now
        waiting = [p.name for p, n in zip(players, moves, strict=True) if p.moves <= n]
        assert now - progress < stall, f"timed out waiting for moves after {what}: {waiting}"
        assert now - began < STALLS * stall, f"{waiting} never moved after {what}"
        time.sleep(0.1)
    return time.monotonic() - began


def kill_and_heal(cwd: Path, base: str, name: str, players: list[Player], say: Say) -> None:
    """SIGKILL the child ``name``; the supervisor restarts it, the service answers again and
    the games go on."""
    before = children(cwd)[name]
    os.kill(before, signal.SIGKILL)
    back = wait_until(lambda: children(cwd).get(name, before) != before, 30, f"{name} restarted")
    ready = wait_until(lambda: call(base, "GET", "/readyz")[0] == 200, 30, f"answers ({name})")
    moved = games_go_on(players, f"the {name} was killed")
    say(f"{name} killed: restarted after {back:.1f} s, the service answered {ready:.1f} s "
        f"later, the games moved on {moved:.1f} s after that")  # fmt: skip


def acknowledged_once(game: Game, history: dict[str, Any]) -> None:
    """Each command acknowledged in the game is in its stream once: its events are one run of
    consecutive versions ending at the version it was acknowledged at."""
    for key, version in game.acked.items():
        versions = [e["version"] for e in history["events"] if e["command_id"] == key]
        assert versions == list(range(versions[0], version + 1)), (key, versions, version)
