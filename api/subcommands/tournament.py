"""``omerta tournament``: the bots against each other, with the domain alone (``api.tournament``,
imported when the command runs: the other commands start without its plotting)."""

from __future__ import annotations

import argparse
from pathlib import Path


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("tournament", help="play the bots against each other")
    parser.add_argument("--game", default="famiglia", help="famiglia or gangsta")
    parser.add_argument("--seats", type=int, default=2)
    parser.add_argument(
        "--levels", default="expert,greedy", help="FIRST,OTHERS: one seat, all the others"
    )
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--budget", type=float, help="seconds per move of the search levels")
    parser.add_argument("--iterations", type=int, help="a search level's iterations per move")
    parser.add_argument("--seed", default="tournament", help="the bots' seeds (deals: 0 up)")
    parser.add_argument(
        "--clock",
        choices=("wall", "cpu"),
        default="wall",
        help="the search levels' clock: wall (as the jobs) or the process's processor time "
        "(a core of its own per game on a shared machine)",
    )
    parser.add_argument("--jobs", type=int, default=1, help="games at once, one process each")
    parser.add_argument("--out", type=Path, default=Path("bench-results"))
    parser.set_defaults(run=lambda args: play(parser, args))


def play(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    from api.tournament import Spec, run
    from domain import GAMES

    if args.game not in GAMES:
        parser.error(f"--game must be one of {', '.join(sorted(GAMES))}")
    levels = tuple(args.levels.split(","))
    if len(levels) != 2:
        parser.error("--levels takes two levels, FIRST,OTHERS")
    if args.games < 1:
        parser.error("--games must be at least 1")
    spec = Spec(
        args.game,
        args.seats,
        levels,
        args.games,
        args.seed,
        args.budget,
        args.iterations,
        args.clock,
    )
    run(spec, args.jobs, args.out)
    return 0
