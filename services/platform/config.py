"""The settings: ``settings(env)`` reads them, once per process, from the environment the entry
point hands it (``bootstrap``); nothing else reads the environment. Connecting to the store they
name, or starting the embedded server, is ``services.platform.servers``.

| variable | meaning | default |
|---|---|---|
| ``REDIS_URL`` | the Redis/Valkey server to use | unset: an embedded server |
| ``REDIS_CLUSTER_URL`` | any node of a Redis/Valkey Cluster: the store is the cluster | unset |
| ``RQ_REDIS_URL`` | the server of RQ's queues (required with a cluster) | the store's |
| ``OMERTA_VAR`` | data directory of the embedded server (AOF, log) | ``./var`` |
| ``OMERTA_REDIS_PORT`` | fixed port of the embedded server | 0: a free port |
| ``OMERTA_FSYNC`` | ``appendfsync`` of the embedded server | ``always`` (no move ever lost) |
| ``OMERTA_MIN_REPLICAS`` | replicas that must have an append before it is acknowledged | 0 |
| ``OMERTA_REPLICA_TIMEOUT_MS`` | how long an append waits for them (else 503) | 1000 |
| ``OMERTA_ALLOW_RELAXED_DURABILITY`` | ``1``: no warning for AOF off or fsync not always | ``0`` |
| ``OMERTA_SECURE_COOKIES`` | ``1``: cookies are ``Secure`` (the service is behind HTTPS) | ``0`` |
| ``OMERTA_PUBLIC_URL`` | where players reach the service (invite links): ``http(s)://host`` | (a) |
| | with an optional ``:port`` and path prefix | |
| ``OMERTA_BIND`` | the web server's ``address:port`` (set by ``omerta serve --bind``) | (b) |
| ``OMERTA_WEB_CONNECTIONS`` | a web process's connections at once | 10000 |
| ``OMERTA_WEB_STREAMS`` | live-event streams among them (fewer: the rest is for requests) | 4/5 |
| ``OMERTA_SECRET`` | what AI seeds and replayed tokens derive from (``serversecret``) | (c) |
| ``OMERTA_LOG_LEVEL`` | ``INFO``: starts, stops, warnings; ``DEBUG``: every job too | ``INFO`` |
| ``OMERTA_LOG_FORMAT`` | ``text``, or ``json``: one JSON object a line (``logs``) | ``text`` |
| ``OMERTA_METRICS_TOKEN`` | bearer token of the web server's ``/metrics`` | unset: 404 |
| ``OMERTA_WORKER_METRICS_PORT`` | a worker's /metrics port on 127.0.0.1 | unset: none |
| ``OMERTA_WEBHOOKS_ALLOW_PRIVATE`` | ``1``: webhooks may call private, loopback addresses | ``0`` |
| ``OMERTA_WEBHOOK_TIMEOUT`` | seconds a webhook call may take | ``10`` |
| ``OMERTA_WEBHOOK_BACKOFF`` | seconds between a failed webhook call's retries | (d) |
| ``OMERTA_PUSH_ALLOW_PRIVATE`` | ``1``: push endpoints may be private, or http loopback | ``0`` |
| ``OMERTA_SMTP_URL`` | where mail goes: ``smtp://user:pass@host:port``, ``smtps://``: TLS | (e) |
| ``OMERTA_MAIL_FROM`` | the mails' ``From`` address | ``omerta@localhost`` |
| ``OMERTA_OPERATOR_TOKEN`` | bearer token of the operator's pages (``/operator/mail``) | (f) |
| ``OMERTA_SMTP_TIMEOUT`` | seconds each step of an SMTP exchange may take | ``30`` |
| ``OMERTA_MAIL_DIGEST_SECONDS`` | at most one notification mail per player and game in | (g) |
| ``OMERTA_VACATION_DAYS`` | days a year a player may pause their clocks (``vacation``) | ``21`` |
| ``OMERTA_OPEN_GAME_DAYS`` | days an open game waits for a player to join, then expires | ``14`` |
| ``OMERTA_MIN_CLOCK_SECONDS`` | the shortest clock a game may have (a move, a bank) | ``60`` |
| ``OMERTA_ARCHIVE_DAYS`` | days after its end a game moves to the archive (0: never) | ``30`` |
| ``OMERTA_REVIEW`` | ``off``: no review of each finished game (on request only) | ``on`` |
| ``OMERTA_REVIEW_ITERATIONS`` | the review's search iterations per decision | (i) |
| ``OMERTA_ARCHIVE_S3_URL`` | ``s3://bucket/prefix``: the archive is that bucket | (h) |
| | (credentials, endpoint: ``AWS_*`` variables, ``AWS_ENDPOINT_URL``) | |

(a) ``http://`` and the bind address; read by ``public_url()``.  (b) ``127.0.0.1:8000``.
(c) a random one, made once and kept in the store.  (d) ``10,60,300,1800,7200``.
(e) unset: mail is written to the maildir ``<var>/mail/`` (``services.notify.mail``).
(f) unset: the operator's pages answer only while no SMTP server is set and the public URL is a
loopback address (``omerta run``'s local default).
(g) ``3600`` seconds (``workers.notify.mail``: a digest).
(h) unset: one compressed file per game under ``<var>/archive/`` (``services.eventstore.archive``).
(i) unset: each game's own (``domain.review.ITERATIONS``): a bounded budget, never a time, so a
review is the same wherever and whenever it runs (``workers.review``).

The rate limits' variables (``OMERTA_RATE_LIMITS``, ``OMERTA_LIMIT_*``, ``OMERTA_OPEN_GAMES``) are
read by ``services.platform.ratelimits``, next to the limits they set; ``Settings.rate_limits``.
The public URL is kept as set and checked by ``public_url()``, which only the web server calls.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import SplitResult, urlsplit

import msgspec
import redis
from redis.cluster import RedisCluster

from services.games.clocks import MIN_CLOCK
from services.platform import ratelimits
from services.platform.ratelimits import RateLimits

DEFAULT_BIND = "127.0.0.1:8000"
# A web process's connections at once (gunicorn's worker_connections): a connection costs a
# greenlet and a file, an open stream about 28 KB (8,000 streams on two processes answered a
# move in 32 ms at the median).
WEB_CONNECTIONS = 10_000
# The share of them live-event streams may hold by default (OMERTA_WEB_STREAMS): the rest stays
# for requests, which open game pages must never starve (4/5: 8,000 streams, 4,000 pages with
# their game and player streams, and 2,000 connections for requests).
STREAM_SHARE = 0.8
# Open files a web process needs besides its connections and a store connection for each
# request at once: the listening socket, the store's reader of live events, logs, metrics files.
OPEN_FILES_SPARE = 256


class ConfigError(ValueError):
    """A setting the service cannot run with; the message names the variable."""


Store = redis.Redis | RedisCluster
"""What the services take as their store (``servers.connect``): one server's client, or a
cluster's."""


