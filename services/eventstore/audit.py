"""Verifying a stored game: the hash chain, a full replay, the command records, the seed.

``verify`` returns the problems it finds (empty: the game is sound):

* every entry has id ``<version>-0``, versions 1, 2, 3... with no gap, the right game id, and
  ``prev`` equal to the hash of the entry before (``services.eventstore.records`` defines the hash);
* every event decodes (after upcasting) and the whole game replays through the rules' ``evolve``
  (which checks every revealed card against the decks derived from the seed);
* the first event starts a game with the recorded number of seats;
* every command's idempotency record (the seat's own, or in a game stored before ids were
  scoped by seat the game's unscoped one) points at exactly the events that seat appended with
  that id, and every record has its events;
* once the game is over: the revealed secret matches the commitment published at the start, and
  is the secret the game started with.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from domain import GAMES
from domain.core import Game, Secret, check_commitment
from services.eventstore.codec import EventCodec
from services.eventstore.records import GENESIS, Envelope, chain_hash, decode_envelope
from services.eventstore.store import EventStore
from services.eventstore.upcasting import UPCASTERS, Upcasters


def verify(
    store: EventStore,
    game_id: str,
    games: Mapping[str, Game] = GAMES,
    upcasters: Upcasters = UPCASTERS,
) -> list[str]:
    meta = store.meta(game_id)
    if meta is None:
        return ["no metadata record"]
    if meta.game not in games:
        return [f"unknown game {meta.game!r}"]
    envelopes, problems = chain(store.rows(game_id), game_id)
    if problems:
        return problems
    if not envelopes:
        return ["no events"]
    problems += _commands(store, game_id, meta.seats, envelopes)
    rules = games[meta.game]
    events, state, failure = _replay(rules, EventCodec(rules, upcasters), envelopes)
    if failure:
        return [*problems, failure]
    if envelopes[0].type != "game_started" or getattr(events[0], "seats", None) != meta.seats:
        problems.append("the first event does not start a game with the recorded seats")
    if rules.result(state) is not None:
        problems += reveal_problems(events)
    return problems


def chain(
    rows: list[tuple[bytes, dict[bytes, bytes]]], game_id: str
) -> tuple[list[Envelope], list[str]]:
    """The envelopes of a game's stream (its entries as stored) and the problems of its hash
    chain (``omerta export`` checks the rows it copies with it)."""
    envelopes: list[Envelope] = []
    prev = GENESIS
    for version, (entry_id, fields) in enumerate(rows, 1):
        where = f"version {version}"
        if entry_id != f"{version}-0".encode() or set(fields) != {b"e"}:
            return envelopes, [f"{where}: unexpected entry {entry_id!r} {sorted(fields)}"]
        raw = fields[b"e"]
        try:
            envelope = decode_envelope(raw)
        except msgspec.DecodeError as exc:
            return envelopes, [f"{where}: undecodable envelope: {exc}"]
        if envelope.prev != prev:
            return envelopes, [f"{where}: hash chain broken (prev does not match entry before)"]
        if envelope.version != version or envelope.game_id != game_id:
            return envelopes, [f"{where}: envelope says {envelope.game_id}@{envelope.version}"]
        envelopes.append(envelope)
        prev = chain_hash(raw)
    return envelopes, []


def _commands(store: EventStore, game_id: str, seats: int, envelopes: list[Envelope]) -> list[str]:
    problems = []
    carried: dict[tuple[int | None, str], list[int]] = {}
    for envelope in envelopes:
        carried.setdefault((envelope.actor, envelope.command_id), []).append(envelope.version)
    records = store.command_records(game_id, seats)
    used: set[tuple[int | None, str]] = set()
    for (seat, command_id), versions in carried.items():
        scope = seat if command_id in records.get(seat, {}) else None
        record = records[scope].get(command_id)
        if record is None:
            problems.append(
                f"events {versions} carry seat {seat}'s command id {command_id!r} with no record"
            )
            continue
        used.add((scope, command_id))
        if versions != list(range(record.first, record.last + 1)):
            problems.append(
                f"command {command_id!r} of seat {seat}: record says "
                f"{record.first}..{record.last}, events carrying it are {versions}"
            )
    problems += [
        f"command {command_id!r} recorded for seat {seat} but has no event"
        for seat, scoped in records.items()
        for command_id in scoped
        if (seat, command_id) not in used
    ]
    return problems


def _replay(
    rules: Game, codec: EventCodec, envelopes: list[Envelope]
) -> tuple[list[Any], Any, str | None]:
    """(events, final state, None), or the first failure."""
    events: list[Any] = []
    state = None
    for envelope in envelopes:
        try:
            event = codec.decode(envelope)
            state = rules.evolve(state, event)
        except Exception as exc:  # any failure of a stored event to replay is a finding
            return events, state, f"version {envelope.version}: replay fails: {exc!r}"
        events.append(event)
    return events, state, None


def reveal_problems(events: list[Any]) -> list[str]:
    """For a finished game's events: does the last one reveal the secret committed to?"""
    started, revealed = events[0], getattr(events[-1], "secret", None)
    if not isinstance(revealed, Secret):
        return ["the game is over but its last event reveals no secret"]
    if not check_commitment(revealed, started.commitment):
        return ["the revealed secret does not match the commitment published at the start"]
    if started.secret != revealed:
        return ["the revealed secret is not the one the game started with"]
    return []
