"""The command service's creation of games: a new game from its settings, checked, or a copy
of an earlier game's settings (a rematch); its secret, creation events and metadata stored
atomically under a fresh id (through the ``GameRepository`` it is given)."""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from typing import Any

import msgspec

from domain import bots
from domain.core import RuleViolation, Secret
from services.errors import BadRequest
from services.eventstore import shards
from services.eventstore.records import GameMeta
from services.games import clocks
from services.games.commandinput import is_int, parse_ai
from services.games.repository import GameRepository, GameState

CREATION_COMMAND_ID = ""


class Creation:
    def __init__(
        self, repository: GameRepository, min_clock_seconds: int = clocks.MIN_CLOCK
    ) -> None:
        self.min_clock_seconds = min_clock_seconds
        self.repository = repository

    def create_game(
        self,
        game: str,
        seats: int,
        options: dict[str, Any] | None = None,
        ai: Mapping[Any, Any] | None = None,
        clock: Mapping[str, Any] | None = None,
        on_timeout: Mapping[str, Any] | None = None,
        game_id: str | None = None,
    ) -> str:
        """Start a new game and return its id (22 url-safe characters, 128 random bits).
        ``game_id``, a keyed creation's id (``idempotency.game_id``), replaces the random one:
        a game already stored under it is this creation's, made by an earlier try.

        ``ai`` maps AI seats to their level (``{1: 3}``); ``clock`` and ``on_timeout`` are the
        time control and the time-out policy as plain data (``services.games.clocks``). The game's
        secret (seed and salt) comes from ``secrets.token_bytes``; its creation events and
        metadata are stored atomically."""
        games = self.repository.games
        if game not in games:
            raise BadRequest(
                f"there is no game {game!r} (games: {', '.join(sorted(games))})",
                code="unknown_game_name",
                params={"game": str(game), "games": sorted(games)},
            )
        rules = games[game]
        if not is_int(seats) or not rules.min_seats <= seats <= rules.max_seats:
            raise BadRequest(
                f"{game} is for {rules.min_seats} to {rules.max_seats} players, not {seats!r}",
                code="bad_seats",
                params={"seats": str(seats), "min": rules.min_seats, "max": rules.max_seats},
                game=game,
            )
        try:
            validated = rules.options(options)
        except RuleViolation as exc:
            raise BadRequest(exc.message, code=exc.code, params=exc.params, game=game) from None
        ai_seats = parse_ai(ai, seats, game)
        time_control = clocks.parse_clock(clock, self.min_clock_seconds)
        policy = clocks.parse_on_timeout(on_timeout, bots.LEVELS)
        meta = GameMeta(
            game=game,
            seats=seats,
            options=msgspec.to_builtins(validated),
            ai=ai_seats,
            created=self.repository.clock(),
            clock=time_control,
            on_timeout=policy,
            takeover=policy.level,
        )
        return self._start(meta, validated, game_id)

    def create_like(self, earlier: GameMeta) -> str:
        """A new game with every creation setting of ``earlier`` (a rematch): everything a
        creation takes is kept in its metadata, so the copy is of the whole record but the
        creation time, and a setting added to ``GameMeta`` later comes along by itself."""
        validated = self.repository.games[earlier.game].options(earlier.options)
        created = self.repository.clock()
        return self._start(msgspec.structs.replace(earlier, created=created), validated)

    def _start(self, meta: GameMeta, validated: Any, game_id: str | None = None) -> str:
        """Store a new game's creation events (from a fresh secret) and its metadata, under
        ``game_id`` if given (an earlier try's game there is kept and its id returned)."""
        rules = self.repository.games[meta.game]
        secret = Secret(seed=secrets.token_bytes(32), salt=secrets.token_bytes(16))
        events = rules.start(meta.seats, secret, validated)
        given = game_id is not None
        game_id = game_id or shards.new_id(16)  # in its shard's slot: one script appends to both
        stored = self.repository.append(
            game_id, GameState.new(meta), None, events, CREATION_COMMAND_ID
        )
        if given and stored.answer.status == "duplicate":  # stored by an earlier try
            return game_id
        if stored.game is None:  # 120 random bits never collide; a store that says so lies
            raise RuntimeError(f"creating game {game_id} failed: {stored.answer.status}")
        return game_id