class Settings(msgspec.Struct, frozen=True):
    redis_url: str | None
    var: Path
    port: int
    fsync: str
    secure_cookies: bool
    secret: str | None  # never printed: the AI's seeds are made with it
    log_level: str
    log_format: str = "text"  # or "json" (services.platform.logs)
    metrics_token: str | None = None  # never printed: /metrics answers only with it
    worker_metrics_port: int | None = None  # a worker's /metrics on 127.0.0.1 (none: no server)
    min_replicas: int = 0
    replica_timeout_ms: int = 1000
    relaxed_durability: bool = False
    # Webhooks (services.notify.webhooks, workers.notify.webhooks)
    webhooks_allow_private: bool = False
    webhook_timeout: float = 10.0
    webhook_backoff: tuple[int, ...] = (10, 60, 300, 1800, 7200)
    # Browser push (services.notify.push, workers.notify.push): timeout and backoff are the
    # webhooks'
    push_allow_private: bool = False
    # Mail (services.notify.mail, workers.mailer)
    smtp_url: str | None = None  # never printed: it may carry the SMTP password
    mail_from: str = "omerta@localhost"
    operator_token: str | None = None  # never printed
    smtp_timeout: float = 30.0
    # Notification mails (workers.notify.mail)
    mail_digest_seconds: int = 3600
    vacation_days: int = 21
    # Days an open game nobody joined waits before it expires (workers.clocks.expiry); a fraction of
    # a day is allowed (tests use seconds)
    open_game_days: float = 14.0
    min_clock_seconds: int = MIN_CLOCK  # lower only for the tests of time-outs
    # The CPU priority (niceness) of a worker of the AI queue alone (workers.worker)
    ai_nice: int = 15
    # The niceness of a worker of the analysis queue alone: the lowest by default (a review,
    # bounded by iterations, only takes longer); a machine shared with CPU hogs (a CI run beside
    # a load) may want it higher, or a nice-19 review may wait for the hogs to end
    analysis_nice: int = 19
    # How long a worker's shard leases last unrenewed (workers.projection.leases): a dead worker's
    # shards wait this long for another; a worker paused longer (a stalled machine) loses them
    lease_seconds: int = 10
    # ``omerta run`` kills and restarts a worker child whose heartbeat file is this old (a hung or
    # stopped process); it names each child's file (``services.platform.lifeline.Heartbeat``)
    child_stale_seconds: int = 60
    heartbeat_file: Path | None = None
    # Finished games move to the archive this many days after their end (0: never), to files
    # under var/archive/ or to the S3 bucket (services.eventstore.archive)
    archive_days: float = 30.0
    archive_s3_url: str | None = None
    # Post-game reviews (workers.review): one per finished game unless off; the search budget
    review: bool = True
    review_iterations: int | None = None  # None: each game's own (domain.review.ITERATIONS)
    cluster_url: str | None = None  # never printed: it may carry a password
    rq_url: str | None = None  # never printed: it may carry a password
    # A web process's connections at once, and how many of them live-event streams may hold
    web_connections: int = WEB_CONNECTIONS
    web_streams: int = int(WEB_CONNECTIONS * STREAM_SHARE)
    rate_limits: RateLimits = RateLimits()  # the web server's (api.http.limits)
    # OMERTA_PUBLIC_URL as set, and the web server's address: checked by public_url()
    public_url: str | None = None
    bind: str = DEFAULT_BIND


