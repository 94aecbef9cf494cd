"""Read models: what the workers' projections build from the event log, and how to read them.

Everything here is derived (``workers.projection.projector`` writes it, ``omerta rebuild``
recreates it byte for byte from the events and the seat records). The API reads what spans games
from it (the lobby, a player's games and inbox, a profile's games) and each game's summary where
only the projection knows it (the clocks); what one game shows a seat (its view, legal commands,
history) it builds from the command service's state, which is current at once. Each
game's read model records the version it reflects, so a reader can tell how fresh it is
(``wait_for`` waits for a version a client has just written).

Keys (``{...}`` is the Redis Cluster hash tag; ``rm:`` is the read models' own prefix)::

    rm:{<id>}                 hash  the game's read model, written in one atomic step:
        version                 the stream version it reflects (the checkpoint)
        seated                  how many seats were taken when projected (seats are never
                                given back, so (version, seated) only grows)
        summary                 JSON of the ``Summary`` fields that change only when a seat
                                is taken (the game, its options, its seats)
        progress                JSON of the others (``PROGRESS``): a move rewrites only these
                                (``summary_fields``; ``ReadModels.summary`` joins the two)
        clockrev                the clock revision it reflects (``services.games.vacation``;
                                absent: 0)
        indexes                 JSON list of the [key, member] entries of the shard's
                                indexes below that hold this game (so the next projection
                                removes stale ones)
    rm:inbox:{<player id>}    zset  game id -> ms since the player's seat owes a decision
    rm:inbox:{<player id>}:checkpoints  hash  game id -> "<version>:<seated>:<clock revision>"
                                    of the projection that last wrote the game's entry there
                                    (``workers.projection.projector.INBOX``: a late one changes
                                    nothing)

The indexes that list games are one per shard (``services.eventstore.shards``; ``index_key``:
the name and the shard's tag, ``rm:lobby:{s07}``), each in the slot of its shard's games, so
that a game's read model and its entries in its shard's indexes are written in one script on a
Redis Cluster too. Readers of a list merge the 64 shards' copies (``ReadModels.games``,
``lobby``, ``due``)::

    rm:games:running:{<tag>}  zset  game id -> created (ms), games not over
    rm:games:finished:{<tag>} zset  game id -> time of the last event (ms), finished games
    rm:lobby:{<tag>}          zset  game id -> created, public running games with an open seat
    rm:due:{<tag>}            zset  "<game id>:<seat>" -> ms since that seat owes a decision
                                    (every seat: people, AI and open seats)
    rm:ai-due:{<tag>}         zset  game id -> ms since its first AI seat owes a decision
    rm:deadlines:{<tag>}      zset  "<game id>:<version>:<seat>:<bank ms>" -> the deadline (ms)
                                    of a person's seat owing a decision under a clock
                                    (``workers.clocks.deadlines`` arms a job per entry; the catch-up
                                    re-arms the missing ones)
    rm:unjoined:{<tag>}       zset  game id -> created (ms), running games with an open seat
                                    that nobody but their creator sat in: each expires at
                                    created + ``OMERTA_OPEN_GAME_DAYS`` (``workers.clocks.expiry``
                                    arms a job per entry; the catch-up re-arms the missing ones)

A store whose read models were written before the shards (a single server's) lists its games in
the single lists (``rm:lobby``...): ``omerta rebuild`` once after the upgrade drops those and
lists every game in its shard's copies. Read models written before the views were dropped also
hold a ``views`` field (every seat's view, which nothing read): a rebuild drops it, an archived
copy keeps it, and the rebuild's comparisons leave it out (``workers.projection.rebuild.DROPPED``).

Outside the read models (not rebuilt: not derived from events):

    ai:{<id>}:error           string JSON ``AiError`` of the last failed AI move, if any

A finished game moved to the archive (``services.readside.archiving``) has no ``rm:{<id>}`` in the
store: the readers below read its archived copy instead (``services.eventstore.archive``); its
entry in the finished list stays.

"Owes a decision since" is the time of the event after which the seat has owed a decision
without a break: the oldest entry of an inbox is the game waiting longest for that player.
"""

from __future__ import annotations

import heapq
import itertools
import time
from typing import Any, Literal, cast

import msgspec

from domain.core import Result
from services.eventstore import keys, shards
from services.eventstore.archive import Archived
from services.eventstore.store import EventStore, unavailable
from services.games.clocks import Clock, OnTimeout, SeatClock
from services.platform.config import Store

PREFIX = "rm:"
RUNNING = "rm:games:running"
FINISHED = "rm:games:finished"
LOBBY = "rm:lobby"
DUE = "rm:due"
AI_DUE = "rm:ai-due"
DEADLINES = "rm:deadlines"
UNJOINED = "rm:unjoined"
STATUSES = {"running": RUNNING, "finished": FINISHED}
"""The names above are the indexes' names; their keys are the shards' (``index_key``)."""


def index_key(name: str, shard: int) -> str:
    """The shard's copy of the index ``name`` (``RUNNING``, ``FINISHED``, ``LOBBY``, ``DUE``,
    ``AI_DUE``, ``DEADLINES``, ``UNJOINED``): ``rm:lobby:{s07}``, in the slot of the shard's games
    (``services.eventstore.shards``)."""
    return shards.key(name, shard)


