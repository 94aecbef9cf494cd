"""The API's request and response bodies: msgspec types that both validate requests and
generate the OpenAPI document (``api.openapi``), so the two cannot drift apart.

Fields typed ``Any`` hold one game's own types (a view, a command, an event); the OpenAPI
document describes them as ``anyOf`` the games' schemas (``api.openapi.GAME_FIELDS``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from domain.core import Result
from domain.table import TableView
from services.games.chat import ChatMessage
from services.games.clocks import (
    MAX_BANK,
    MAX_INCREMENT,
    MAX_PER_MOVE,
    MIN_CLOCK,
    Bank,
    OnTimeout,
    PerMove,
)
from services.games.commandinput import MAX_COMMAND_ID
from services.identity.players import MAX_NAME

Name = Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_NAME)]
Seat = Annotated[int, msgspec.Meta(ge=0, le=63)]
Version = Annotated[int, msgspec.Meta(ge=0)]
AiLevel = Annotated[
    str,
    msgspec.Meta(
        max_length=20,
        description="an AI level: random, greedy, and where the game offers them (GET /games: "
        "ai_levels) medium (searches 0.1 s a move) and expert (searches 1 s a move)",
    ),
]
BotLevel = Annotated[str, msgspec.Meta(max_length=20, description="a bot level: random, greedy")]


class _In(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    pass


class NewPlayer(_In):
    """Create a player. When the request's cookie already names a player, ``replace`` must
    be true to make a new one in its place (the old identity lived only in that cookie)."""

    name: Name
    replace: bool = False


class NoClockIn(_In, tag="none", tag_field="type"):
    """No clock."""


def _seconds(low: int, high: int) -> msgspec.Meta:
    """Seconds from ``low`` to ``high``, as the document shows them; the service checks them
    (400 ``bad_clock`` with the bounds in ``params``, not a schema's ``invalid_body``)."""
    return msgspec.Meta(extra_json_schema={"minimum": low, "maximum": high})


class PerMoveIn(_In, tag="per_move", tag_field="type"):
    """A limit per move: every stretch of owing a decision gets ``seconds`` (a minute to 30
    days)."""

    seconds: Annotated[int, _seconds(MIN_CLOCK, MAX_PER_MOVE)]


class BankIn(_In, tag="bank", tag_field="type"):
    """A time bank (seconds): ``initial`` (a minute to 60 days) to spend over the game,
    ``increment`` (up to 7 days) added after each move, the total capped at ``cap`` (default:
    ``initial``; at least ``initial``)."""

    initial: Annotated[int, _seconds(MIN_CLOCK, MAX_BANK)]
    increment: Annotated[int, _seconds(0, MAX_INCREMENT)] = 0
    cap: Annotated[int, _seconds(MIN_CLOCK, MAX_BANK)] | None = None


class OnTimeoutIn(_In):
    """What a seat's time-out does: ``takeover`` (default; a bot of ``level`` plays the seat on)
    or ``forfeit`` (2 players: the game ends as a loss for that seat; 3-4: a bot plays on and
    the seat's result is unrated)."""

    policy: Literal["takeover", "forfeit"] = "takeover"
    level: BotLevel = "greedy"


class NewGame(_In):
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


class JoinGame(_In):
    """Take a seat: the invite's, or (no invite) the lowest open seat of a public game."""

    invite: Annotated[str, msgspec.Meta(min_length=1, max_length=200)] | None = None


class ChatIn(_In):
    """A chat message: 1 to 500 characters once line breaks and tabs are made spaces and
    other control characters dropped (else 400 ``bad_chat``); a seated player's only."""

    # Any: a text that is no string is the chat's own refusal (bad_chat), not invalid_body.
    text: Annotated[Any, msgspec.Meta(extra_json_schema={"type": "string", "minLength": 1})]


class CommandIn(_In):
    """A move. ``command`` is one of the game's commands (``legal`` lists them). With
    ``expected_version`` the command is refused (409) unless the game is still at that version.
    ``seat``, if sent, must be the caller's own."""

    command: Any
    expected_version: Version | None = None
    seat: Seat | None = None


class PlayerOut(msgspec.Struct, frozen=True):
    id: str
    name: str
    created: int


class PlayerCreated(msgspec.Struct, frozen=True):
    """The token is shown only here: the server keeps only its hash."""

    id: str
    name: str
    token: str


class SignIn(_In):
    """Sign in on this device with the player's sign-in link (the part after ``#``) or their
    recovery code (any case, dashes and spaces ignored)."""

    link: Annotated[str, msgspec.Meta(min_length=1, max_length=200)] | None = None
    code: Annotated[str, msgspec.Meta(min_length=1, max_length=40)] | None = None


class SignedIn(msgspec.Struct, frozen=True):
    """The new device's token is shown only here: the server keeps only its hash."""

    id: str
    name: str
    token: str
    device: str


class SignInLink(msgspec.Struct, frozen=True):
    """The sign-in link and recovery code, shown only here (the server keeps their hashes);
    ``qr`` is the link as a QR code (SVG)."""

    link: str
    code: str
    created: int
    qr: str


class SignInState(msgspec.Struct, frozen=True):
    """When the player's sign-in link and code were made; null when there are none."""

    created: int | None


class DeviceOut(msgspec.Struct, frozen=True):
    id: str
    label: str
    created: int
    used: int  # ms of the last use (updated at most once a minute)
    current: bool  # the device that asks


class DeviceList(msgspec.Struct, frozen=True):
    devices: list[DeviceOut]


class SignOut(_In):
    """Sign out every device but the one that asks (``others``), or every one (``all``)."""

    devices: Literal["others", "all"]


class SignedOut(msgspec.Struct, frozen=True):
    signed_out: int


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


class RematchOut(msgspec.Struct, frozen=True):
    """A finished game's rematch (``game_id``), the player who asked for it, and the caller's
    seat in it (taken now, if it was reserved for them)."""

    game_id: str
    by: str
    seat: int


class ChatOut(msgspec.Struct, frozen=True):
    game_id: str
    messages: list[ChatMessage]


class ViewOut(msgspec.Struct, frozen=True):
    """What the caller's seat (None: a spectator) may see at ``version``: the game's own view,
    and the table's part (as in GET /games/{id})."""

    game_id: str
    game: str
    version: int
    seat: int | None
    view: Any
    table: TableView


class LegalOut(msgspec.Struct, frozen=True):
    """The game's own moves the seat may send at ``version``; never the table's commands
    (concede, draws, undo: the game's ``table`` says which apply)."""

    game_id: str
    version: int
    seat: int
    commands: list[Any]


class Accepted(msgspec.Struct, frozen=True):
    """The command's events are versions ``first`` to ``version`` (none if first > version);
    ``duplicate``: an earlier request with this Idempotency-Key stored them. What follows at
    ``version``, to save a request: ``to_act``, the seats owing a decision, and ``legal``, the
    caller's moves (as ``GET .../legal`` would list them: not the table's commands); both null
    for a duplicate."""

    game_id: str
    command_id: str
    version: int
    first: int
    duplicate: bool
    to_act: list[int] | None
    legal: list[Any] | None


class EventOut(msgspec.Struct, frozen=True):
    """One event of the history, as the caller may see it (everything once the game is over).
    ``command_id`` is the caller's own key for its own commands; another seat's command shows
    ``#<version>`` (the version of its first event in the answer), ``""`` the game's creation.

    `prev` and `hash` chain the game's events: `prev` of version 1 is 64 zeros, `prev` of
    version v is the `hash` of version v-1, and `hash` is the hex SHA-256 of the event's record
    as the server stores it (MessagePack, which no answer carries: the event in it is
    unredacted). A client checks that the chain is unbroken and that a later copy of the
    history extends the one it holds (the same `hash` at the same version); any change to a
    stored event breaks the chain from there on."""

    version: int
    type: str
    time: int
    actor: int | None
    command_id: str
    prev: str
    hash: str
    event: Any


class HistoryOut(msgspec.Struct, frozen=True):
    game_id: str
    game: str
    seat: int | None
    events: list[EventOut]


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


class GameChange(msgspec.Struct, frozen=True):
    game_id: str
    version: int


class InboxEvent(msgspec.Struct, frozen=True):
    """A player stream's message: the games waiting for the player, and which games changed."""

    count: int
    games: list[GameChange]


class Seen(msgspec.Struct, frozen=True):
    """The version of a game the player has seen (``PUT``): kept if newer than the stored."""

    version: Version


class SeenOut(msgspec.Struct, frozen=True):
    """What the player has now seen of the game, and what they had seen before (0: nothing)."""

    version: int
    previous: int


class Health(msgspec.Struct, frozen=True, omit_defaults=True):
    """``degraded`` (asked for with ``?degraded=ok``): the store answers but some shards refuse
    writes, or some masters have no replica."""

    status: Literal["ok", "degraded"]
    refused_shards: list[int] = []
    masters_without_replicas: list[str] = []


COMMAND_ID_HEADER = "Idempotency-Key"
MAX_IDEMPOTENCY_KEY = MAX_COMMAND_ID