def settings(env: Mapping[str, str]) -> Settings:
    """The settings in ``env`` (the process's environment: the entry point's ``os.environ``)."""
    connections, streams = _web_capacity(env)
    return Settings(
        redis_url=env.get("REDIS_URL") or None,
        var=Path(env.get("OMERTA_VAR") or "var").resolve(),
        port=int(env.get("OMERTA_REDIS_PORT") or 0),
        fsync=env.get("OMERTA_FSYNC") or "always",
        secure_cookies=_flag(env.get("OMERTA_SECURE_COOKIES")),
        secret=env.get("OMERTA_SECRET") or None,
        log_level=(env.get("OMERTA_LOG_LEVEL") or "INFO").upper(),
        log_format=_log_format(env),
        metrics_token=env.get("OMERTA_METRICS_TOKEN") or None,
        worker_metrics_port=_port(env, "OMERTA_WORKER_METRICS_PORT"),
        min_replicas=int(env.get("OMERTA_MIN_REPLICAS") or 0),
        replica_timeout_ms=int(env.get("OMERTA_REPLICA_TIMEOUT_MS") or 1000),
        relaxed_durability=_flag(env.get("OMERTA_ALLOW_RELAXED_DURABILITY")),
        webhooks_allow_private=_flag(env.get("OMERTA_WEBHOOKS_ALLOW_PRIVATE")),
        webhook_timeout=float(env.get("OMERTA_WEBHOOK_TIMEOUT") or 10.0),
        webhook_backoff=tuple(
            int(s) for s in (env.get("OMERTA_WEBHOOK_BACKOFF") or "10,60,300,1800,7200").split(",")
        ),
        push_allow_private=_flag(env.get("OMERTA_PUSH_ALLOW_PRIVATE")),
        smtp_url=env.get("OMERTA_SMTP_URL") or None,
        mail_from=env.get("OMERTA_MAIL_FROM") or "omerta@localhost",
        operator_token=env.get("OMERTA_OPERATOR_TOKEN") or None,
        smtp_timeout=float(env.get("OMERTA_SMTP_TIMEOUT") or 30.0),
        mail_digest_seconds=_at_least_one(env, "OMERTA_MAIL_DIGEST_SECONDS", 3600),
        vacation_days=_days(env, "OMERTA_VACATION_DAYS", 21),
        open_game_days=_some_days(env, "OMERTA_OPEN_GAME_DAYS", 14.0),
        min_clock_seconds=_at_least_one(env, "OMERTA_MIN_CLOCK_SECONDS", MIN_CLOCK),
        ai_nice=_niceness(env, "OMERTA_AI_NICE", 15),
        analysis_nice=_niceness(env, "OMERTA_ANALYSIS_NICE", 19),
        lease_seconds=_at_least_one(env, "OMERTA_LEASE_SECONDS", 10),
        child_stale_seconds=_at_least_one(env, "OMERTA_CHILD_STALE_SECONDS", 60),
        heartbeat_file=_path(env, "OMERTA_HEARTBEAT_FILE"),
        archive_days=_archive_days(env.get("OMERTA_ARCHIVE_DAYS") or "30"),
        archive_s3_url=_s3_url(env.get("OMERTA_ARCHIVE_S3_URL") or None),
        review=_on_off(env, "OMERTA_REVIEW"),
        review_iterations=_iterations(env, "OMERTA_REVIEW_ITERATIONS"),
        **_servers(env),
        web_connections=connections,
        web_streams=streams,
        rate_limits=_rate_limits(env),
        public_url=env.get("OMERTA_PUBLIC_URL") or None,
        bind=env.get("OMERTA_BIND") or DEFAULT_BIND,
    )


