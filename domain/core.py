"""What every game shares: the protocol, rule violations, secrets and results."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence
from types import ModuleType
from typing import Any, Generic, Never, NoReturn, Protocol, TypeVar

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


# A game's types: its state, its Command and Event unions (messages.py), and OptionsT.
S = TypeVar("S")
C = TypeVar("C")
E = TypeVar("E")
# The same, for the protocols of one module each that only take a state or an event.
_S_contra = TypeVar("_S_contra", contravariant=True)
_E_contra = TypeVar("_E_contra", contravariant=True)


class Game(Protocol[S, C, E, OptionsT]):
    """The decider protocol of DESIGN.md, with OpenSpiel-style legal actions and views.

    ``evolve`` never mutates the state it is given (old states stay valid), ``decide`` never
    mutates anything, and ``view``/``legal`` read only what that seat may know. Code that
    handles any game takes a bare ``Game`` (``Game[Any, Any, Any, Any]``).
    """

    name: str
    min_seats: int
    max_seats: int
    Options: type[OptionsT]
    # The unions C and E as values, for msgspec to decode into and typing.get_args to list.
    # Any: Python 3.11 has no type for a union as a value (PEP 747's TypeForm).
    Command: Any
    Event: Any

    def options(self, raw: dict[str, Any] | None) -> OptionsT:
        """Validated options from plain JSON; raises RuleViolation("bad_options", ...)."""

    def start(self, seats: int, seed: Secret, options: OptionsT) -> list[E]: ...

    def evolve(self, state: S | None, event: E) -> S: ...

    def decide(self, state: S, seat: int, command: C) -> list[E]: ...

    def legal(self, state: S, seat: int) -> list[C]: ...

    def to_act(self, state: S) -> set[int]: ...

    def view(self, state: S, seat: int | None) -> msgspec.Struct: ...

    def redact(self, event: E, seat: int | None) -> E:
        """The event as that seat (None: a spectator) may see it while the game is running."""

    def result(self, state: S) -> Result | None: ...


def unknown_event(event: Never, game: str) -> NoReturn:
    """An ``evolve``'s last ``case _:``, as ``typing.assert_never``: mypy reports an event type
    of the union that no ``case`` handles; at run time a value of no event type is a mismatch."""
    raise HistoryMismatch(f"not a {game} event: {type(event).__name__}")


def without_secret(event: E, started: type[msgspec.Struct]) -> E:
    """The creation event (of type ``started``, with a ``secret`` field) with its secret
    removed; any other event as is. Both games keep their only running secret, the seed, in
    that event."""
    if isinstance(event, started) and getattr(event, "secret", None) is not None:
        return msgspec.structs.replace(event, secret=None)
    return event


class Rules(Protocol[_S_contra, C, E, OptionsT]):
    """A game package's ``rules`` module."""

    def options(self, raw: dict[str, Any] | None) -> OptionsT: ...

    def start(self, seats: int, seed: Secret, options: OptionsT) -> list[E]: ...

    def decide(self, state: _S_contra, seat: int, command: C) -> list[E]: ...

    def legal(self, state: _S_contra, seat: int) -> list[C]: ...

    def to_act(self, state: _S_contra) -> set[int]: ...

    def result(self, state: _S_contra) -> Result | None: ...


class Fold(Protocol[S, _E_contra]):
    """A game package's ``state`` module."""

    def evolve(self, state: S | None, event: _E_contra) -> S: ...


class Views(Protocol[_S_contra, E]):
    """A game package's ``view`` module."""

    def view(self, state: _S_contra, seat: int | None) -> msgspec.Struct: ...

    def redact(self, event: E, seat: int | None) -> E: ...


class Hooks(Protocol[_S_contra, _E_contra]):
    """What the table (domain.table) needs to know of a game beyond its ``Game`` protocol:
    a game package's ``table_hooks`` module."""

    def reveals(self, event: _E_contra) -> bool:
        """Does the event reveal hidden information or shuffle (a card turned up or drawn, a
        private peek, a reshuffle, a deal)?"""

    def automatic(self, event: _E_contra) -> bool:
        """Is the event an automatic step of the rules, made by no one's choice?"""

    def standing(self, state: _S_contra) -> list[int]:
        """Each seat's score if the game were scored now (for a game ended by the table)."""

    def ended_view(self, state: _S_contra, seat: int | None) -> msgspec.Struct:
        """The game's view once the table ended it, shaped as at an end by the rules: over,
        no one to move, and what that end reveals revealed."""


class GamePackage(Generic[S, C, E, OptionsT]):
    """A game assembled from its package's modules: every game package has the same files
    (``messages``: Options, Command, Event; ``state``: evolve; ``rules``: options, start, decide,
    legal, to_act, result; ``view``: view, redact; ``table_hooks``: which events reveal or are
    automatic steps, and the standing, for ``domain.table``), so one class serves them all.
    mypy checks each module against its protocol (a module can implement one) and infers the
    game's types from them."""

    def __init__(
        self,
        name: str,
        min_seats: int,
        max_seats: int,
        messages: ModuleType,
        state: Fold[S, E],
        rules: Rules[S, C, E, OptionsT],
        view: Views[S, E],
        table_hooks: Hooks[S, E],
    ) -> None:
        self.name = name
        self.min_seats = min_seats
        self.max_seats = max_seats
        self.Options: type[OptionsT] = messages.Options
        self.Command: Any = messages.Command
        self.Event: Any = messages.Event
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


def replay(game: Game[S, C, E, OptionsT], events: Sequence[E], state: S | None = None) -> S:
    """Fold ``events`` into ``state`` (None: from the start of the game, which ``events`` then
    hold: a game has no state before its creation event)."""
    for event in events:
        state = game.evolve(state, event)
    if state is None:
        raise HistoryMismatch("no events to replay: a game begins with its creation event")
    return state
