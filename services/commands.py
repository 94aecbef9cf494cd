"""The command service: create games, handle players' commands, read games back.

Module-level functions use one process-wide service on ``services.config.connect()``::

    game_id = create_game("famiglia", seats=2, options={}, ai={1: 2})
    accepted = handle(game_id, seat=0, command={"type": "..."}, command_id="c-123")
    game, state, version, meta = load(game_id)
    records = history(game_id, seat=0)

``handle`` loads the game's state, calls the rules' ``decide``, and appends the events only if
the stream is still at the version it decided on. When another command got in first it decides
again on the new state, up to ``max_attempts`` times, then raises ``Conflict``; with
``expected_version`` given there is no retry: a stale version raises ``Conflict`` at once.
The ``command_id`` (chosen by the client, unique per seat of a game) makes a retry safe: a
command id the seat already appended appends nothing and returns the first result
(``duplicate=True``); the same id with another command is refused (``command_id_reused``).
Ids are scoped by seat (the store keeps one hash of records per seat, ``services.keys``), so one
seat's ids never block another seat: nobody can take the id another seat (an AI seat) will use.
AI seats' ids are ``ai_command_id(version, seat)``, under ``AI_COMMAND_PREFIX``, which the API
refuses from clients.

Every refusal is a ``services.errors.ServiceError`` (``code``, ``status``, ``message``) and
changes nothing.

Snapshot cache: each process keeps, per game, the latest state it has seen (an LRU of
``cache_size`` games). Loading reads only the events newer than the cached version (usually none:
one round trip that also fetches the command id's record), so a long game never replays from the
start on every move. This is safe because states are immutable (the rules' ``evolve`` returns a
new state) and streams are append-only: a state at version v stays the state at version v.

``after_append``: callables ``(game_id, version, woke)`` run after every append (and again when
a retried command turns out to be a duplicate, so a lost follow-up is re-triggered). ``woke``
says that this change set the store's wake flag (``EventStore.mark_changed``): the read side must
be woken (the workers' hook enqueues a job then, and only then). They must be idempotent. An
exception in one is logged and does not fail the command, which is already stored; the feed
stream is the durable record of appends.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
import threading
import typing
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

import msgspec

from domain import GAMES, bots, table
from domain.core import Game, RuleViolation, Secret, replay
from services import clocks, shards
from services.codec import EventCodec
from services.config import connect, settings
from services.errors import (
    BadRequest,
    CommandIdReused,
    Conflict,
    RuleRejected,
    SeatTakenOver,
    Unavailable,
    UnknownGame,
    WrongSeat,
)
from services.records import CommandRecord, Entry, EventRecord, GameMeta, to_record
from services.seating import taken_over
from services.statecache import StateCache
from services.store import EventStore, NewEvent
from services.upcasting import UPCASTERS, Upcasters

log = logging.getLogger(__name__)

AfterAppend = Callable[[str, int, bool], None]

after_append: list[AfterAppend] = []
"""Hooks of the process-wide service (see the module docstring)."""

CREATION_COMMAND_ID = ""
MAX_COMMAND_ID = 128
AI_COMMAND_PREFIX = "ai-"
"""Command ids that start with this are the AI seats' (the API refuses them from clients)."""


def ai_command_id(version: int, seat: int) -> str:
    """The id of an AI seat's move at ``version``: copies of one AI job share it."""
    return f"{AI_COMMAND_PREFIX}{version}-{seat}"


class Loaded(NamedTuple):
    game: Game
    state: Any
    version: int
    meta: GameMeta


class Accepted(msgspec.Struct, frozen=True):
    """A handled command: its events are versions ``first .. version`` of the game (none when
    ``first > version``); ``duplicate`` means an earlier try of this command id stored them.
    ``state`` is the game's state at ``version`` (None for a duplicate: this try did not see
    it), so a caller can answer with what follows (the next legal commands) without a read."""

    game_id: str
    command_id: str
    version: int
    first: int
    duplicate: bool = False
    state: Any = None


