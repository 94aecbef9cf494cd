"""Rate limits (Flask-Limiter, counting in the service's own Redis-compatible store), the cap on
one player's open public games and the cap on one client's open live-event streams.

Limited, each in its own window (``limits`` notation, e.g. ``"30 per hour"``; a ``;``-separated
list sets several):

| what | counted per | variable | default |
|---|---|---|---|
| ``POST /players`` | client address | ``OMERTA_LIMIT_PLAYERS`` | ``30 per hour`` |
| ``POST /games`` | player | ``OMERTA_LIMIT_GAMES`` | ``60 per hour`` |
| ``POST /games/{id}/join`` | player | ``OMERTA_LIMIT_JOINS`` | ``120 per hour`` |
| ``POST /games/{id}/commands`` | player | ``OMERTA_LIMIT_COMMANDS`` | ``300 per minute`` |
| ``POST /games/{id}/rematch`` | player | ``OMERTA_LIMIT_GAMES`` (counted apart) | ``60 per hour`` |
| ``POST /games/{id}/chat`` | player | ``OMERTA_LIMIT_CHAT`` | ``20 per minute`` |
| ``POST /games/{id}/review`` | player | ``OMERTA_LIMIT_REVIEWS`` | ``10 per hour`` |
| ``GET /games/{id}/events`` | player or address | ``OMERTA_LIMIT_STREAMS`` | ``120 per minute`` |
| ``GET /me/events`` | player | ``OMERTA_LIMIT_STREAMS`` | ``120 per minute`` |
| ``POST /signin`` | client address | ``OMERTA_LIMIT_SIGNIN`` | ``20 per hour`` |
| ``POST /signin`` | link or code sent | ``OMERTA_LIMIT_SIGNIN_SECRET`` | ``10 per hour`` |
| ``POST /me/email`` (mails a link) | player | ``OMERTA_LIMIT_EMAIL_ADDS`` | ``10 per hour`` |
| ``POST /signin/email`` | client address | ``OMERTA_LIMIT_SIGNIN_MAILS`` | ``20 per hour`` |
| ``POST /signin/email`` | address asked for | ``OMERTA_LIMIT_SIGNIN_MAILBOX`` | ``5 per hour`` |
| ``POST /signin/passkey/options`` | address | ``OMERTA_LIMIT_PASSKEY_OPTIONS`` | ``60 per hour`` |
| ``POST /signin/passkey`` | client address | ``OMERTA_LIMIT_SIGNIN_PASSKEY`` | ``20 per hour`` |
| ``POST``/``DELETE /me/vacation`` | player | ``OMERTA_LIMIT_VACATIONS`` | ``20 per day`` |

A sign-in attempt counts under the address and under the SHA-256 of the link or code it sends
(so one player's code tried from many addresses is bounded too); a mailed sign-in link asked for
counts under the address and under the hash of the email address (nobody's inbox flooded). A
passkey sign-in counts under the address: its options (each a challenge kept for minutes) and its
answers.

Streams open at once are capped too, per process (each counts its own, in memory): at most
``OMERTA_STREAMS_PER_CLIENT`` (default 20; 0: no cap) per player or address, game streams and
player streams (``/me/events``) counted apart (a game page holds one of each); one more answers 429
``too_many_streams`` with ``Retry-After`` (when the client's oldest stream ends: a stream stays
open at most ``stream_seconds``, 2 minutes). A stream's place is given back when it ends, or when
its client has gone (noticed at the next write: a keep-alive comment within seconds). A player
is known by the SHA-256 of the token sent (not the token itself: the counters' keys are no
secret); a request without one counts by address. ``OMERTA_OPEN_GAMES`` (default 10) caps the
public games with an open seat that a player sits in when creating another public one (409
``too_many_open_games``, checked by the creation itself, ``services.games.usecases``; 0: no
cap). ``OMERTA_RATE_LIMITS=off`` lifts every limit and both caps (the
test suite and the benchmarks set it). The settings are read with the others
(``services.platform.ratelimits``, ``Settings.rate_limits``).

The defaults are far above real play: the pages make one request per move and reconnect a stream
every 2 minutes. A refused request changes nothing (the check runs before the view) and answers 429
``rate_limited`` with ``Retry-After``. Behind a reverse proxy every client has the proxy's
address: set ``OMERTA_LIMIT_PROXIES`` to the number of proxies in front (each appends to
``X-Forwarded-For``), and the limits count the address the outermost one saw.
"""

from __future__ import annotations

import functools
import math
import threading
import time
from collections.abc import Callable
from typing import Any, cast

