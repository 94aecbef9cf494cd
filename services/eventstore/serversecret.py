"""The server's secret, and what is derived from it: the AI seats' seeds and the answers a
retried request gets again (``services.eventstore.idempotency``).

A bot (``domain.bots``) is a pure function of a seat's view, its legal commands and a seed. The
seed must be the same every time one move is computed (AI jobs are retried, and copies of one
job may race: each must choose the same command), and nobody outside may compute it: the game
id, the version and the seat are public, so a seed made of them alone lets a player predict
the random bot's every choice. The seed is HMAC-SHA256 of the secret over those three.

The secret is ``OMERTA_SECRET`` when the operator sets it, else a random one that the first
process to need it writes into the store (``omerta:secret``, SET NX: every process of the
deployment then reads the same one). A process has one ``ServerSecret``, made by the composition
root (``bootstrap``) from its settings and handed to what derives from it. It never leaves the
server: no answer, log or event carries it, nor the seeds.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from typing import cast

from services.eventstore.store import unavailable
from services.platform.config import Store

SECRET_KEY = "omerta:secret"


class ServerSecret:
    """The deployment's secret: ``configured`` (the settings' ``secret``) when set, else the
    store's. The store's is read on every ``key()``, not kept: it is made by whichever process
    needs it first."""

    def __init__(self, client: Store, configured: str | None = None) -> None:
        self.client = client
        self.configured = configured

    def key(self) -> bytes:
        """The secret: configured, or the store's (made now if it has none)."""
        if self.configured:
            return self.configured.encode()
        fresh = secrets.token_hex(32)
        with unavailable():
            earlier = cast(bytes | None, self.client.set(SECRET_KEY, fresh, nx=True, get=True))
        return earlier if earlier is not None else fresh.encode()


def derive(key: bytes, purpose: str, *parts: object) -> bytes:
    """32 bytes for ``purpose`` and ``parts``, which nobody without ``key`` can compute."""
    message = "|".join(str(p) for p in (purpose, *parts)).encode()
    return hmac.new(key, message, hashlib.sha256).digest()


def derive_token(key: bytes, purpose: str, *parts: object) -> str:
    """A secret token shaped like ``secrets.token_urlsafe(32)``, from ``derive``."""
    return base64.urlsafe_b64encode(derive(key, purpose, *parts)).rstrip(b"=").decode()


def bot_seed(key: bytes, game_id: str, version: int, seat: int) -> bytes:
    """The seed of ``seat``'s move at ``version`` of the game."""
    return derive(key, "bot", game_id, version, seat)
