"""A game's table as the API shows it: who sits where (players, AI, open seats)."""

from __future__ import annotations

from api.schemas import GameEntry, SeatOut
from services.commands import Loaded
from services.players import Players


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


def entry(players: Players, game_id: str, loaded: Loaded, player_id: str | None) -> GameEntry:
    seats = seat_list(players, game_id, loaded)
    mine = next((s.seat for s in seats if player_id and s.player == player_id), None)
    over = loaded.game.result(loaded.state) is not None
    return GameEntry(
        game_id=game_id,
        game=loaded.meta.game,
        version=loaded.version,
        created=loaded.meta.created,
        seats=seats,
        to_act=[] if over else sorted(loaded.game.to_act(loaded.state)),
        your_seat=mine,
        over=over,
    )
