"""What the request handlers share: the command service, the players, the store's client, the
read models, the process's reader of live events, the settings, RQ's queues (the container's,
``api.app.create_app``)."""

from __future__ import annotations

from dataclasses import dataclass

from flask import current_app, request

from services.eventstore.serversecret import ServerSecret
from services.games.chat import Chat
from services.games.commands import CommandService
from services.games.rematch import Rematches
from services.games.usecases import Tables
from services.identity.players import Player, Players, Unauthorized
from services.platform.config import Settings, Store
from services.platform.metrics import Metrics
from services.readside.fanout import Fanout
from services.readside.readmodels import ReadModels
from workers.queues import Queues

COOKIE = "omerta_token"


@dataclass(frozen=True)
class Deps:
    commands: CommandService
    players: Players
    store: Store  # the store's client: the API's own keys (sign-in mails, passkeys, clocks, ...)
    read_models: ReadModels
    settings: Settings  # the process's (secure cookies, vacations, reviews, the operator's pages)
    stream_seconds: float  # how long one server-sent-events response stays open
    fanout: Fanout  # wakes the live-event streams (api.live.sse)
    chat: Chat
    rematches: Rematches
    tables: Tables  # creating, joining and rematching games: one call each
    queues: Queues  # RQ's: the jobs a request enqueues (mails of links)
    metrics: Metrics  # the process's (services.platform.metrics)
    secret: ServerSecret  # the process's (services.eventstore.serversecret): mails' signatures


def deps() -> Deps:
    return current_app.extensions["omerta"]


def token() -> str | None:
    """The bearer token, or the cookie the web pages use."""
    header = request.headers.get("Authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip()
    return request.cookies.get(COOKIE) or None


# User-Agent words -> what a player calls the device, first match wins (order matters: Edge and
# Chrome both say "Chrome", Android says "Linux").
BROWSERS = (("Edg/", "Edge"), ("Firefox/", "Firefox"), ("Chrome/", "Chrome"),
            ("Safari/", "Safari"), ("curl/", "curl"), ("python-requests", "Python"))  # fmt: skip
SYSTEMS = (("Android", "Android"), ("iPhone", "iPhone"), ("iPad", "iPad"),
           ("Windows", "Windows"), ("Mac OS X", "macOS"), ("CrOS", "ChromeOS"),
           ("Linux", "Linux"))  # fmt: skip


def device_label() -> str:
    """The request's device as its User-Agent names it: "Firefox on Android"; "" if unknown."""
    agent = request.headers.get("User-Agent", "")
    browser = next((name for word, name in BROWSERS if word in agent), "")
    system = next((name for word, name in SYSTEMS if word in agent), "")
    return f"{browser} on {system}" if browser and system else browser or system


def session() -> tuple[Player, str]:
    """The authenticated player and the device that asks (401 without a valid token)."""
    return deps().players.session(token(), device_label())


def caller() -> Player:
    """The authenticated player (401 without a valid token)."""
    return session()[0]


def cookie_player() -> Player | None:
    """The player the request's cookie names; None without a cookie, or for one that names
    nobody any more (the device signed out elsewhere)."""
    sent = request.cookies.get(COOKIE)
    if not sent:
        return None
    try:
        return deps().players.session(sent, device_label())[0]
    except Unauthorized:
        return None


def caller_or_none() -> Player | None:
    """The player if a token was sent (a bad one is still a 401), else None: a spectator."""
    return caller() if token() else None


def seat_in(game_id: str) -> int | None:
    """The caller's seat in this game; None for a spectator (no token, or no seat here)."""
    player = caller_or_none()
    return None if player is None else deps().players.seat_of(game_id, player.id)
