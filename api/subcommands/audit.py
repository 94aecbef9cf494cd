"""``omerta events GAME_ID`` (a readable history) and ``omerta verify GAME_ID|--all``."""

from __future__ import annotations

import argparse
import datetime
import sys
from typing import TYPE_CHECKING

import msgspec

if TYPE_CHECKING:
    from services.eventstore.records import EventRecord


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    events = subparsers.add_parser("events", help="print a game's history")
    events.add_argument("game_id")
    who = events.add_mutually_exclusive_group()
    who.add_argument("--seat", type=int, help="as this seat sees it (default: a spectator)")
    who.add_argument("--full", action="store_true", help="unredacted: secrets too (operators)")
    events.add_argument("--json", action="store_true", help="one JSON record per line")
    events.set_defaults(run=run_events)

    verify = subparsers.add_parser(
        "verify", help="check hash chains, replay games, check revealed seeds"
    )
    target = verify.add_mutually_exclusive_group(required=True)
    target.add_argument("game_id", nargs="?")
    target.add_argument("--all", action="store_true", help="every game in the store")
    verify.set_defaults(run=run_verify)


def run_events(args: argparse.Namespace) -> int:
    from bootstrap import bootstrap

    commands = bootstrap().commands
    full = args.full
    records = commands.events(args.game_id) if full else commands.history(args.game_id, args.seat)
    for record in records:
        print(msgspec.json.encode(record).decode() if args.json else _line(record))
    return 0


def _line(record: EventRecord) -> str:
    when = datetime.datetime.fromtimestamp(record.time / 1000, datetime.UTC)
    actor = "-" if record.actor is None else f"seat {record.actor}"
    body = msgspec.json.encode(record.event).decode()
    return (
        f"{record.version:>5}  {when:%Y-%m-%d %H:%M:%S}  {actor:<7}  {record.type:<20}  "
        f"{record.command_id or '-':<12}  {body}"
    )


def run_verify(args: argparse.Namespace) -> int:
    from bootstrap import bootstrap
    from services.eventstore import audit

    store = bootstrap().events
    game_ids = sorted(store.game_ids()) if args.all else [args.game_id]
    failed = 0
    for game_id in game_ids:
        problems = audit.verify(store, game_id)
        if problems:
            failed += 1
            for problem in problems:
                print(f"FAIL {game_id}: {problem}")
        else:
            print(f"ok   {game_id}")
    print(f"{len(game_ids) - failed} of {len(game_ids)} games verified", file=sys.stderr)
    return 1 if failed else 0