class _Snapshot(NamedTuple):
    meta: GameMeta
    version: int
    state: Any
    head: bytes  # the stored bytes of the entry at ``version`` (b"" at 0)


class CommandService:
    def __init__(
        self,
        store: EventStore,
        games: Mapping[str, Game] = GAMES,
        hooks: list[AfterAppend] | None = None,
        max_attempts: int = 10,
        cache_size: int = 4096,
        upcasters: Upcasters = UPCASTERS,
    ) -> None:
        self.store = store
        self.games = games
        self.hooks = after_append if hooks is None else hooks
        self.max_attempts = max_attempts
        self.upcasters = upcasters
        self._codecs: dict[str, EventCodec] = {}
        self._cache: StateCache[_Snapshot] = StateCache(cache_size)

    # -- creating ---------------------------------------------------------------------------

    def create_game(
        self,
        game: str,
        seats: int,
        options: dict[str, Any] | None = None,
        ai: Mapping[Any, Any] | None = None,
        clock: Mapping[str, Any] | None = None,
        on_timeout: Mapping[str, Any] | None = None,
    ) -> str:
        """Start a new game and return its id (22 url-safe characters, 128 random bits).

        ``ai`` maps AI seats to their level (``{1: 3}``); ``clock`` and ``on_timeout`` are the
        time control and the time-out policy as plain data (``services.clocks``). The game's
        secret (seed and salt) comes from ``secrets.token_bytes``; its creation events and
        metadata are stored atomically."""
        if game not in self.games:
            raise BadRequest(
                f"there is no game {game!r} (games: {', '.join(sorted(self.games))})",
                code="unknown_game_name",
                params={"game": str(game), "games": sorted(self.games)},
            )
        rules = self.games[game]
        if not _is_int(seats) or not rules.min_seats <= seats <= rules.max_seats:
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
        ai_seats = _ai_seats(ai, seats, game)
        time_control = clocks.parse_clock(clock)
        policy = clocks.parse_on_timeout(on_timeout, bots.LEVELS)
        meta = GameMeta(
            game=game,
            seats=seats,
            options=msgspec.to_builtins(validated),
            ai=ai_seats,
            created=self.store.clock(),
            clock=time_control,
            on_timeout=policy,
            takeover=policy.level,
        )
        return self._start(meta, validated)

    def create_like(self, earlier: GameMeta) -> str:
        """A new game with every creation setting of ``earlier`` (a rematch): everything a
        creation takes is kept in its metadata, so the copy is of the whole record but the
        creation time, and a setting added to ``GameMeta`` later comes along by itself."""
        validated = self.games[earlier.game].options(earlier.options)
        return self._start(msgspec.structs.replace(earlier, created=self.store.clock()), validated)

    def _start(self, meta: GameMeta, validated: Any) -> str:
        """Store a new game's creation events (from a fresh secret) and its metadata."""
        game, rules = meta.game, self.games[meta.game]
        secret = Secret(seed=secrets.token_bytes(32), salt=secrets.token_bytes(16))
        events = rules.start(meta.seats, secret, validated)
        game_id = shards.new_id(16)  # in its shard's slot: one script appends to both
        appended = self.store.append(
            game_id, 0, b"", CREATION_COMMAND_ID, None, self._encode(game, events), meta=meta
        )
        if appended.status != "ok":  # 120 random bits never collide; a store that says so lies
            raise RuntimeError(f"creating game {game_id} failed: {appended.status}")
        state = replay(rules, events)
        self._cache.remember(
            game_id, _Snapshot(meta, appended.version, state, appended.entries[-1].raw)
        )
        self._after_append(game_id, appended.version, appended.woke)
        return game_id

    # -- commands ---------------------------------------------------------------------------

    def handle(
        self,
        game_id: str,
        seat: int,
        command: Any,
        command_id: str,
        expected_version: int | None = None,
    ) -> Accepted:
        """Decide ``command`` for ``seat`` and append its events (see the module docstring).

        ``command`` is one of the game's Command structs, or plain data (a dict, or JSON text)
        converted against the game's Command union."""
        if not isinstance(command_id, str) or not 0 < len(command_id) <= MAX_COMMAND_ID:
            raise BadRequest(
                f"a command id is a string of 1 to {MAX_COMMAND_ID} characters",
                code="bad_command_id",
                params={"max": MAX_COMMAND_ID},
            )
        if expected_version is not None and not (
            _is_int(expected_version) and expected_version >= 0
        ):
            raise BadRequest(
                f"an expected version is a version number, not {expected_version!r}",
                code="bad_expected_version",
                params={"expected": str(expected_version)},
            )
        meta = self._meta(game_id)
        rules = self.games[meta.game]
        if not _is_int(seat) or not 0 <= seat < meta.seats:
            raise WrongSeat(
                f"seat {seat!r} is not a seat of this game (0 to {meta.seats - 1})",
                params={"seat": str(seat), "last": meta.seats - 1},
            )
        command = _parse_command(rules, command)
        digest = hashlib.sha256(msgspec.msgpack.encode([seat, command])).digest()[:16]
        snap = self._warm(game_id, expected_version)
        if snap is not None and not _bot_plays(snap, seat, command_id):
            # One round trip: decide on the cached state and append at its version straight
            # away; the append itself checks the version and the command id. Refused by the
            # rules, or a no-op, or beaten by another append: decided again on a fresh read.
            try:
                events = rules.decide(snap.state, seat, command)
            except RuleViolation:
                events = []
            if events:
                accepted = self._append(
                    game_id, snap, seat, events, command_id, digest, expected_version
                )
                if accepted is not None:
                    return accepted
        for _attempt in range(self.max_attempts):
            snap, record = self._refresh(game_id, (seat, command_id))
            if record is not None:
                return self._duplicate(game_id, command_id, record, digest, snap.version)
            if expected_version is not None and snap.version != expected_version:
                raise _stale(expected_version, snap.version)
            if _bot_plays(snap, seat, command_id):
                raise SeatTakenOver(
                    f"seat {seat} is played by a bot now: only the bot moves for it",
                    params={"seat": seat},
                )
            try:
                events = rules.decide(snap.state, seat, command)
            except RuleViolation as exc:
                raise RuleRejected(
                    exc.message, code=exc.code, params=exc.params, game=meta.game
                ) from None
            if not events:
                return Accepted(
                    game_id, command_id, snap.version, snap.version + 1, state=snap.state
                )
            accepted = self._append(
                game_id, snap, seat, events, command_id, digest, expected_version
            )
            if accepted is not None:
                return accepted
        raise Conflict(
            f"the game kept changing; gave up after {self.max_attempts} attempts, try again",
            version=self._refresh(game_id)[0].version,
            case="busy",
        )

    def time_out(self, game_id: str, version: int, seat: int, forfeit: bool) -> Accepted:
        """Append ``seat``'s time-out (``domain.table.time_out``) at exactly ``version``:
        ``Conflict`` when the game is elsewhere (it moved on: the deadline is stale). The command
        id is ``ai-timeout-<version>-<seat>``, so copies of one deadline job append it once; no
        client can send it (the API refuses the ``ai-`` prefix)."""
        meta = self._meta(game_id)
        if not _is_int(seat) or not 0 <= seat < meta.seats:
            raise WrongSeat(
                f"seat {seat!r} is not a seat of this game (0 to {meta.seats - 1})",
                params={"seat": str(seat), "last": meta.seats - 1},
            )
        command_id = f"{AI_COMMAND_PREFIX}timeout-{version}-{seat}"
        digest = hashlib.sha256(msgspec.msgpack.encode([seat, "time_out", forfeit])).digest()[:16]
        snap, record = self._refresh(game_id, (seat, command_id))
        if record is not None:
            return self._duplicate(game_id, command_id, record, digest, snap.version)
        if snap.version != version:
            raise _stale(version, snap.version)
        try:
            events = table.time_out(snap.state, seat, forfeit)
        except RuleViolation as exc:
            raise RuleRejected(exc.message, code=exc.code, params=exc.params) from None
        if not events:
            return Accepted(game_id, command_id, snap.version, snap.version + 1, state=snap.state)
        accepted = self._append(game_id, snap, seat, events, command_id, digest, version)
        assert accepted is not None  # with an expected version a lost race raises Conflict
        return accepted

    def _append(
        self,
        game_id: str,
        snap: _Snapshot,
        seat: int,
        events: list[Any],
        command_id: str,
        digest: bytes,
        expected_version: int | None,
    ) -> Accepted | None:
        """Append a command's events at ``snap``'s version; None if another append got in
        first (the stream is past ``snap``), or ``Conflict`` then with ``expected_version``."""
        meta = snap.meta
        appended = self.store.append(
            game_id,
            snap.version,
            snap.head,
            command_id,
            seat,
            self._encode(meta.game, events),
            digest=digest,
        )
        if appended.status == "ok":
            state = replay(self.games[meta.game], events, snap.state)
            head = appended.entries[-1].raw
            self._cache.remember(game_id, _Snapshot(meta, appended.version, state, head))
            self._after_append(game_id, appended.version, appended.woke)
            return Accepted(game_id, command_id, appended.version, snap.version + 1, state=state)
        if appended.record is not None:  # an earlier try of this command id stored it
            return self._duplicate(game_id, command_id, appended.record, digest, appended.version)
        forked = appended.status == "forked" or appended.version < snap.version
        if forked:  # the store lost versions this process saw: what it holds is from then
            self._store_went_back(game_id, snap)
        if expected_version is not None:
            if forked and appended.version == expected_version:
                raise Conflict(
                    f"the game's version {expected_version} is no longer the one you saw"
                    " (the store was restored); reload and retry",
                    appended.version,
                    expected=str(expected_version),
                )
            raise _stale(expected_version, appended.version)
        return None

    def _warm(self, game_id: str, expected_version: int | None) -> _Snapshot | None:
        """The cached snapshot to decide on without reading first, if there is one and it is
        at ``expected_version`` (when given: otherwise a read tells stale from duplicate)."""
        snap = self._cache.get(game_id)
        if snap is None or (expected_version is not None and snap.version != expected_version):
            return None
        return snap

    def _duplicate(
        self, game_id: str, command_id: str, record: CommandRecord, digest: bytes, now: int
    ) -> Accepted:
        if record.digest != digest:
            raise CommandIdReused(
                f"command id {command_id!r} was already used for another command of this seat",
                params={"command_id": command_id},
            )
        self.notify(game_id, now)
        return Accepted(game_id, command_id, record.last, record.first, duplicate=True)

    # -- reading ----------------------------------------------------------------------------

    def rules(self, game_id: str) -> Game:
        """The rules the game is played by (no read when this process knows the game)."""
        return self.games[self._meta(game_id).game]

    def meta(self, game_id: str) -> GameMeta:
        """The game's metadata record (no read when this process knows the game)."""
        return self._meta(game_id)

    def load(self, game_id: str) -> Loaded:
        """The game's rules, its current state and version, and its metadata."""
        snap, _ = self._refresh(game_id)
        return Loaded(self.games[snap.meta.game], snap.state, snap.version, snap.meta)

    def events(self, game_id: str, after: int = 0) -> list[EventRecord]:
        """Every event after version ``after``, NOT redacted: for the server side only
        (audit, operators' CLI, workers); clients get ``history``."""
        meta = self._meta(game_id)
        codec = self._codec(meta.game)
        return [
            to_record(entry, codec.decode(entry.envelope))
            for entry in self.store.read(game_id, after)
        ]

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
        if seat is not None and (not _is_int(seat) or not 0 <= seat < meta.seats):
            raise WrongSeat(
                f"seat {seat!r} is not a seat of this game (0 to {meta.seats - 1})",
                params={"seat": str(seat), "last": meta.seats - 1},
            )
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

    # -- internals --------------------------------------------------------------------------

    def _codec(self, game: str) -> EventCodec:
        codec = self._codecs.get(game)
        if codec is None:
            codec = self._codecs[game] = EventCodec(self.games[game], self.upcasters)
        return codec

    def _encode(self, game: str, events: list[Any]) -> list[NewEvent]:
        codec = self._codec(game)
        return [NewEvent(*codec.encode(event)) for event in events]

    def _meta(self, game_id: str) -> GameMeta:
        cached = self._cache.get(game_id)
        if cached is not None:
            return cached.meta
        meta = self.store.meta(game_id) if isinstance(game_id, str) else None
        if meta is None:
            raise UnknownGame(str(game_id))
        return meta

    def _refresh(
        self, game_id: str, command: tuple[int, str] | None = None
    ) -> tuple[_Snapshot, CommandRecord | None]:
        """The cached snapshot brought up to date with the stored events (and, when asked,
        the idempotency record of ``command``, (seat, command id), in the same round trip)."""
        snap = self._cache.get(game_id)
        if snap is None:
            snap = _Snapshot(self._meta(game_id), 0, None, b"")
        # From the cached head itself: the stream must still hold it (see _store_went_back).
        entries, record = self._read(game_id, max(snap.version - 1, 0), command)
        if snap.version:
            if entries and entries[0].raw == snap.head:
                entries = entries[1:]
            else:
                self._store_went_back(game_id, snap)
                snap = _Snapshot(self._meta(game_id), 0, None, b"")
                entries, record = self._read(game_id, 0, command)
                if not entries:  # created after the backup the store came back from
                    raise UnknownGame(game_id)
        if entries:
            snap = self._fold(game_id, snap, entries)
            self._cache.remember(game_id, snap)
        return snap, record

    def _read(
        self, game_id: str, after: int, command: tuple[int, str] | None
    ) -> tuple[list[Entry], CommandRecord | None]:
        if command is None:
            return self.store.read(game_id, after), None
        return self.store.read_with_record(game_id, after, *command)

    def _store_went_back(self, game_id: str, snap: _Snapshot) -> None:
        """Drop the cached state: the store no longer has its head (restored from an older
        backup, or a lagging replica took over, and perhaps appended to since). The game is
        read again from its first event; deciding on the cached state would chain new events
        onto a version that is gone (the append refuses that: ``forked``)."""
        log.warning(
            "game %s: the store no longer has version %d as this process saw it; reloading",
            game_id,
            snap.version,
        )
        self._cache.forget(game_id, snap)

    def _fold(self, game_id: str, snap: _Snapshot, entries: list[Entry]) -> _Snapshot:
        rules = self.games[snap.meta.game]
        codec = self._codec(snap.meta.game)
        state, version = snap.state, snap.version
        for entry in entries:
            version += 1
            if entry.envelope.version != version:
                raise RuntimeError(
                    f"game {game_id}: stored version {entry.envelope.version}, expected {version}"
                )
            state = rules.evolve(state, codec.decode(entry.envelope))
        return _Snapshot(snap.meta, version, state, entries[-1].raw)

    def notify(self, game_id: str, version: int) -> None:
        """Mark the game changed and run the follow-up hooks again, for a change outside the
        stream that read models show (a seat taken). Hooks are idempotent; a failing one is
        logged, not raised; so is a failing mark (the workers' catch-up repairs both)."""
        try:
            woke = self.store.mark_changed(game_id)
        except Unavailable:
            log.exception("could not mark %s changed", game_id)
            return
        self._after_append(game_id, version, woke)

    def _after_append(self, game_id: str, version: int, woke: bool) -> None:
        for hook in self.hooks:
            try:
                hook(game_id, version, woke)
            except Exception:
                log.exception("after_append hook %r failed for %s@%d", hook, game_id, version)


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


