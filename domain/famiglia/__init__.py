"""Famiglia (Friedemann Friese, 2010) for 2 players: see shared/rules/FAMIGLIA.md.

The readings of points the rules page leaves open are in docs/famiglia.md.
"""

from __future__ import annotations

from typing import Any

import msgspec

from domain.core import Result, RuleViolation, Secret
from domain.famiglia import rules, state, view
from domain.famiglia.messages import Command, Event, Options


class Famiglia:
    name = "famiglia"
    min_seats = 2
    max_seats = 2
    Options = Options
    Command = Command
    Event = Event

    def options(self, raw: dict[str, Any] | None) -> Options:
        try:
            options = msgspec.convert(raw or {}, Options)
        except msgspec.ValidationError as exc:
            raise RuleViolation("bad_options", f"Famiglia options: {exc}") from None
        if options.action1_strict_order:
            raise RuleViolation(
                "bad_options",
                "action1_strict_order is not implemented: no published source explains it",
            )
        return options

    def start(self, seats: int, seed: Secret, options: Options) -> list[Any]:
        return rules.start(seats, seed, self.options(msgspec.to_builtins(options)))

    def evolve(self, state_: state.State | None, event: Any) -> state.State:
        return state.evolve(state_, event)

    def decide(self, state_: state.State, seat: int, command: Any) -> list[Any]:
        return rules.decide(state_, seat, command)

    def legal(self, state_: state.State, seat: int) -> list[Any]:
        return rules.legal(state_, seat)

    def to_act(self, state_: state.State) -> set[int]:
        return rules.to_act(state_)

    def view(self, state_: state.State, seat: int | None) -> view.View:
        return view.view(state_, seat)

    def redact(self, event: Any, seat: int | None) -> Any:
        return view.redact(event, seat)

    def result(self, state_: state.State) -> Result | None:
        return rules.result(state_)


game = Famiglia()
