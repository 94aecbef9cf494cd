"""A game's table as the API shows it: who sits where (players with their names, AI, open
seats), from the command service (one game, current) or the workers' read models (lists)."""

from __future__ import annotations

import hashlib

from api.schemas import GameEntry, SeatOut
from services.commands import Loaded
from services.players import Players
from services.readmodels import Summary

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


def bot_names(game_id: str, ai_seats: list[int]) -> dict[int, str]:
    start = int.from_bytes(hashlib.sha256(game_id.encode()).digest()[:4], "big")
    return {
        seat: BOT_NAMES[(start + i) % len(BOT_NAMES)] for i, seat in enumerate(sorted(ai_seats))
    }


def seat_list(
    players: Players, game_id: str, loaded: Loaded, reserved: dict[int, str]
) -> list[SeatOut]:
    """The seats; ``reserved``: a rematch's seats kept for their players (``services.rematch``)."""
    taken = players.seats(game_id)
    names = players.names([*taken.values(), *reserved.values()])
    bots = bot_names(game_id, list(loaded.meta.ai))
    out = []
    for seat in range(loaded.meta.seats):
        if seat in loaded.meta.ai:
            out.append(SeatOut(seat, "ai", name=bots[seat], level=loaded.meta.ai[seat]))
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
        bots = bot_names(game.game_id, [s.seat for s in game.seats if s.kind == "ai"])
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
                waiting_since=game.due.get(mine) if mine is not None else None,
            )
        )
    return out
