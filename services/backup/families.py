"""Every key family the service writes, and what a backup does with it: the one place that says
what ``omerta export`` keeps.

* ``EXPORTED``: cannot be made again from anything else (the games' events and records, the
  players and their credentials as stored hashes, preferences, notification targets, chat, the
  notices under way...): the backup holds it, ``omerta import`` writes it back.
* ``REBUILT``: derived from the exported families; ``omerta import`` recreates it with
  ``omerta rebuild``'s projection (every read model, the ratings).
* ``TRANSIENT``: wake-ups, leases, counters, caches and RQ's own keys: after an import the
  workers' catch-up re-arms what matters (deadlines, owed AI moves, pending notices).

The patterns are regular expressions over the whole key; ``{…}`` is a hash tag (a game's,
a player's or a shard's). The families are matched in order and the first wins.
``tests/services/test_backup_families.py`` plays a broad scenario and fails on any key no
family matches: a new key family is classified here when it is added.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import NamedTuple


class Fate(StrEnum):
    EXPORTED = "exported"
    REBUILT = "rebuilt"
    TRANSIENT = "transient"


class Family(NamedTuple):
    name: str
    pattern: re.Pattern[bytes]
    fate: Fate
    owner: str  # the module that writes it (and documents its layout)


TAG = r"\{[^}]+\}"  # a hash tag: a game's, a player's or a shard's
REST = r"[^{}]+"  # a hash, a code, an id without a tag


def _family(name: str, pattern: str, fate: Fate, owner: str) -> Family:
    return Family(name, re.compile(pattern.replace("{T}", TAG).encode()), fate, owner)


E, R, T = Fate.EXPORTED, Fate.REBUILT, Fate.TRANSIENT

FAMILIES: tuple[Family, ...] = (
    # A game: its events (the hash chain) and records, beside the stream.
    _family("game events", r"game:{T}:events", E, "services.eventstore.keys"),
    _family("game meta", r"game:{T}:meta", E, "services.eventstore.keys"),
    _family("command records", r"game:{T}:commands(:\d+)?", E, "services.eventstore.keys"),
    _family("chat", r"game:{T}:chat", E, "services.games.chat"),
    _family("seats", r"game:{T}:(seats|invites|public|expired)", E, "services.games.seats"),
    _family("rematch", r"game:{T}:(reserved|rematch)", E, "services.games.rematch"),
    _family("clock revision", r"clock:{T}:rev", E, "services.games.vacation"),
    _family("AI error", r"ai:{T}:error", E, "services.readside.readmodels"),
    _family("AI search lease", r"ai:{T}:lease:\d+", T, "workers.projection.ai_due"),
    # Keyed creations (Idempotency-Key) and the server's secret (seeds and signatures).
    _family(
        "idempotency",
        r"idem:(players:" + REST + r"|{T}:(games|webhooks|join|chat):" + REST + ")",
        E,
        "services.eventstore.idempotency",
    ),
    _family("server secret", r"omerta:secret", E, "services.eventstore.serversecret"),
    # An archived game's marker: the export holds the game's keys in full, read from the
    # archive; the import writes them back into the store, and the archiving pass moves the
    # game out again (a new marker).
    _family("archived markers", r"archived:{T}", T, "services.eventstore.archive"),
    # A player: identity, credentials (hashes only), preferences, targets, seats, vacations.
    _family("player", r"player:{T}", E, "services.identity.players"),
    _family(
        "player records",
        r"player:{T}:(devices|used|signin|passkeys|email|webhooks|webhook-failures|push"
        r"|notify|seen|vacations|games)",
        E,
        "services.identity, services.notify, services.readside.seen, services.games",
    ),
    _family(
        "credentials", r"(token|session|signin|recovery|passkey):" + REST, E, "services.identity"
    ),
    _family("email owners and links", r"(email|mailtoken):" + REST, E, "services.identity.emails"),
    _family("passkey challenge", r"webauthn:" + REST, T, "services.identity.passkeys"),
    # Notices under way: the catch-up sends them after an import; sent marks stop a second one.
    _family("delivery record", r"notify:delivery:.+", E, "services.notify.notifications"),
    _family(
        "pending notices",
        r"notify:(pending|pending:push|mail:pending):{T}",
        E,
        "workers.notify.pending",
    ),
    _family("mail digests", r"notify:mail:{T}:.+", E, "workers.notify.mail"),
    # A finished game's review: costly to compute again (minutes of search), so kept; what is
    # owed is kept so the catch-up finishes it after an import, from the decisions analysed so
    # far (as costly); a job's progress report is not.
    _family("review", r"review:{T}", E, "services.readside.reviews"),
    _family("reviews owed", r"reviews:owed:{T}", E, "services.readside.reviews"),
    _family("review progress", r"review:{T}:progress", T, "services.readside.reviews"),
    _family("review decisions", r"review:{T}:decisions", E, "services.readside.reviews"),
    # Derived: every read model and the ratings (``omerta rebuild``).
    _family("read models", r"rm:.+", R, "services.readside"),
    # Wake-ups and bookkeeping of the workers; RQ's and the rate limiter's keys.
    _family(
        "shard feeds",
        r"(feed|inbox-feed|side-feed|changed|changed:wake):{T}",
        T,
        "services.eventstore.keys",
    ),
    _family(
        "worker leases",
        r"workers:(lease:{T}|lease-holders|alive(:.+)?|feed-cursor:{T})",
        T,
        "workers.projection",
    ),
    _family("RQ", r"rq:.+", T, "rq"),
    _family("rate limits", r"LIMITS?[:/].+", T, "api.http.limits (flask-limiter)"),
)


def family_of(key: bytes) -> Family | None:
    """The family of ``key``, or None for a key the service is not known to write."""
    for family in FAMILIES:
        if family.pattern.fullmatch(key):
            return family
    return None


def tag_of(key: bytes) -> bytes | None:
    """The hash tag of ``key`` (what decides its cluster slot), or None."""
    start = key.find(b"{")
    end = key.find(b"}", start + 1)
    return key[start + 1 : end] if start >= 0 and end > start + 1 else None
