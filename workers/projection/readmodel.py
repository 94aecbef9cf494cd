"""One game's read models at a version, from its folded events and its seat records: what
``workers.projection.projector`` writes (``services.readside.readmodels`` lists the keys). Pure:
no store, no clock (times are the events' own), which is what lets ``omerta rebuild`` reproduce
them byte for byte.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from domain.core import Game
from services.eventstore import shards
from services.eventstore.records import GameMeta
from services.games import clocks
from services.games.clocks import Interval, SeatClock
from services.games.seating import ai_levels
from services.readside import readmodels as rm


class Folded(NamedTuple):
    """A game folded up to ``version``: the state, the time of the last event, and since when
    each seat owing a decision has owed it (evaluated after each command's events)."""

    meta: GameMeta
    version: int
    state: Any
    updated: int
    head: bytes
    due: dict[int, int]
    # (seat, began, ended) of every finished stretch of owing a decision, in order: the clocks'
    # input (services.games.clocks)
    stretches: tuple[tuple[int, int, int], ...] = ()


class Seating(NamedTuple):
    owners: dict[int, str]  # seat -> player id, taken seats
    public: bool
    clock_rev: int = 0  # services.games.vacation.clock_rev_key
    started: int | None = None  # when every seat was taken (None: not yet; no clock runs)
    paused: dict[int, list[Interval]] = {}  # seat -> its player's vacations
    reserved: dict[int, str] = {}  # seat -> player id: a rematch's seats kept for their players


class Models(NamedTuple):
    """A game's read models at a version (``read_models``)."""

    fields: dict[str, bytes]  # the read-model hash's fields
    indexes: list[tuple[str, int, str]]  # (key, score, member) in the game's shard's indexes
    inboxes: dict[str, int | None]  # seated player -> since when they owe a decision, or None


def unjoined(meta: GameMeta, state: Any, seating: Seating) -> bool:
    """Has the game an open seat and its creator alone seated (it expires if nobody joins)?
    A game with no seat taken was not opened by a player (made by the service alone)."""
    levels = ai_levels(meta, state)
    kinds = [_seat(s, levels, seating).kind for s in range(meta.seats)]
    return "open" in kinds and len(seating.owners) == 1


def read_models(game_id: str, game: Game, folded: Folded, seating: Seating) -> Models:
    """The game's hash fields, index entries and its players' inbox entries at ``folded``."""
    meta, state = folded.meta, folded.state
    result = game.result(state)
    levels = ai_levels(meta, state)
    seats = [_seat(s, levels, seating) for s in range(meta.seats)]
    open_seats = [s.seat for s in seats if s.kind == "open"]
    clocks = game_clocks(folded, seating)
    summary = rm.Summary(
        game_id=game_id,
        game=meta.game,
        version=folded.version,
        head=folded.head.hex(),
        created=meta.created,
        updated=folded.updated,
        options=meta.options,
        seats=seats,
        public=seating.public,
        status="running" if result is None else "finished",
        to_act=sorted(folded.due),
        due=folded.due,
        result=result,
        clock=meta.clock,
        on_timeout=meta.on_timeout if meta.clock is not None else None,
        clocks=clocks,
    )
    # No seat's view: the API builds it from the command service's state, current at once
    # (docs/architecture.md, "The read side").
    fields = rm.summary_fields(summary)

    shard = shards.of(game_id)
    indexes: list[tuple[str, int, str]] = []
    inboxes: dict[str, int | None] = dict.fromkeys(seating.owners.values())
    if result is not None:
        indexes.append((rm.index_key(rm.FINISHED, shard), folded.updated, game_id))
        return Models(fields, indexes, inboxes)
    indexes.append((rm.index_key(rm.RUNNING, shard), meta.created, game_id))
    if seating.public and open_seats:
        indexes.append((rm.index_key(rm.LOBBY, shard), meta.created, game_id))
    if unjoined(meta, state, seating):
        indexes.append((rm.index_key(rm.UNJOINED, shard), meta.created, game_id))
    for seat, since in folded.due.items():
        indexes.append((rm.index_key(rm.DUE, shard), since, rm.due_member(game_id, seat)))
        owner = seating.owners.get(seat)
        if owner is not None and seat not in levels:  # a bot plays a seat taken over
            owed = inboxes[owner]
            inboxes[owner] = since if owed is None else min(owed, since)
    for c in clocks:
        if c.deadline is not None:
            member = rm.deadline_member(game_id, folded.version, c.seat, c.bank)
            indexes.append((rm.index_key(rm.DEADLINES, shard), c.deadline, member))
    ai_since = [since for seat, since in folded.due.items() if seat in levels]
    if ai_since:
        indexes.append((rm.index_key(rm.AI_DUE, shard), min(ai_since), game_id))
    return Models(fields, indexes, inboxes)


def game_clocks(folded: Folded, seating: Seating) -> list[SeatClock]:
    """The clocks of the people's seats (none for a finished game or one without a clock)."""
    meta = folded.meta
    if meta.clock is None:
        return []
    bots = ai_levels(meta, folded.state)  # a seat taken over by a bot has no clock any more
    people = [s for s in range(meta.seats) if s not in bots]
    return clocks.seat_clocks(
        meta.clock, folded.stretches, folded.due, people, seating.started, seating.paused
    )


def _seat(seat: int, levels: dict[int, int | str], seating: Seating) -> rm.SeatSummary:
    """A seat a bot took over shows as AI, with the person it was taken over from."""
    owner = seating.owners.get(seat)
    if seat in levels:
        return rm.SeatSummary(seat, "ai", player=owner, level=levels[seat])
    if owner is not None:
        return rm.SeatSummary(seat, "player", player=owner)
    if seat in seating.reserved:
        return rm.SeatSummary(seat, "reserved", player=seating.reserved[seat])
    return rm.SeatSummary(seat, "open")
