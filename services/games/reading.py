"""The command service's reading of games: a game's rules, metadata, state and version, its
events as stored (for the server side), and its history as a seat or a spectator may see it
(redacted while the game runs, other seats' command ids hidden), from the ``GameRepository``
it is given."""

from __future__ import annotations

from typing import Any, NamedTuple

import msgspec

from domain.core import Game
from services.eventstore.records import EventRecord, GameMeta
from services.games.commandinput import check_seat
from services.games.repository import GameRepository


class Loaded(NamedTuple):
    game: Game
    state: Any
    version: int
    meta: GameMeta


class Reading:
    def __init__(self, repository: GameRepository) -> None:
        self.repository = repository

    def rules(self, game_id: str) -> Game:
        """The rules the game is played by (no read when this process knows the game)."""
        return self.repository.games[self.repository.meta(game_id).game]

    def meta(self, game_id: str) -> GameMeta:
        """The game's metadata record (no read when this process knows the game)."""
        return self.repository.meta(game_id)

    def load(self, game_id: str) -> Loaded:
        """The game's rules, its current state and version, and its metadata."""
        game, _ = self.repository.get(game_id)
        return Loaded(self.repository.games[game.meta.game], game.state, game.version, game.meta)

    def events(self, game_id: str, after: int = 0) -> list[EventRecord]:
        """Every event after version ``after``, NOT redacted: for the server side only
        (audit, operators' CLI, workers); clients get ``history``."""
        return self.repository.records(game_id, after)

    def history(self, game_id: str, seat: int | None, after: int = 0) -> list[EventRecord]:
        """The events after version ``after`` as ``seat`` (None: a spectator) may see them:
        redacted by the rules while the game runs, everything (the seed too) once it is over.

        A seat sees its own command ids only: another seat's command (a spectator: every
        command) shows ``#<version>``, the version of its first event in the answer, so that the
        events of one command still share an id and the commands stay told apart.

        While the game runs, an event the redaction changed also loses its chain hash (``hash``
        of that record and ``prev`` of the next are ``""``): the hash covers the hidden data,
        and hidden data with few possible values could be found by hashing each candidate."""
        game, state, _, meta = self.load(game_id)
        if seat is not None:
            check_seat(seat, meta.seats)
        records = _others_ids_hidden(self.events(game_id, after), seat)
        if game.result(state) is not None:
            return records
        shown = []
        hidden_before = False
        for record in records:
            event = game.redact(record.event, seat)
            hidden = event != record.event
            shown.append(
                msgspec.structs.replace(
                    record,
                    event=event,
                    hash="" if hidden else record.hash,
                    prev="" if hidden_before else record.prev,
                )
            )
            hidden_before = hidden
        return shown


def _others_ids_hidden(records: list[EventRecord], seat: int | None) -> list[EventRecord]:
    """``records`` with every command id not ``seat``'s replaced (see ``history``). The chain
    hashes stay: an id is the client's, not the game's, and scoped by seat it lets nobody take
    another seat's; the pages' ids are random."""
    shown = []
    placeholder, before = "", None
    for record in records:
        if record.actor is None or record.actor == seat:
            shown.append(record)
            before = None
            continue
        if (record.actor, record.command_id) != before:  # a command's events are adjacent
            placeholder, before = f"#{record.version}", (record.actor, record.command_id)
        shown.append(msgspec.structs.replace(record, command_id=placeholder))
    return shown
