"""The command service's parts know no store, only the ``GameRepository`` they are given: here
the handling part runs on an in-memory repository (no server, no Lua), which also shows what a
repository must do for it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from domain import GAMES
from domain.core import Game, replay
from services.errors import Conflict
from services.eventstore.records import CommandRecord, EventRecord, GameMeta
from services.eventstore.store import Appended
from services.games.creation import Creation
from services.games.handling import Accepted, Handling
from services.games.repository import CommandKey, GameRepository, GameState, Stored
from services.platform.metrics import Metrics


class InMemoryGames:
    """Each game's events and its command ids' records in dicts; an append onto a version that
    is not the newest is a conflict, a known command id a duplicate (as the store answers)."""

    def __init__(self, games: Mapping[str, Game] = GAMES) -> None:
        self.games = games
        self.streams: dict[str, list[Any]] = {}
        self.newest: dict[str, GameState] = {}
        self.commands: dict[tuple[str, int | None, str], CommandRecord] = {}
        self.notified: list[tuple[str, int]] = []

    def clock(self) -> int:
        return 0

    def meta(self, game_id: str) -> GameMeta:
        return self.newest[game_id].meta

    def cached(self, game_id: str) -> GameState | None:
        return self.newest.get(game_id)

    def get(
        self, game_id: str, command: CommandKey | None = None
    ) -> tuple[GameState, CommandRecord | None]:
        record = None if command is None else self.commands.get((game_id, *command))
        return self.newest[game_id], record

    def records(self, game_id: str, after: int = 0) -> list[EventRecord]:
        raise NotImplementedError  # reading's, not handling's

    def append(
        self,
        game_id: str,
        at: GameState,
        seat: int | None,
        events: list[Any],
        command_id: str,
        digest: bytes = b"",
    ) -> Stored:
        record = self.commands.get((game_id, seat, command_id))
        if record is not None:
            return Stored(Appended("duplicate", record.last, record=record), None, forked=False)
        stream = self.streams.setdefault(game_id, [])
        if len(stream) != at.version:
            return Stored(Appended("conflict", len(stream)), None, forked=False)
        stream.extend(events)
        state = replay(self.games[at.meta.game], events, at.state)
        game = self.newest[game_id] = GameState(at.meta, len(stream), state, b"")
        record = CommandRecord(at.version + 1, len(stream), digest)
        self.commands[game_id, seat, command_id] = record
        return Stored(Appended("ok", len(stream)), game, forked=False)

    def notify(self, game_id: str, version: int) -> None:
        self.notified.append((game_id, version))

    def archived(self, game_id: str) -> bool:
        return False


def test_handling_decides_on_the_repositorys_state_and_appends_once() -> None:
    games = InMemoryGames()
    repository: GameRepository = games  # what the parts are given (a type error if it were not)
    game_id = Creation(repository).create_game("famiglia", 2)
    handling = Handling(repository, Metrics())
    start = games.newest[game_id]
    rules = games.games["famiglia"]
    seat = min(rules.to_act(start.state))
    command = rules.legal(start.state, seat)[0]

    accepted = handling.handle(game_id, seat, command, "c-1")

    assert (accepted.first, accepted.version) == (start.version + 1, len(games.streams[game_id]))
    assert accepted.state == replay(rules, games.streams[game_id])
    again = handling.handle(game_id, seat, command, "c-1")
    assert again == Accepted(game_id, "c-1", accepted.version, accepted.first, duplicate=True)
    assert games.notified == [(game_id, accepted.version)]  # the follow-ups run again
    with pytest.raises(Conflict):
        handling.handle(game_id, seat, command, "c-2", expected_version=start.version)
