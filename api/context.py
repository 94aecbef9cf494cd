"""What the request handlers share: the command service, the players, the process's reader of
live events, the app's settings."""

from __future__ import annotations

from dataclasses import dataclass

from flask import current_app, request

from services.commands import CommandService
from services.fanout import Fanout
from services.players import Player, Players

COOKIE = "omerta_token"


@dataclass(frozen=True)
class Deps:
    service: CommandService
    players: Players
    stream_seconds: float  # how long one server-sent-events response stays open
    secure_cookies: bool  # behind HTTPS: cookies only over HTTPS
    fanout: Fanout  # wakes the live-event streams (api.sse)


def deps() -> Deps:
    return current_app.extensions["omerta"]


def token() -> str | None:
    """The bearer token, or the cookie the web pages use."""
    header = request.headers.get("Authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip()
    return request.cookies.get(COOKIE) or None


def caller() -> Player:
    """The authenticated player (401 without a valid token)."""
    return deps().players.authenticate(token())


def caller_or_none() -> Player | None:
    """The player if a token was sent (a bad one is still a 401), else None: a spectator."""
    sent = token()
    return deps().players.authenticate(sent) if sent else None


def seat_in(game_id: str) -> int | None:
    """The caller's seat in this game; None for a spectator (no token, or no seat here)."""
    player = caller_or_none()
    return None if player is None else deps().players.seat_of(game_id, player.id)