def _rate_limits(env: Mapping[str, str]) -> RateLimits:
    try:
        return ratelimits.from_env(env)
    except ValueError as exc:  # a bad switch or number: the start stops, as for any setting
        raise ConfigError(str(exc)) from None


def web_connections(env: Mapping[str, str]) -> int:
    """``OMERTA_WEB_CONNECTIONS``: a web process's connections at once (two at least: one for a
    stream, one for requests)."""
    raw = env.get("OMERTA_WEB_CONNECTIONS") or str(WEB_CONNECTIONS)
    if not raw.isdigit() or int(raw) < 2:
        raise ConfigError(f"OMERTA_WEB_CONNECTIONS must be a whole number, 2 or more, not {raw!r}")
    return int(raw)


def _web_capacity(env: Mapping[str, str]) -> tuple[int, int]:
    """The connections and the live-event streams among them: fewer, so that requests always
    find a connection (the streams of open pages took them all and the site stopped
    answering)."""
    connections = web_connections(env)
    raw = env.get("OMERTA_WEB_STREAMS") or str(int(connections * STREAM_SHARE))
    if not raw.isdigit() or not 1 <= int(raw) < connections:
        raise ConfigError(
            f"OMERTA_WEB_STREAMS must be a whole number from 1 to fewer than "
            f"OMERTA_WEB_CONNECTIONS ({connections}): the rest is for requests; not {raw!r}"
        )
    return connections, int(raw)


def open_files_needed(config: Settings) -> int:
    """The open files a web process may need: its connections, a store connection for each
    request (streams hold none), and a spare."""
    requests = config.web_connections - config.web_streams
    return config.web_connections + requests + OPEN_FILES_SPARE


def _servers(env: Mapping[str, str]) -> dict[str, str | None]:
    cluster, rq = env.get("REDIS_CLUSTER_URL") or None, env.get("RQ_REDIS_URL") or None
    if cluster and env.get("REDIS_URL"):
        raise ConfigError("set REDIS_URL (one server) or REDIS_CLUSTER_URL (a cluster), not both")
    if cluster and not rq:
        raise ConfigError(
            "REDIS_CLUSTER_URL needs RQ_REDIS_URL: RQ's queues need a server of their own"
            " (RQ does not support Cluster)"
        )
    for name, url in (("REDIS_CLUSTER_URL", cluster), ("RQ_REDIS_URL", rq)):
        if url and urlsplit(url).scheme not in ("redis", "rediss"):
            raise ConfigError(f"{name} must be a redis:// or rediss:// URL")
    return {"cluster_url": cluster, "rq_url": rq}


def _archive_days(raw: str) -> float:
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 36600:  # also refuses nan
        raise ConfigError(
            f"OMERTA_ARCHIVE_DAYS must be a number of days, 0 (never) or more, not {raw!r}"
        )
    return value


def _s3_url(url: str | None) -> str | None:
    if url and (urlsplit(url).scheme != "s3" or not urlsplit(url).netloc):
        raise ConfigError("OMERTA_ARCHIVE_S3_URL must be s3://bucket or s3://bucket/prefix")
    return url


def _path(env: Mapping[str, str], name: str) -> Path | None:
    raw = env.get(name)
    return Path(raw) if raw else None