def game_key(game_id: str) -> str:
    return f"rm:{{{game_id}}}"


def inbox_key(player_id: str) -> str:
    return f"rm:inbox:{{{player_id}}}"


def inbox_checkpoints_key(player_id: str) -> str:
    return f"rm:inbox:{{{player_id}}}:checkpoints"


def ai_error_key(game_id: str) -> str:
    return f"ai:{{{game_id}}}:error"


SUMMARY = [b"summary", b"progress"]  # the fields ``joined`` makes a ``Summary`` of


def due_member(game_id: str, seat: int) -> str:
    return f"{game_id}:{seat}"


def deadline_member(game_id: str, version: int, seat: int, bank: int) -> str:
    return f"{game_id}:{version}:{seat}:{bank}"


def parse_deadline_member(member: str) -> tuple[str, int, int, int]:
    game_id, version, seat, bank = member.rsplit(":", 3)
    return game_id, int(version), int(seat), int(bank)


class SeatSummary(msgspec.Struct, frozen=True):
    seat: int
    kind: Literal["player", "ai", "open", "reserved"]  # reserved: a rematch's, for ``player``
    player: str | None = None  # player id
    level: int | str | None = None  # AI level


class Summary(msgspec.Struct, frozen=True):
    """One game at ``version``: who sits where, who owes a decision (and since when, ms), the
    result once it is over. ``updated`` is the time of the last event."""

    game_id: str
    game: str
    version: int
    head: str  # hash of the last event (hex): publishes the end of the hash chain
    created: int
    updated: int
    options: dict[str, Any]
    seats: list[SeatSummary]
    public: bool
    status: str  # "running" or "finished"
    to_act: list[int]
    due: dict[int, int]  # seat -> ms since it owes a decision
    result: Result | None
    clock: Clock | None = None  # the time control (services.games.clocks)
    on_timeout: OnTimeout | None = None
    clocks: list[SeatClock] = []  # the seats of people's clocks


class AiError(msgspec.Struct, frozen=True):
    """The last failure of an AI move: the job's attempt ended with ``error``."""

    seat: int
    version: int
    error: str
    time: int


class GameReadModel(msgspec.Struct, frozen=True):
    summary: Summary
    ai_error: AiError | None


PROGRESS = ("version", "head", "updated", "status", "to_act", "due", "result", "clocks")
"""The ``Summary`` fields a move changes: kept in the ``progress`` field, apart from the rest."""


def summary_fields(summary: Summary) -> dict[str, bytes]:
    """The read-model fields ``summary`` and ``progress`` of ``summary`` (see the keys above):
    every field of the read model a write changes is logged in the AOF again."""
    data = msgspec.to_builtins(summary)
    return {
        "summary": _json.encode({k: v for k, v in data.items() if k not in PROGRESS}),
        "progress": _json.encode({k: data[k] for k in PROGRESS}),
    }


def joined(summary: bytes | None, progress: bytes | None) -> Summary | None:
    """The ``Summary`` of the two fields (two JSON objects made one); a read model written
    before the split has it all in ``summary``."""
    if summary is None:
        return None
    if progress is None:
        return _summary.decode(summary)
    return _summary.decode(summary[:-1] + b"," + progress[1:])


_json = msgspec.json.Encoder()
_summary = msgspec.json.Decoder(Summary)
_ai_error = msgspec.json.Decoder(AiError)


