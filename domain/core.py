"""What every game shares: the protocol, rule violations, secrets and results."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence
from types import ModuleType
from typing import Any, Protocol, TypeVar

import msgspec


class RuleViolation(Exception):
    """A command the rules refuse. ``code`` is stable (clients match on it); ``message`` is
    for the player, in English, and must not reveal hidden information. ``params`` are the
    values the message names (plain JSON values: cards, amounts, seats), so that a page can
    render the refusal from its own message catalogue in the player's language."""

    def __init__(self, code: str, message: str, **params: str | int | list[str] | None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.params = params


class HistoryMismatch(RuleViolation):
    """An event that contradicts the state (e.g. revealed cards not matching the seeded deck)."""

    def __init__(self, message: str) -> None:
        super().__init__("history_mismatch", message)


class Secret(msgspec.Struct, frozen=True):
    """The per-game secret the shuffles come from. ``salt`` keeps a short or guessable seed from
    being found by hashing candidates against the published commitment."""

    seed: bytes
    salt: bytes


def commitment(secret: Secret) -> str:
    """sha256(salt || seed), hex: published when the game starts, checked when it ends."""
    return hashlib.sha256(secret.salt + secret.seed).hexdigest()


def check_commitment(secret: Secret, published: str) -> bool:
    return hmac.compare_digest(commitment(secret), published)


OptionsT = TypeVar("OptionsT", bound=msgspec.Struct)


def preset_options(
    raw: dict[str, Any] | None, presets: dict[str, dict[str, Any]], options_type: type[OptionsT]
) -> OptionsT:
    """Options from plain data with a ``preset``: the named preset (default: the first of
    ``presets``) sets its options first, and options named beside it override the preset.
    Raises RuleViolation("bad_options") for an unknown preset or an invalid option."""
    raw = dict(raw or {})
    preset = raw.pop("preset", next(iter(presets)))
    if not isinstance(preset, str) or preset not in presets:
        presets_named = sorted(presets)
        raise RuleViolation(
            "bad_options",
            f"unknown preset {preset!r}; choose one of {presets_named}",
            case="unknown_preset",
            preset=str(preset),
            presets=presets_named,
        )
    try:
        return msgspec.convert({**presets[preset], **raw}, options_type)
    except msgspec.ValidationError as exc:
        raise RuleViolation(
            "bad_options", f"invalid rule options: {exc}", case="invalid", error=str(exc)
        ) from None


class Result(msgspec.Struct, frozen=True):
    """A finished game: one score per seat, the winning seats (several on a shared win or a
    draw), and ``reason`` naming the end condition of the rules page."""

    scores: list[int]
    winners: list[int]
    reason: str
    details: dict[str, Any] = {}


class Game(Protocol):
    """The decider protocol of DESIGN.md, with OpenSpiel-style legal actions and views.

    ``evolve`` never mutates the state it is given (old states stay valid), ``decide`` never
    mutates anything, and ``view``/``legal`` read only what that seat may know.
    """

    name: str
    min_seats: int
    max_seats: int
    Options: type[msgspec.Struct]
    Command: Any  # a msgspec tagged union
    Event: Any  # a msgspec tagged union

    def options(self, raw: dict[str, Any] | None) -> msgspec.Struct:
        """Validated options from plain data; raises RuleViolation("bad_options", ...)."""

    def start(self, seats: int, seed: Secret, options: msgspec.Struct) -> list[Any]: ...

    def evolve(self, state: Any | None, event: Any) -> Any: ...

    def decide(self, state: Any, seat: int, command: Any) -> list[Any]: ...

    def legal(self, state: Any, seat: int) -> list[Any]: ...

    def to_act(self, state: Any) -> set[int]: ...

    def view(self, state: Any, seat: int | None) -> msgspec.Struct: ...

    def redact(self, event: Any, seat: int | None) -> Any:
        """The event as that seat (None: a spectator) may see it while the game is running."""

    def result(self, state: Any) -> Result | None: ...


def without_secret(event: Any, started: type[Any]) -> Any:
    """The creation event (of type ``started``) with its secret removed; any other event as is.
    Both games keep their only running secret, the seed, in that event."""
    if isinstance(event, started) and event.secret is not None:
        return msgspec.structs.replace(event, secret=None)
    return event


class GamePackage:
    """A game assembled from its package's modules: every game package has the same files
    (``messages``: Options, Command, Event; ``state``: evolve; ``rules``: options, start, decide,
    legal, to_act, result; ``view``: view, redact; ``table_hooks``: which events reveal or are
    automatic steps, and the standing, for ``domain.table``), so one class serves them all."""

    def __init__(
        self,
        name: str,
        min_seats: int,
        max_seats: int,
        messages: ModuleType,
        state: ModuleType,
        rules: ModuleType,
        view: ModuleType,
        table_hooks: ModuleType,
    ) -> None:
        self.name = name
        self.min_seats = min_seats
        self.max_seats = max_seats
        self.Options = messages.Options
        self.Command = messages.Command
        self.Event = messages.Event
        self.options = rules.options
        self.start = rules.start
        self.evolve = state.evolve
        self.decide = rules.decide
        self.legal = rules.legal
        self.to_act = rules.to_act
        self.result = rules.result
        self.view = view.view
        self.redact = view.redact
        self.table_hooks = table_hooks  # what domain.table needs beyond the protocol

    def __repr__(self) -> str:
        return f"<game {self.name}>"


def replay(game: Game, events: Sequence[Any], state: Any | None = None) -> Any:
    """Fold ``events`` into ``state`` (None: from the start of the game)."""
    for event in events:
        state = game.evolve(state, event)
    return state