import msgspec
from flask import Flask, Response, request
from flask.typing import ResponseReturnValue, RouteCallable
from flask_limiter import Limiter, RequestLimit
from flask_limiter.errors import RateLimitExceeded
from flask_limiter.util import get_remote_address
from limits import parse_many
from redis.cluster import RedisCluster
from redis.connection import Connection, SSLConnection

from api.context import deps, token
from api.http.jsonio import body
from api.http.problems import ApiError, problem_response
from api.schemas.players import SignIn
from services.identity.devices import digest, normal_code
from services.identity.emails import address_hash
from services.platform.config import Store
from services.platform.ratelimits import VARIABLES, RateLimits

# The limited endpoints: setting -> (endpoint, variable).
ENDPOINTS = {
    name: (endpoint, VARIABLES[name])
    for name, endpoint in {
        "players": "players.create",
        "games": "games.create",
        "joins": "games.join",
        "commands": "games.command",
        "rematches": "rematch.rematch",
        "chat": "chat.post",
        "reviews": "reviews.ask_review",
        "streams": "events.stream",
        "signin": "devices.signin",
        "signin_secret": "devices.signin",
        "email_adds": "mail.add_email",
        "signin_mails": "mail.signin",
        "signin_mailbox": "mail.signin",
        "passkey_options": "passkeys.signin_options",
        "signin_passkey": "passkeys.signin",
        "vacations": "clocks.start_vacation",
        "vacation_ends": "clocks.end_vacation",
    }.items()
}

PLAYER_STREAM = "presence.player_stream"
STREAM_ENDPOINTS = (ENDPOINTS["streams"][0], PLAYER_STREAM)  # a game's, and a player's


def _address(proxies: int) -> Callable[[], str]:
    """The client's address: the peer's, or behind ``proxies`` trusted proxies the one the
    outermost appended to ``X-Forwarded-For`` (what a client writes in front of it is ignored)."""

    def address() -> str:
        header = request.headers.get("X-Forwarded-For", "")
        forwarded = [a.strip() for a in header.split(",") if a.strip()]
        if proxies and forwarded:
            return f"address:{forwarded[-min(proxies, len(forwarded))]}"
        return f"address:{get_remote_address()}"

    return address


def _client(address: Callable[[], str]) -> Callable[[], str]:
    """The player (by their token's hash), else the address."""

    def client() -> str:
        sent = token()
        return f"player:{digest(sent)}" if sent else address()

    return client


def _secret() -> str:
    """The sign-in link or recovery code a sign-in attempt sends, by its hash."""
    request.get_data(cache=True)  # kept for the view, which reads the body again
    try:
        sent = body(SignIn)
    except ApiError:
        return "secret:none"  # the view refuses it; still counted by address
    if sent.code:
        return f"secret:{digest(normal_code(sent.code) or sent.code)}"
    return f"secret:{digest(sent.link or '')}"


def _mailbox() -> str:
    """The email address a sign-in link is asked for, by its hash (the counter's key)."""
    try:
        sent = msgspec.json.decode(request.get_data(cache=True) or b"{}")  # kept for the view
    except msgspec.DecodeError:
        return "mailbox:none"  # the view refuses the body
    address = sent.get("address") if isinstance(sent, dict) else None
    return f"mailbox:{address_hash(address)}" if isinstance(address, str) else "mailbox:none"


def _breached(limit: RequestLimit) -> Response:
    retry = max(1, limit.reset_at - int(time.time()))
    response = problem_response(
        429,
        "rate_limited",
        f"too many requests: try again in {retry} seconds",
        params={"retry_after": retry},
    )
    response.headers["Retry-After"] = str(retry)
    return response


def _limit_view(
    limiter: Limiter, rule: str, key: Callable[[], str], view: RouteCallable
) -> RouteCallable:
    """``view`` counted by ``limiter`` under ``rule``, per ``key``."""
    # The service's views are synchronous: Flask's RouteCallable also takes coroutines, which
    # Flask-Limiter's decorator (generic in the view's own type) cannot take in one union.
    return limiter.limit(rule, key_func=key)(cast(Callable[..., ResponseReturnValue], view))


CLUSTER_OPTIONS = ("username", "password", "socket_timeout", "socket_connect_timeout")
"""What a cluster client's connections were made with that the limiter's own client takes."""


