"""The ``omerta`` command line.

Each module of ``api.subcommands`` adds its subcommands: it defines
``register(subparsers) -> None``, which adds parsers with ``set_defaults(run=fn)`` where
``fn(args) -> int`` is the exit status. Adding a group is adding one module there; this file
does not change. Keep a module's top-level imports light (import what the command needs inside
its ``fn``): a group whose module fails to import is reported on stderr and left out, so one
broken group does not take down the others (``omerta verify`` must work when the rest cannot).

Game ids are urlsafe base64 and may start with ``-`` (one in 64 does): an argument shaped like a
game id that is no option of the command is taken as a positional argument (``--`` before it
works too).
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import re
import sys
from typing import Any

import api.subcommands
from services.errors import ServiceError

# What ``services.games.creation`` makes a game id of: ``shards.new_id(16)``, a
# ``token_urlsafe(16)``.
GAME_ID = re.compile(r"[A-Za-z0-9_-]{22}")


class Parser(argparse.ArgumentParser):
    """argparse, but a game id starting with ``-`` is an argument, not an unknown option (the
    subcommands' parsers are of this class too: ``add_subparsers`` uses the parent's)."""

    def _parse_optional(self, arg_string: str) -> Any:
        if GAME_ID.fullmatch(arg_string) and arg_string not in self._option_string_actions:
            return None  # argparse's answer for "a positional argument"
        return super()._parse_optional(arg_string)


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="omerta", description="Omerta play-by-web service")
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
