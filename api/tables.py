"""A game's table as the API shows it: who sits where (players with their names, AI, open
seats), from the command service (one game, current) or the workers' read models (lists)."""

from __future__ import annotations

from api.schemas import GameEntry, SeatOut
from services.commands import Loaded
from services.players import Players
from services.readmodels import Summary


def seat_list(players: Players, game_id: str, loaded: Loaded) -> list[SeatOut]:
    taken = players.seats(game_id)
    names = players.names(taken.values())
    out = []
    for seat in range(loaded.meta.seats):
        if seat in loaded.meta.ai:
            out.append(SeatOut(seat, "ai", level=loaded.meta.ai[seat]))
        elif seat in taken:
            owner = taken[seat]
            out.append(SeatOut(seat, "player", player=owner, name=names.get(owner)))
        else:
            out.append(SeatOut(seat, "open"))
    return out


def entries(players: Players, summaries: list[Summary], player_id: str | None) -> list[GameEntry]:
    """Read-model summaries as the API's list entries, with the players' names."""
    names = players.names(s.player for g in summaries for s in g.seats if s.player)
    out = []
    for game in summaries:
        seats = [
            SeatOut(s.seat, s.kind, s.player, names.get(s.player) if s.player else None, s.level)
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
            )
        )
    return out
