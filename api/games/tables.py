"""A game's table as the API shows it: who sits where (players with their names, AI, open
seats), from the command service (one game, current) or the workers' read models (lists)."""

from __future__ import annotations

import hashlib

from api.schemas.games import GameEntry, SeatOut
from services.games.reading import Loaded
from services.games.seating import ai_levels, taken_over
from services.identity.players import Players
from services.readside.readmodels import Summary

# The AI seats' names: two bots at one table are told apart everywhere (seats, log, result,
# lists). Each game takes them in turn from its own starting point, so they are distinct within
# a game (up to this many AI seats) and the same in every list and page that shows the game.
BOT_NAMES = (
    "Vito",
    "Carmela",
    "Sonny",
    "Lucky",
    "Bugsy",
    "Nico",
    "Rosa",
    "Salvo",
    "Frankie",
    "Enzo",
    "Dolores",
    "Tommy",
)


def bot_names(
    game_id: str, ai_seats: list[int], taken_over: list[int] | None = None
) -> dict[int, str]:
    """The bots' names: the AI seats chosen at creation first, then the seats bots took over
    (so a takeover renames no bot that was there before)."""
    start = int.from_bytes(hashlib.sha256(game_id.encode()).digest()[:4], "big")
    ordered = [*sorted(ai_seats), *sorted(taken_over or [])]
    return {seat: BOT_NAMES[(start + i) % len(BOT_NAMES)] for i, seat in enumerate(ordered)}


def seat_list(
    players: Players, game_id: str, loaded: Loaded, reserved: dict[int, str]
) -> list[SeatOut]:
    """The seats. A seat a bot took over is an AI seat with the name and id of the person it was
    taken over from (the pages show "Ann (AI, greedy)"); only an open seat's takeover gets a
    bot's name. ``reserved``: a rematch's seats kept for their players
    (``services.games.rematch``)."""
    taken = players.seats(game_id)
    names = players.names([*taken.values(), *reserved.values()])
    levels = ai_levels(loaded.meta, loaded.state)
    bots = bot_names(game_id, list(loaded.meta.ai), taken_over(loaded.meta, loaded.state))
    out = []
    for seat in range(loaded.meta.seats):
        if seat in levels:  # a person's seat a bot took over keeps the person's name
            owner = taken.get(seat)
            name = names.get(owner) if owner else bots[seat]
            out.append(SeatOut(seat, "ai", player=owner, name=name, level=levels[seat]))
        elif seat in taken:
            owner = taken[seat]
            out.append(SeatOut(seat, "player", player=owner, name=names.get(owner)))
        elif seat in reserved:
            owner = reserved[seat]
            out.append(SeatOut(seat, "reserved", player=owner, name=names.get(owner)))
        else:
            out.append(SeatOut(seat, "open"))
    return out


def entries(players: Players, summaries: list[Summary], player_id: str | None) -> list[GameEntry]:
    """Read-model summaries as the API's list entries, with the players' names."""
    names = players.names(s.player for g in summaries for s in g.seats if s.player)
    out = []
    for game in summaries:
        ai = [s for s in game.seats if s.kind == "ai"]
        bots = bot_names(
            game.game_id,
            [s.seat for s in ai if s.player is None],
            [s.seat for s in ai if s.player is not None],  # taken over from a person
        )
        seats = [
            SeatOut(
                s.seat,
                s.kind,
                s.player,
                names.get(s.player) if s.player else bots.get(s.seat),
                s.level,
            )
            for s in game.seats
        ]
        mine = next((s.seat for s in seats if player_id and s.player == player_id), None)
        out.append(
            GameEntry(
                game_id=game.game_id,
                game=game.game,
                version=game.version,
                created=game.created,
                seats=seats,
                to_act=game.to_act,
                your_seat=mine,
                over=game.status == "finished",
                result=game.result,
                # Not waiting for its person: a bot plays a seat taken over.
                waiting_since=None if mine is None or mine in bots else game.due.get(mine),
                clock=game.clock,
                on_timeout=game.on_timeout,
                deadlines={c.seat: c.deadline for c in game.clocks if c.deadline is not None},
            )
        )
    return out
