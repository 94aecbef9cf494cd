"""Games: the kinds on offer, creating and joining, views, legal commands, moves, history and
replay. Seats come from the caller's token (``services.identity.players``); a caller without a seat
in a
game is a spectator there and sees only what spectators see."""

from __future__ import annotations

import datetime as dt
import secrets
from typing import Any

import msgspec
from flask import Blueprint, Response, current_app, request, url_for

from api.context import caller, caller_or_none, deps, seat_in
from api.games.commands import refusal
from api.games.tables import seat_list
from api.http.jsonio import body, reply
from api.http.params import query_number
from api.http.problems import ApiError
from api.schemas.common import COMMAND_ID_HEADER
from api.schemas.games import (
    ClockOut,
    GameCreated,
    GameKind,
    GameOut,
    Invite,
    Joined,
    JoinGame,
    NewGame,
)
from api.schemas.play import Accepted, CommandIn, EventOut, HistoryOut, LegalOut, ViewOut
from domain import GAMES, bots
from domain.core import Game, RuleViolation, replay
from domain.table import table_view
from services.errors import BadRequest
from services.eventstore.store import now_ms
from services.games import vacation
from services.games.commandinput import AI_COMMAND_PREFIX
from services.games.commands import CommandService
from services.games.reading import Loaded
from services.games.usecases import Opened

bp = Blueprint("games", __name__)


# The presets the rules pages name: the description (every default) and the published game.
PRESET_NAMES = ("description", "published")


def _presets(game: Game) -> dict[str, dict[str, Any]]:
    """The options each preset resolves to, as the rules resolve them; a preset the game's
    rules do not accept is left out, so a client offers only what creation accepts."""
    presets = {"description": msgspec.to_builtins(game.options({}))}
    for name in PRESET_NAMES:
        try:
            presets[name] = msgspec.to_builtins(game.options({"preset": name}))
        except RuleViolation:
            continue
    return presets


def _unavailable(game: Game) -> list[str]:
    """The switches the rules refuse to turn away from their default (not implemented yet)."""
    defaults = msgspec.to_builtins(game.options({}))
    refused = []
    for key, value in defaults.items():
        if isinstance(value, bool):
            try:
                game.options({key: not value})
            except RuleViolation:
                refused.append(key)
    return refused


def _kinds() -> list[GameKind]:
    return [
        GameKind(
            name=name,
            min_seats=game.min_seats,
            max_seats=game.max_seats,
            options=msgspec.json.schema(game.Options),
            commands=msgspec.json.schema(game.Command),
            presets=_presets(game),
            unavailable=_unavailable(game),
            ai_levels=list(bots.levels(name)),
        )
        for name, game in sorted(GAMES.items())
    ]


KINDS = _kinds()


@bp.get("/games")
def kinds() -> Response:
    return reply(KINDS)


@bp.post("/games")
def create() -> Response:
    player = caller()
    new = body(NewGame)
    opened = deps().tables.create_game(player.id, new, request.headers.get(COMMAND_ID_HEADER))
    return _created(opened)


def _created(opened: Opened) -> Response:
    url = public_url(url_for("games.join", game_id=opened.game_id))
    invites = [Invite(s, code, url) for s, code in sorted(opened.invites.items())]
    location = url_for("games.show", game_id=opened.game_id)
    created = GameCreated(opened.game_id, opened.seat, opened.version, invites)
    return reply(created, 201, headers={"Location": location})


def public_url(path: str) -> str:
    """An absolute link on the configured public address (``OMERTA_PUBLIC_URL``): never on the
    request's Host header, which a client chooses."""
    return current_app.config["OMERTA_PUBLIC_URL"] + path


@bp.post("/games/<game_id>/join")
def join(game_id: str) -> Response:
    player = caller()
    sent = body(JoinGame)
    seat = deps().tables.join_game(game_id, player.id, sent, request.headers.get(COMMAND_ID_HEADER))
    return reply(Joined(game_id, seat))


@bp.get("/games/<game_id>")
def show(game_id: str) -> Response:
    d = deps()
    player = caller_or_none()
    loaded = d.commands.load(game_id)
    seats = seat_list(d.players, game_id, loaded, d.rematches.reserved(game_id))
    mine = next((s.seat for s in seats if player and s.player == player.id), None)
    result = loaded.game.result(loaded.state)
    rematch = d.rematches.of(game_id) if result is not None else None
    out = GameOut(
        game_id=game_id,
        game=loaded.meta.game,
        version=loaded.version,
        created=loaded.meta.created,
        options=loaded.meta.options,
        seats=seats,
        to_act=_to_act(loaded.game, loaded.state),
        your_seat=mine,
        result=result,
        table=table_view(loaded.state, mine),
        **game_clocks(game_id, loaded),
        rematch=rematch.game if rematch else None,
        rematch_by=rematch.by if rematch else None,
    )
    return reply(out)


CLOCKS_WAIT = 1.0  # seconds a game's answer waits for its projection, for fresh clocks


