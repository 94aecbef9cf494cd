"""Gangsta! (Yves Rosenbaum, 2019) for 2-4 players: see shared/rules/GANGSTA.md and
docs/gangsta.md (the readings chosen where the rules page is unclear)."""

from __future__ import annotations

from typing import Any

from domain.core import Result, Secret
from domain.gangsta import messages, rules, state, view
from domain.gangsta.messages import Options


class Gangsta:
    name = "gangsta"
    min_seats = rules.MIN_SEATS
    max_seats = rules.MAX_SEATS
    Options = Options
    Command = messages.Command
    Event = messages.Event

    def options(self, raw: dict[str, Any] | None) -> Options:
        return rules.options(raw)

    def start(self, seats: int, seed: Secret, options: Options) -> list[Any]:
        return rules.start(seats, seed, options)

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


game = Gangsta()