def storage(client: Store) -> tuple[str, dict[str, Any]]:
    """Flask-Limiter's storage (URI, options) in the service's store: on a single server through
    ``client``'s pool; on a Redis Cluster a cluster client of its own to the same nodes (each
    counter is one key: its scripts touch one slot)."""
    if not isinstance(client, RedisCluster):
        return "redis://", {"connection_pool": client.connection_pool}
    nodes = ",".join(f"{node.host}:{node.port}" for node in client.get_nodes())
    made = client.nodes_manager.connection_kwargs
    options = {name: made[name] for name in CLUSTER_OPTIONS if made.get(name) is not None}
    if issubclass(made.get("connection_class", Connection), SSLConnection):
        options["ssl"] = True
    return f"redis+cluster://{nodes}", options


def install(app: Flask, client: Store, settings: RateLimits) -> None:
    """Limit the app's endpoints, counting in the service's store (``storage``)."""
    if not settings.enabled:
        return
    address = _address(settings.proxies)
    client_key = _client(address)
    uri, options = storage(client)
    limiter = Limiter(
        client_key,
        app=app,
        storage_uri=uri,
        storage_options=options,
        key_prefix="omerta",
        on_breach=_breached,
        swallow_errors=True,  # a store that fails is the service's 503, not the limiter's 500
    )

    @app.errorhandler(RateLimitExceeded)
    def _limited(exc: RateLimitExceeded) -> Response:
        assert isinstance(exc.response, Response)  # on_breach always builds it (_breached)
        return exc.response

    for name, (endpoint, variable) in ENDPOINTS.items():
        rule = getattr(settings, name)
        try:
            parse_many(rule)
        except ValueError:
            # Flask-Limiter parses a rule at each request and would skip a bad one (logged).
            raise ValueError(
                f"{variable}: {rule!r} is no rate limit (e.g. '30 per hour')"
            ) from None
        # A new player, or one signing in, has no token yet.
        key = {
            "players": address,
            "signin": address,
            "signin_secret": _secret,
            "signin_mails": address,
            "signin_mailbox": _mailbox,
            "passkey_options": address,
            "signin_passkey": address,
        }.get(name, client_key)
        app.view_functions[endpoint] = _limit_view(limiter, rule, key, app.view_functions[endpoint])
    # The player streams: the game streams' rule, counted apart.
    app.view_functions[PLAYER_STREAM] = _limit_view(
        limiter, settings.streams, client_key, app.view_functions[PLAYER_STREAM]
    )
    if settings.streams_open:
        refusal = functools.partial(_too_many_streams, settings.streams_open)
        for stream in STREAM_ENDPOINTS:
            app.view_functions[stream] = one_of_most(
                app.view_functions[stream], OpenStreams(settings.streams_open), client_key, refusal
            )


def _too_many_streams(most: int, retry: int) -> Response:
    return problem_response(
        429,
        "too_many_streams",
        f"{most} live-event streams are open already: close one, or try again in {retry} seconds",
        params={"most": most, "retry_after": retry},
    )


class OpenStreams:
    """The live-event streams each client holds open in this process: their deadlines."""

    def __init__(self, most: int) -> None:
        self.most = most
        self._lock = threading.Lock()
        self._open: dict[str, list[float]] = {}

    def take(self, client: str, deadline: float) -> float | None:
        """Count a stream of ``client`` open until ``deadline`` (monotonic time); if the client
        already holds ``most``, count nothing and return the seconds until its first ends."""
        with self._lock:
            held = self._open.setdefault(client, [])
            if len(held) >= self.most:
                return max(0.0, min(held) - time.monotonic())
            held.append(deadline)
            return None

    def give_back(self, client: str, deadline: float) -> None:
        with self._lock:
            held = self._open[client]
            held.remove(deadline)
            if not held:
                del self._open[client]


def one_of_most(
    view: Callable[..., Any],
    streams: OpenStreams,
    client_key: Callable[[], str],
    refusal: Callable[[int], Response],
) -> Callable[..., Any]:
    """``view`` (a live-event stream) refused to a client that holds ``streams.most`` open, with
    ``refusal(seconds until its first ends)`` and that as ``Retry-After``; the place is given
    back when the response is closed (the stream ended, or its client left)."""

    @functools.wraps(view)
    def stream(*args: Any, **kwargs: Any) -> Any:
        client = client_key()
        deadline = time.monotonic() + deps().stream_seconds
        wait = streams.take(client, deadline)
        if wait is not None:
            retry = max(1, math.ceil(wait))
            response = refusal(retry)
            response.headers["Retry-After"] = str(retry)
            return response
        given_back = False

        def give_back() -> None:
            nonlocal given_back
            if not given_back:
                given_back = True
                streams.give_back(client, deadline)

        try:
            response = view(*args, **kwargs)
        except BaseException:
            give_back()
            raise
        response.call_on_close(give_back)
        return response

    return stream