def _bot_plays(snap: _Snapshot, seat: int, command_id: str) -> bool:
    """A person's command (any id but the AI seats') for a person's seat a bot took over (the
    API seats nobody at the AI seats chosen at creation)."""
    bot = seat in taken_over(snap.meta, snap.state)
    return bot and not command_id.startswith(AI_COMMAND_PREFIX)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _stale(expected: int, now: int) -> Conflict:
    return Conflict(
        f"the game is at version {now}, not {expected}; reload and retry",
        now,
        expected=str(expected),
    )


def _ai_seats(ai: Mapping[Any, Any] | None, seats: int, game: str) -> dict[int, int | str]:
    """The AI seats and their levels, each a level offered for ``game`` (``bots.levels``: the
    search levels only for a game that can be searched)."""
    try:
        levels = msgspec.convert(dict(ai or {}), dict[int, int | str], strict=False)
    except (msgspec.ValidationError, TypeError, ValueError) as exc:
        raise BadRequest(
            f"ai must map seats to levels: {exc}", code="bad_ai", params={"case": "not_a_map"}
        ) from None
    bad = [s for s in levels if not 0 <= s < seats]
    if bad:
        raise BadRequest(
            f"ai seats {bad} are not seats 0 to {seats - 1}",
            code="bad_ai",
            params={"seats": [str(s) for s in bad], "last": seats - 1},
        )
    offered = bots.levels(game)
    for level in levels.values():
        try:
            name = bots.level_name(level)
        except RuleViolation as exc:
            raise BadRequest(exc.message, code=exc.code, params=exc.params) from None
        if name not in offered:
            raise BadRequest(
                f"the {name} AI is not offered for {game} (use {', '.join(offered)} or 0 and up)",
                code="bad_ai_level",
                params={
                    "case": "not_offered",
                    "level": name,
                    "game": game,
                    "levels": list(offered),
                },
            )
    return levels


