"""``omerta archive [--older-than DAYS]``: move the finished games older than that (default
``OMERTA_ARCHIVE_DAYS``) out of the store into the archive now (``services.readside.archiving``;
the workers do it too, every few minutes). Safe to run beside the workers and to run again.

A game not rated yet, owed a review or changed meanwhile waits for a later pass: counted, and
the exit status is 0. It is 1 only when something failed (an archive that does not read back
as written, a shard the store failed to read)."""

from __future__ import annotations

import argparse
import sys


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "archive", help="move finished games older than OMERTA_ARCHIVE_DAYS to the archive"
    )
    parser.add_argument(
        "--older-than",
        type=float,
        metavar="DAYS",
        help="days since a game ended (default: OMERTA_ARCHIVE_DAYS; 0: every finished game)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress line")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from bootstrap import bootstrap
    from services.eventstore.store import now_ms
    from services.readside.archiving import Archiver, Passed

    container = bootstrap()
    days = container.settings.archive_days if args.older_than is None else args.older_than
    if args.older_than is None and days <= 0:
        print(
            "omerta archive: OMERTA_ARCHIVE_DAYS is 0 (never); give --older-than", file=sys.stderr
        )
        return 2

    def progress(done: int, total: int, passed: Passed) -> None:
        end = "\n" if done == total else ""
        print(
            f"\rarchiving: {done}/{total} shards, {passed.archived} games archived",
            end=end,
            file=sys.stderr,
        )

    passed = Archiver(container.events).archive_older(
        days, now_ms(), progress=None if args.quiet else progress
    )
    print(f"{passed.archived} games archived, {passed.waiting} waiting for a later pass")
    if passed.failed:  # a game waiting is the design's; only a failure is an error
        print(f"omerta archive: {passed.failed} failed (see the log)", file=sys.stderr)
    return 1 if passed.failed else 0
