"""Games: creating one (seats, AI, options, clock, time-out policy), joining, the kinds on
offer, one game's state and the lists' entries."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from api.schemas.common import In, Seat
from domain.core import Result
from domain.table import TableView
from services.games.clocks import (
    MAX_BANK,
    MAX_INCREMENT,
    MAX_PER_MOVE,
    MIN_CLOCK,
    Bank,
    OnTimeout,
    PerMove,
)

AiLevel = Annotated[
    str,
    msgspec.Meta(
        max_length=20,
        description="an AI level: random, greedy, and where the game offers them (GET /games: "
        "ai_levels) medium (searches 0.1 s a move) and expert (searches 1 s a move)",
    ),
]
BotLevel = Annotated[str, msgspec.Meta(max_length=20, description="a bot level: random, greedy")]


class NoClockIn(In, tag="none", tag_field="type", frozen=True):
    """No clock."""


def _seconds(low: int, high: int) -> msgspec.Meta:
    """Seconds from ``low`` to ``high``, as the document shows them; the service checks them
    (400 ``bad_clock`` with the bounds in ``params``, not a schema's ``invalid_body``)."""
    return msgspec.Meta(extra_json_schema={"minimum": low, "maximum": high})


class PerMoveIn(In, tag="per_move", tag_field="type", frozen=True):
    """A limit per move: every stretch of owing a decision gets ``seconds`` (a minute to 30
    days)."""

    seconds: Annotated[int, _seconds(MIN_CLOCK, MAX_PER_MOVE)]


class BankIn(In, tag="bank", tag_field="type", frozen=True):
    """A time bank (seconds): ``initial`` (a minute to 60 days) to spend over the game,
    ``increment`` (up to 7 days) added after each move, the total capped at ``cap`` (default:
    ``initial``; at least ``initial``)."""

    initial: Annotated[int, _seconds(MIN_CLOCK, MAX_BANK)]
    increment: Annotated[int, _seconds(0, MAX_INCREMENT)] = 0
    cap: Annotated[int, _seconds(MIN_CLOCK, MAX_BANK)] | None = None


class OnTimeoutIn(In, frozen=True):
    """What a seat's time-out does: ``takeover`` (default; a bot of ``level`` plays the seat on)
    or ``forfeit`` (2 players: the game ends as a loss for that seat; 3-4: a bot plays on and
    the seat's result is unrated)."""

    policy: Literal["takeover", "forfeit"] = "takeover"
    level: BotLevel = "greedy"


class NewGame(In, frozen=True):
    """Create a game. ``ai`` maps AI seats to their level (0 random, 1 and up greedy, or the
    level's name: one of the game's ``ai_levels`` in ``GET /games``, 400 ``bad_ai_level``
    otherwise); the creator takes ``seat`` (default:
    the lowest seat not played by AI); every other seat gets an invite. A ``public`` game is
    listed in the lobby and anyone may take its open seats."""

    game: str
    seats: Annotated[int, msgspec.Meta(ge=1, le=64)]
    ai: dict[Seat, Annotated[int, msgspec.Meta(ge=0, le=100)] | AiLevel] = {}
    options: dict[str, Any] = {}
    seat: Seat | None = None
    public: bool = False
    clock: NoClockIn | PerMoveIn | BankIn | None = None
    on_timeout: OnTimeoutIn | None = None


class JoinGame(In, frozen=True):
    """Take a seat: the invite's, or (no invite) the lowest open seat of a public game."""

    invite: Annotated[str, msgspec.Meta(min_length=1, max_length=200)] | None = None


class GameKind(msgspec.Struct, frozen=True):
    name: str
    min_seats: int
    max_seats: int
    options: dict[str, Any]  # JSON Schema of the options (with its $defs)
    commands: dict[str, Any]  # JSON Schema of the commands
    presets: dict[str, dict[str, Any]]  # each preset the rules accept: the options it sets
    unavailable: list[str]  # options the rules name but refuse to switch on (not implemented)
    # the AI levels a game of this kind may seat (domain.bots.levels), weakest first
    ai_levels: list[str] = []


class Invite(msgspec.Struct, frozen=True):
    seat: int
    code: str
    url: str  # POST here with {"invite": code} to take the seat


class GameCreated(msgspec.Struct, frozen=True):
    game_id: str
    seat: int
    version: int
    invites: list[Invite]


class Joined(msgspec.Struct, frozen=True):
    game_id: str
    seat: int


class SeatOut(msgspec.Struct, frozen=True):
    seat: int
    kind: Literal["player", "ai", "open", "reserved"]  # reserved: a rematch's, for ``player``
    player: str | None = None  # player id (a reserved seat's: the player it waits for)
    name: str | None = None  # a player's name, or an AI seat's (distinct within a game)
    level: int | str | None = None  # AI level


class ClockOut(msgspec.Struct, frozen=True):
    """A seat's clock: ``bank`` ms of its allowance left (per move: the limit; bank: what was
    left when its running stretch began), ``since`` when that stretch began counting, and
    ``deadline`` (ms since the epoch, and ``deadline_iso``) when it runs out, vacations
    included: both null for a seat that owes no decision. ``paused``: its player is on
    vacation now (the deadline already counts the vacation's planned end)."""

    seat: int
    bank: int
    since: int | None
    deadline: int | None
    deadline_iso: str | None
    paused: bool = False


class GameOut(msgspec.Struct, frozen=True):
    """``clock`` is the time control (null: none) and ``on_timeout`` the time-out policy;
    ``clocks`` the seats of people's clocks as the read model had them at ``clocks_version``
    (empty without a clock)."""

    game_id: str
    game: str
    version: int
    created: int
    options: dict[str, Any]
    seats: list[SeatOut]
    to_act: list[int]
    your_seat: int | None
    result: Result | None
    table: TableView  # the table's part (bots, draw offer, undo) for the caller's seat
    clock: Bank | PerMove | None = None
    on_timeout: OnTimeout | None = None
    clocks: list[ClockOut] = []
    clocks_version: int | None = None
    rematch: str | None = None  # the id of the game's rematch, once one was asked for
    rematch_by: str | None = None  # the player who asked for it


class GameEntry(msgspec.Struct, frozen=True):
    """A game in the lobby or an inbox; ``result`` once it is over."""

    game_id: str
    game: str
    version: int
    created: int
    seats: list[SeatOut]
    to_act: list[int]
    your_seat: int | None
    over: bool
    result: Result | None = None
    # Since when (ms) the caller's seat has owed its decision without a break; None: it owes none.
    waiting_since: int | None = None
    clock: Bank | PerMove | None = None  # the time control (null: none)
    on_timeout: OnTimeout | None = None
    deadlines: dict[int, int] = {}  # seat -> its deadline (ms), seats of people owing a move


class GameList(msgspec.Struct, frozen=True):
    games: list[GameEntry]
