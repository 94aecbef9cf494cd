"""The ``omerta`` command line.

Each module of ``api.subcommands`` adds its subcommands: it defines
``register(subparsers) -> None``, which adds parsers with ``set_defaults(run=fn)`` where
``fn(args) -> int`` is the exit status. Adding a group is adding one module there; this file
does not change. Keep a module's top-level imports light (import what the command needs inside
its ``fn``): a group whose module fails to import is reported on stderr and left out, so one
broken group does not take down the others (``omerta verify`` must work when the rest cannot).
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

import api.subcommands
from services.errors import ServiceError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="omerta", description="Omerta play-by-web service")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in sorted(m.name for m in pkgutil.iter_modules(api.subcommands.__path__)):
        name = f"api.subcommands.{module}"
        try:
            group = importlib.import_module(name)
        except Exception as exc:  # reported, and the other groups still work
            print(f"omerta: the commands of {name} are unavailable: {exc!r}", file=sys.stderr)
            continue
        group.register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.run(args))
    except ServiceError as exc:
        print(f"omerta {args.command}: {exc}", file=sys.stderr)
        return 1