class ReadModels:
    """Reading helpers on one Redis client."""

    def __init__(self, client: Store, archived: Archived | None = None) -> None:
        self.redis = client
        self.archived = archived

    @classmethod
    def of(cls, store: EventStore) -> ReadModels:
        """The read models of the store's games, archived ones included."""
        return cls(store.redis, store.archived)

    def version(self, game_id: str) -> int:
        """The version the game's read model reflects (0: not projected yet)."""
        with unavailable():
            raw = self.redis.hget(game_key(game_id), "version")
            if raw is None and self.archived is not None:
                marker = self.archived.marker(game_id)
                return marker.version if marker is not None else 0
        return int(raw) if raw is not None else 0

    def summary(self, game_id: str) -> Summary | None:
        with unavailable():
            return joined(*self._fields(game_id, SUMMARY))

    def _fields(self, game_id: str, names: list[bytes]) -> list[bytes | None]:
        """These fields of the game's read model, from its archive once it was moved there."""
        found = cast(list[bytes | None], self.redis.hmget(game_key(game_id), names))
        return self._or_archived(game_id, names, found)

    def _or_archived(
        self, game_id: str, names: list[bytes], found: list[bytes | None]
    ) -> list[bytes | None]:
        """``found`` (the fields read from the store), or, when the game's read model is not
        there, the archived one's."""
        if found[0] is not None or self.archived is None:
            return found
        bundle = self.archived.bundle(game_id)
        stored = bundle.hash(game_key(game_id)) if bundle is not None else None
        return found if stored is None else [stored.get(n) for n in names]

    def game(self, game_id: str) -> GameReadModel | None:
        """The summary with the last AI failure, if any."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.hmget(game_key(game_id), ["summary", "progress"])
        pipe.get(ai_error_key(game_id))
        with unavailable():
            fields, error = pipe.execute()
            fields = self._or_archived(game_id, SUMMARY, fields)
        summary = joined(*fields)
        if summary is None:
            return None
        return GameReadModel(summary, _ai_error.decode(error) if error is not None else None)

    def summaries(self, game_ids: list[str]) -> list[Summary]:
        """The summaries of these games, in this order (games not projected yet are left out)."""
        pipe = self.redis.pipeline(transaction=False)
        for game_id in game_ids:
            pipe.hmget(game_key(game_id), ["summary", "progress"])
        with unavailable():
            found = [
                joined(*self._or_archived(game_id, SUMMARY, fields))
                for game_id, fields in zip(game_ids, pipe.execute(), strict=True)
            ]
        return [summary for summary in found if summary is not None]

    def games(self, status: str, offset: int = 0, limit: int = 50) -> list[Summary]:
        """Running games oldest first, or finished games most recently finished first."""
        if status not in STATUSES:
            raise ValueError(f"status is one of {sorted(STATUSES)}, not {status!r}")
        rows = self.across(STATUSES[status], offset, limit, newest_first=status == "finished")
        return self.summaries([member.decode() for member, _ in rows])

    def lobby(self, offset: int = 0, limit: int = 50) -> list[Summary]:
        """Public running games with an open seat, newest first."""
        rows = self.across(LOBBY, offset, limit, newest_first=True)
        return self.summaries([member.decode() for member, _ in rows])

    def across(
        self, name: str, offset: int, limit: int, newest_first: bool = False
    ) -> list[tuple[bytes, float]]:
        """Entries (member, score) ``offset`` to ``offset + limit`` of the index ``name`` in the
        order one sorted set of every shard's entries would have (by score, then member; both
        reversed for ``newest_first``). Each shard's first ``offset + limit`` entries in one
        pipeline (a round trip per node), merged: a page deep in a long list costs that depth
        on every shard."""
        if limit <= 0 or offset < 0:
            return []
        pipe = self.redis.pipeline(transaction=False)
        for shard in range(shards.SHARDS):
            key = index_key(name, shard)
            if newest_first:
                pipe.zrevrange(key, 0, offset + limit - 1, withscores=True)
            else:
                pipe.zrange(key, 0, offset + limit - 1, withscores=True)
        with unavailable():
            found: list[list[tuple[bytes, float]]] = pipe.execute()
        merged = heapq.merge(*found, key=lambda row: (row[1], row[0]), reverse=newest_first)
        return list(itertools.islice(merged, offset, offset + limit))

    def count(self, name: str) -> int:
        """How many entries the index ``name`` holds, every shard's (one pipeline)."""
        pipe = self.redis.pipeline(transaction=False)
        for shard in range(shards.SHARDS):
            pipe.zcard(index_key(name, shard))
        with unavailable():
            return sum(pipe.execute())

    def inbox(self, player_id: str, limit: int = 100) -> list[Summary]:
        """Games where the player owes a decision, the one waiting longest first."""
        with unavailable():
            ids = cast(list[bytes], self.redis.zrange(inbox_key(player_id), 0, limit - 1))
        return self.summaries([i.decode() for i in ids])

    def inbox_count(self, player_id: str) -> int:
        """How many games wait for the player's decision."""
        with unavailable():
            return int(self.redis.zcard(inbox_key(player_id)))

    def inbox_changes(self, player_id: str, after: bytes, limit: int = 1000) -> dict[str, int]:
        """The games (id -> latest version) of the entries after ``after`` of the player's
        shard's inbox feed that name the player, among the next ``limit`` entries (what a
        reconnecting stream missed)."""
        with unavailable():
            rows = cast(
                list[tuple[bytes, dict[bytes, bytes]]],
                self.redis.xrange(
                    keys.inbox_feed_key(shards.of(player_id)), b"(" + after, "+", count=limit
                ),
            )
        changed: dict[str, int] = {}
        for _, fields in rows:
            if player_id in fields[b"players"].decode().split(","):
                game_id = fields[b"game"].decode()
                changed[game_id] = max(int(fields[b"version"]), changed.get(game_id, 0))
        return changed

    def due(self, limit: int = 100) -> list[tuple[str, int, int]]:
        """(game id, seat, since ms) of every seat owing a decision, waiting longest first."""
        rows = self.across(DUE, 0, limit)
        out = []
        for member, since in rows:
            game_id, seat = member.decode().rsplit(":", 1)
            out.append((game_id, int(seat), int(since)))
        return out

    def wait_for(self, game_id: str, version: int, timeout: float = 2.0) -> bool:
        """Wait until the game's read model reflects ``version`` (read-your-writes after a
        command); False on timeout: the reader then falls back to the command service."""
        deadline = time.monotonic() + timeout
        delay = 0.002
        while self.version(game_id) < version:
            if time.monotonic() >= deadline:
                return False
            time.sleep(delay)
            delay = min(delay * 2, 0.05)
        return True
