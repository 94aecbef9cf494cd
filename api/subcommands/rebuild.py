"""``omerta rebuild``: drop every read model, rebuild it from the event log, and report whether
the result equals what the incremental projections had built (``workers.projection.rebuild``).

Live workers project meanwhile, and their writes show up as differences (an operator saw 87
false ones): while any worker holds a shard lease (``workers.projection.leases``) the rebuild
refuses with exit status 2, naming the holders. ``--force`` rebuilds anyway (the differences it
reports may then be the workers' work)."""

from __future__ import annotations

import argparse
import sys

REFUSED = 2


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "rebuild",
        help="rebuild every read model from the events; compare with the incremental ones",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress line")
    parser.add_argument(
        "--force", action="store_true", help="rebuild even while workers hold shard leases"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from bootstrap import bootstrap
    from services.eventstore.store import unavailable
    from workers.projection import leases, rebuild

    store = bootstrap().events
    if not args.force:
        with unavailable():
            holders, _ = leases.holding(store.redis)
        if holders:
            named = ", ".join(f"{name} ({count} shards)" for name, count in holders.items())
            print(
                f"omerta rebuild: workers hold shard leases: {named}. Stop them first (their"
                " projections would show as differences), or rebuild anyway with --force",
                file=sys.stderr,
            )
            return REFUSED

    def progress(done: int, total: int) -> None:
        end = "\n" if done == total else ""
        print(f"\rrebuilding read models: {done}/{total} games", end=end, file=sys.stderr)

    result = rebuild.rebuild(store, None if args.quiet else progress)
    for key in result.differences:
        print(f"differs: {key}")
    verdict = "identical" if not result.differences else f"{len(result.differences)} differ"
    print(f"{result.games} games, {result.keys} read-model keys rebuilt: {verdict}")
    return 1 if result.differences else 0
