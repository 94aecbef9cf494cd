"""``omerta rebuild``: drop every read model, rebuild it from the event log, and report whether
the result equals what the incremental projections had built (``workers.rebuild``)."""

from __future__ import annotations

import argparse
import sys

from services.commands import service
from workers import rebuild


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "rebuild",
        help="rebuild every read model from the events; compare with the incremental ones",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress line")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    def progress(done: int, total: int) -> None:
        end = "\n" if done == total else ""
        print(f"\rrebuilding read models: {done}/{total} games", end=end, file=sys.stderr)

    result = rebuild.rebuild(service().store, None if args.quiet else progress)
    for key in result.differences:
        print(f"differs: {key}")
    verdict = "identical" if not result.differences else f"{len(result.differences)} differ"
    print(f"{result.games} games, {result.keys} read-model keys rebuilt: {verdict}")
    return 1 if result.differences else 0
