"""The rate limits' settings (``api.http.limits`` applies them): each limited endpoint's rule and
the variable that sets it, the caps, the switch that lifts them all."""

from __future__ import annotations

from collections.abc import Mapping

import msgspec

SWITCH = "OMERTA_RATE_LIMITS"


class RateLimits(msgspec.Struct, frozen=True):
    enabled: bool = True
    players: str = "30 per hour"
    games: str = "60 per hour"
    joins: str = "120 per hour"
    commands: str = "300 per minute"
    streams: str = "120 per minute"
    open_games: int = 10
    proxies: int = 0
    streams_open: int = 20  # live-event streams one client holds open at once, per process
    signin: str = "20 per hour"
    signin_secret: str = "10 per hour"
    email_adds: str = "10 per hour"
    signin_mails: str = "20 per hour"
    signin_mailbox: str = "5 per hour"  # counted by the address's hash: nobody's inbox flooded
    passkey_options: str = "60 per hour"
    signin_passkey: str = "20 per hour"
    vacations: str = "20 per day"  # each start or end rewrites the clocks of the player's games
    vacation_ends: str = "20 per day"
    rematches: str = "60 per hour"  # a rematch makes a game: the creations' rule, counted apart
    chat: str = "20 per minute"
    reviews: str = "10 per hour"  # each asked for costs minutes of a worker's search


# Each rule's variable (the rematches count apart under the creations' rule).
VARIABLES = {
    "players": "OMERTA_LIMIT_PLAYERS",
    "games": "OMERTA_LIMIT_GAMES",
    "joins": "OMERTA_LIMIT_JOINS",
    "commands": "OMERTA_LIMIT_COMMANDS",
    "rematches": "OMERTA_LIMIT_GAMES",
    "chat": "OMERTA_LIMIT_CHAT",
    "reviews": "OMERTA_LIMIT_REVIEWS",
    "streams": "OMERTA_LIMIT_STREAMS",
    "signin": "OMERTA_LIMIT_SIGNIN",
    "signin_secret": "OMERTA_LIMIT_SIGNIN_SECRET",
    "email_adds": "OMERTA_LIMIT_EMAIL_ADDS",
    "signin_mails": "OMERTA_LIMIT_SIGNIN_MAILS",
    "signin_mailbox": "OMERTA_LIMIT_SIGNIN_MAILBOX",
    "passkey_options": "OMERTA_LIMIT_PASSKEY_OPTIONS",
    "signin_passkey": "OMERTA_LIMIT_SIGNIN_PASSKEY",
    "vacations": "OMERTA_LIMIT_VACATIONS",
    "vacation_ends": "OMERTA_LIMIT_VACATIONS",
}


def from_env(env: Mapping[str, str]) -> RateLimits:
    switch = env.get(SWITCH) or "on"
    if switch not in ("on", "off"):
        raise ValueError(f"{SWITCH} must be 'on' or 'off', not {switch!r}")
    default = RateLimits()
    rules = {
        name: env.get(variable) or getattr(default, name) for name, variable in VARIABLES.items()
    }
    return RateLimits(
        enabled=switch == "on",
        open_games=int(env.get("OMERTA_OPEN_GAMES") or default.open_games),
        streams_open=int(env.get("OMERTA_STREAMS_PER_CLIENT") or default.streams_open),
        proxies=int(env.get("OMERTA_LIMIT_PROXIES") or default.proxies),
        **rules,
    )