def _parse_command(rules: Game, command: Any) -> Any:
    kinds = typing.get_args(rules.Command) or (rules.Command,)
    if isinstance(command, msgspec.Struct):
        if isinstance(command, kinds):
            return command
        raise BadRequest(
            f"{type(command).__name__} is not a {rules.name} command",
            params={"command": type(command).__name__, "game": rules.name},
        )
    try:
        if isinstance(command, str | bytes):
            return msgspec.json.decode(command, type=rules.Command)
        return msgspec.convert(command, rules.Command)
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
        raise BadRequest(
            f"not a {rules.name} command: {exc}", params={"game": rules.name, "error": str(exc)}
        ) from None


# -- the process-wide service -------------------------------------------------------------------

_default: CommandService | None = None
_default_lock = threading.Lock()


def service() -> CommandService:
    """The process-wide service on the configured server (started embedded when needed)."""
    global _default
    with _default_lock:
        if _default is None:
            config = settings()
            store = EventStore(
                connect(config),
                min_replicas=config.min_replicas,
                replica_timeout_ms=config.replica_timeout_ms,
            )
            _default = CommandService(store)
        return _default


def create_game(
    game: str,
    seats: int,
    options: dict[str, Any] | None = None,
    ai: Mapping[Any, Any] | None = None,
    clock: Mapping[str, Any] | None = None,
    on_timeout: Mapping[str, Any] | None = None,
) -> str:
    return service().create_game(game, seats, options, ai, clock, on_timeout)


def handle(
    game_id: str, seat: int, command: Any, command_id: str, expected_version: int | None = None
) -> Accepted:
    return service().handle(game_id, seat, command, command_id, expected_version)


def time_out(game_id: str, version: int, seat: int, forfeit: bool) -> Accepted:
    return service().time_out(game_id, version, seat, forfeit)


def load(game_id: str) -> Loaded:
    return service().load(game_id)


def history(game_id: str, seat: int | None, after: int = 0) -> list[EventRecord]:
    return service().history(game_id, seat, after)
