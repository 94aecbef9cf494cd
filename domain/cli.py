"""Terminal runner shared by the games: ``python -m domain.<game>``.

Plays a game between random players, or replays scripted commands (a JSON list of
``{"seat": n, "command": {...}}``), printing each move, its events and the final score.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

import msgspec

from domain.core import Game, RuleViolation, Secret
from domain.play import play, random_policy, secret_for


def _line(obj: Any) -> str:
    return msgspec.json.encode(obj).decode()


def main(game: Game, argv: list[str] | None = None) -> int:
    try:
        return _run(game, argv)
    except RuleViolation as exc:
        print(f"refused ({exc.code}): {exc.message}")
        return 2


def _run(game: Game, argv: list[str] | None) -> int:
    parser = argparse.ArgumentParser(prog=f"python -m domain.{game.name}")
    parser.add_argument("--seats", type=int, default=game.min_seats)
    parser.add_argument("--seed", type=int, default=1, help="game number for the test secret")
    parser.add_argument("--options", default="{}", help="rule options as JSON")
    parser.add_argument("--script", help="JSON file of scripted commands to play first")
    parser.add_argument("--quiet", action="store_true", help="print only the result")
    args = parser.parse_args(argv)

    options = game.options(json.loads(args.options))
    secret: Secret = secret_for(args.seed)
    state = None
    for event in game.start(args.seats, secret, options):
        state = game.evolve(state, event)
        if not args.quiet:
            print("  event", _line(game.redact(event, None)))

    if args.script:
        with open(args.script) as fh:
            for entry in json.load(fh):
                command = msgspec.convert(entry["command"], game.Command)
                for event in game.decide(state, entry["seat"], command):
                    state = game.evolve(state, event)
                if not args.quiet:
                    print(f"seat {entry['seat']}:", _line(command))
        result = game.result(state)
    else:
        policies = [random_policy(f"{args.seed}-{s}".encode()) for s in range(args.seats)]
        for step in play(game, args.seats, secret, options, policies):
            state = step.state
            if not args.quiet:
                print(f"seat {step.seat}:", _line(step.command))
                for event in step.events:
                    print("  event", _line(event))
        result = game.result(state)

    if result is None:
        print("game not over; to act:", sorted(game.to_act(state)))
        return 0
    print("scores:", result.scores, "winners:", result.winners, "reason:", result.reason)
    return 0