def game_clocks(game_id: str, loaded: Loaded) -> dict[str, Any]:
    """The time control, the policy and the seats' clocks (from the read model, which the
    projection keeps: ``services.games.clocks``), as ``GameOut`` fields."""
    meta = loaded.meta
    if meta.clock is None:
        return {}
    models = deps().read_models
    models.wait_for(game_id, loaded.version, CLOCKS_WAIT)
    summary = models.summary(game_id)
    if summary is None:
        return {"clock": meta.clock, "on_timeout": meta.on_timeout}
    owners = {s.seat: s.player for s in summary.seats if s.player}
    now = now_ms()
    out = []
    for c in summary.clocks:
        owner = owners.get(c.seat)
        paused = (
            owner is not None
            and vacation.running(vacation.periods(models.redis, owner), now) is not None
        )
        out.append(ClockOut(c.seat, c.bank, c.since, c.deadline, iso(c.deadline), paused))
    return {
        "clock": meta.clock,
        "on_timeout": meta.on_timeout,
        "clocks": out,
        "clocks_version": summary.version,
    }


def iso(ms: int | None) -> str | None:
    if ms is None:
        return None
    return dt.datetime.fromtimestamp(ms / 1000, dt.UTC).isoformat(timespec="milliseconds")


def _own_seat(game_id: str) -> int:
    player = caller()
    seat = deps().players.seat_of(game_id, player.id)
    if seat is None:
        deps().commands.load(game_id)  # an unknown game is a 404, not a 403
        raise ApiError(403, "not_seated", "you have no seat in this game")
    return seat


@bp.get("/games/<game_id>/view")
def view(game_id: str) -> Response:
    loaded = deps().commands.load(game_id)
    seat = seat_in(game_id)
    shown = loaded.game.view(loaded.state, seat)
    table = table_view(loaded.state, seat)
    return reply(ViewOut(game_id, loaded.meta.game, loaded.version, seat, shown, table))


def _moves(game: Game, state: Any, seat: int) -> list[Any]:
    """The seat's legal commands: none once the game is over."""
    return [] if game.result(state) is not None else game.legal(state, seat)


def _to_act(game: Game, state: Any) -> list[int]:
    return [] if game.result(state) is not None else sorted(game.to_act(state))


@bp.get("/games/<game_id>/legal")
def legal(game_id: str) -> Response:
    loaded = deps().commands.load(game_id)
    seat = _own_seat(game_id)
    return reply(LegalOut(game_id, loaded.version, seat, _moves(loaded.game, loaded.state, seat)))


@bp.post("/games/<game_id>/commands")
def command(game_id: str) -> Response:
    commands = deps().commands
    seat = _own_seat(game_id)
    sent = body(CommandIn)
    if sent.seat is not None and sent.seat != seat:
        raise ApiError(
            403,
            "not_your_seat",
            f"seat {sent.seat} is not yours (yours: {seat})",
            seat=str(sent.seat),  # as sent: any size of number
            yours=seat,
        )
    if not isinstance(sent.command, dict):  # the service would read a string as JSON
        raise refusal(commands.rules(game_id), sent.command, "a command is a JSON object")
    refuse_reserved(request.headers.get(COMMAND_ID_HEADER, ""))
    command_id = request.headers.get(COMMAND_ID_HEADER)
    if command_id is None:
        command_id = secrets.token_urlsafe(16)
    try:
        accepted = commands.handle(game_id, seat, sent.command, command_id, sent.expected_version)
    except BadRequest as exc:
        if exc.code != "bad_command":
            raise
        raise refusal(commands.rules(game_id), sent.command, exc.message) from None
    game, state = commands.rules(game_id), accepted.state
    known = state is not None
    out = Accepted(
        game_id,
        accepted.command_id,
        accepted.version,
        accepted.first,
        accepted.duplicate,
        to_act=_to_act(game, state) if known else None,
        legal=_moves(game, state, seat) if known else None,
    )
    return reply(out)


def refuse_reserved(command_id: str) -> None:
    """The AI seats' ids are theirs alone (ids are scoped by seat already: this keeps a player's
    own ids and the AI's apart in every history and log)."""
    if command_id.startswith(AI_COMMAND_PREFIX):
        raise ApiError(
            400,
            "reserved_command_id",
            f"an Idempotency-Key may not start with {AI_COMMAND_PREFIX!r}: those are the AI's",
            prefix=AI_COMMAND_PREFIX,
        )


def records(commands: CommandService, game_id: str, seat: int | None, after: int) -> list[EventOut]:
    """The events after ``after`` as ``seat`` may see them (services.games.commands.history)."""
    return [
        EventOut(r.version, r.type, r.time, r.actor, r.command_id, r.prev, r.hash, r.event)
        for r in commands.history(game_id, seat, after)
    ]


@bp.get("/games/<game_id>/history")
def history(game_id: str) -> Response:
    commands = deps().commands
    loaded = commands.load(game_id)
    seat = seat_in(game_id)
    events = records(commands, game_id, seat, query_number("after", 0))
    return reply(HistoryOut(game_id, loaded.meta.game, seat, events))


@bp.get("/games/<game_id>/replay/<int:version>")
def replay_view(game_id: str, version: int) -> Response:
    commands = deps().commands
    loaded = commands.load(game_id)
    seat = seat_in(game_id)
    if not 1 <= version <= loaded.version:
        raise ApiError(
            404,
            "unknown_version",
            f"the game has versions 1 to {loaded.version}, not {version}",
            version=str(version),  # as sent: any size of number
            last=loaded.version,
        )
    stored = commands.events(game_id)[:version]  # server side only: the view below is the output
    state = replay(loaded.game, [r.event for r in stored])
    shown = loaded.game.view(state, seat)
    return reply(ViewOut(game_id, loaded.meta.game, version, seat, shown, table_view(state, seat)))