def _at_least_one(env: Mapping[str, str], name: str, default: int) -> int:
    value = int(env.get(name) or default)
    if value < 1:
        raise ConfigError(f"{name} must be a whole number of seconds, at least 1")
    return value


def _iterations(env: Mapping[str, str], name: str) -> int | None:
    raw = env.get(name)
    if not raw:
        return None
    if not raw.isdigit() or not 1 <= int(raw) <= 1_000_000:
        raise ConfigError(f"{name} must be a whole number of iterations, 1 to 1000000, not {raw!r}")
    return int(raw)


def _on_off(env: Mapping[str, str], name: str) -> bool:
    raw = (env.get(name) or "on").lower()
    if raw not in ("on", "off"):
        raise ConfigError(f"{name} must be on or off, not {raw!r}")
    return raw == "on"


def _log_format(env: Mapping[str, str]) -> str:
    raw = env.get("OMERTA_LOG_FORMAT") or "text"
    if raw not in ("text", "json"):
        raise ConfigError(f"OMERTA_LOG_FORMAT must be text or json, not {raw!r}")
    return raw


def _port(env: Mapping[str, str], name: str) -> int | None:
    raw = env.get(name)
    if not raw:
        return None
    if not raw.isdigit() or not 0 < int(raw) < 65536:
        raise ConfigError(f"{name} must be a port number from 1 to 65535, not {raw!r}")
    return int(raw)


def _niceness(env: Mapping[str, str], name: str, default: int) -> int:
    raw = env.get(name) or str(default)
    if not raw.isdigit() or int(raw) > 19:
        raise ConfigError(f"{name} must be a niceness from 0 to 19, not {raw!r}")
    return int(raw)


def _days(env: Mapping[str, str], name: str, default: int) -> int:
    raw = env.get(name) or str(default)
    if not raw.isdigit() or int(raw) > 366:
        raise ConfigError(f"{name} must be a whole number of days from 0 to 366, not {raw!r}")
    return int(raw)


def _some_days(env: Mapping[str, str], name: str, default: float) -> float:
    raw = env.get(name) or str(default)
    try:
        value = float(raw)
    except ValueError:
        value = 0.0
    if not 0 < value <= 366:  # also refuses nan
        raise ConfigError(f"{name} must be a number of days above 0, at most 366, not {raw!r}")
    return value


def _flag(value: str | None) -> bool:
    return (value or "0").lower() in ("1", "true", "yes")


_PREFIX = re.compile(r"(/[A-Za-z0-9._~!$&'()*+,;=:@%-]*)*")


def public_url(config: Settings) -> str:
    """``OMERTA_PUBLIC_URL`` checked (links built on it go to players: nothing but a scheme, a
    host, a port and a path prefix), else the bind address over plain HTTP; no trailing slash
    (links are this and an absolute path). Not checked by ``settings()``: only the web server
    and the mails' links need it, and a bad one must not stop the workers or ``omerta
    verify``."""
    url = config.public_url
    if not url:
        bind = config.bind
        if bind.startswith(("unix:", "fd://")):
            raise ConfigError(
                f"OMERTA_PUBLIC_URL must be set when the web server binds {bind!r}: "
                "invite links need the address players reach the service at"
            )
        url = f"http://{bind}"
    try:
        parts = urlsplit(url.strip())
        parts.port  # noqa: B018 (a bad port raises here)
    except ValueError as exc:
        raise ConfigError(f"OMERTA_PUBLIC_URL {url!r} is not a URL: {exc}") from None
    problem = _url_problem(url.strip(), parts)
    if problem:
        raise ConfigError(f"OMERTA_PUBLIC_URL {url!r} is not usable: {problem}")
    return f"{parts.scheme.lower()}://{parts.netloc.lower()}{parts.path.rstrip('/')}"


def _url_problem(url: str, parts: SplitResult) -> str | None:
    if parts.scheme.lower() not in ("http", "https"):
        return "its scheme must be http or https"
    if not parts.hostname:
        return "it needs a host"
    if "@" in parts.netloc:
        return "it may not carry a user or password"
    if parts.query or parts.fragment or url.endswith(("?", "#")):
        return "it may not carry a query or fragment"
    if not _PREFIX.fullmatch(parts.path):
        return "its path may only be a prefix such as /omerta"
    return None
