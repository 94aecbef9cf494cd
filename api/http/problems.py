"""RFC 9457 problem details (``application/problem+json``) for every refusal.

Every error response has ``type``, ``title``, ``status``, ``detail``, a stable ``code`` and
``params`` (clients match on ``code``; ``detail`` is for people; ``params`` are the values the
detail names, for a client that renders the refusal in its own words and language). The service
layer's errors already carry ``status``, ``code``, ``params`` and a message that reveals nothing
hidden; the API's own (malformed JSON, bad token, ...) are ``ApiError``. Anything else is a 500
whose detail says nothing about why.

``detail`` is English, or the Japanese text of the pages' message catalogue when the request
says ``Accept-Language: ja`` (``api.web.i18n.refusal``, the same catalogue the pages render
refusals from).
"""

from __future__ import annotations

import logging
from http import HTTPStatus
from typing import Any

import msgspec
from flask import Flask, Response, current_app, request
from werkzeug.exceptions import HTTPException

from api.web import i18n
from services.errors import Conflict, ServiceError

log = logging.getLogger(__name__)

MEDIA_TYPE = "application/problem+json"
TYPE_BASE = "/docs#problem-"


class Problem(msgspec.Struct, frozen=True, omit_defaults=True):
    """An RFC 9457 problem. ``type`` points at the code's entry on the API page; ``params``
    are the values ``detail`` names (``case`` tells apart the messages of one code);
    ``version`` is set on a conflict (the game's version now)."""

    type: str
    title: str
    status: int
    detail: str
    code: str
    params: dict[str, Any]
    version: int | None = None


class ApiError(ServiceError):
    """A refusal decided by the HTTP layer itself."""

    def __init__(self, status: int, code: str, message: str, **params: Any) -> None:
        super().__init__(message, code=code, params=params)
        self.status = status


# Codes the HTTP layer itself produces (the API page lists them with the service's).
API_CODES: dict[str, tuple[int, str]] = {
    "bad_request": (400, "the request is malformed"),
    "malformed_json": (400, "the body is not valid JSON"),
    "invalid_body": (400, "the body has a missing field, an unknown field or a wrong type"),
    "unknown_command": (400, "the command's type is no command of any game"),
    "wrong_game_command": (400, "the command belongs to another game"),
    "bad_command": (400, "the command's fields have the wrong types"),
    "bad_ai_level": (400, "an AI level that does not exist"),
    "bad_ai": (400, "AI seats that are not seats of the game"),
    "bad_seats": (400, "a number of seats the game does not allow, or no seat for the creator"),
    "bad_options": (400, "an unknown rule option or a bad value"),
    "bad_clock": (400, "a time control of an unknown type, or a time out of its bounds"),
    "bad_on_timeout": (400, "a time-out policy other than takeover or forfeit, or no bot level"),
    "bad_vacation": (400, "a vacation that ends before it starts, or given both days and a date"),
    "unknown_game_name": (400, "no game of that name is on offer"),
    "bad_expected_version": (400, "an expected_version that is not a version number >= 0"),
    "bad_command_id": (400, "an Idempotency-Key that is empty or longer than 128 characters"),
    "reserved_command_id": (400, "an Idempotency-Key with the AI seats' prefix (ai-)"),
    "weak_idempotency_key": (400, "POST /players: an Idempotency-Key shorter than 16 characters"),
    "bad_name": (400, "a player name with control characters"),
    "bad_email": (400, "that is not an email address"),
    "bad_parameter": (400, "a query parameter or header has a bad value"),
    "bad_webhook_url": (400, "a webhook URL that is not http(s), or names a private address"),
    "bad_push_endpoint": (400, "a push endpoint that is not https, or names a private address"),
    "bad_push_keys": (400, "a push subscription's p256dh or auth key is not valid"),
    "bad_chat": (400, "a chat message that is no text, empty, or longer than 500 characters"),
    "bad_passkey": (400, "a passkey's answer that does not verify (origin, signature, form)"),
    "passkey_challenge": (400, "a passkey answer to no challenge of the server's (or a used one)"),
    "missing_token": (401, "no player token was sent"),
    "bad_token": (401, "the token belongs to no player"),
    "bad_signin": (401, "the sign-in link or recovery code signs nobody in (revoked or mistyped)"),
    "unknown_credential": (401, "the passkey signs nobody in (deleted, or not this service's)"),
    "not_seated": (403, "the caller has no seat in this game"),
    "wrong_seat": (403, "a seat number that is not a seat of the game"),
    "not_your_seat": (403, "the command names a seat that is not the caller's"),
    "bad_invite": (403, "the invite is not for an open seat of this game"),
    "cross_origin": (403, "a write with the player's cookie from a page of another site"),
    "not_found": (404, "no such resource"),
    "unknown_webhook": (404, "the caller has no webhook with this id"),
    "unknown_push_subscription": (404, "the caller has no push subscription of this endpoint"),
    "no_email": (404, "the caller has no email address"),
    "unknown_game": (404, "no game has this id"),
    "unknown_version": (404, "the game has no such version"),
    "unknown_device": (404, "the caller has no device with this id"),
    "unknown_passkey": (404, "the caller has no passkey with this id"),
    "unknown_leaderboard": (404, "no game of that name, so no leaderboard"),
    "unknown_player": (404, "no player (nor AI level ai:<level>) has this id"),
    "method_not_allowed": (405, "the resource does not support this method"),
    "conflict": (409, "the game is not at the expected version"),
    "command_id_reused": (409, "the Idempotency-Key was used for another command"),
    "idempotency_key_reused": (409, "the Idempotency-Key was used for a request with another body"),
    "idempotency_key_in_use": (409, "a request with this Idempotency-Key is under way: retry"),
    "no_open_seat": (409, "no seat to take (already seated, or the game is full)"),
    "game_expired": (409, "the open game expired: nobody joined it in time"),
    "seat_taken_over": (409, "the seat is played by a bot now (a concession or a time-out)"),
    "game_archived": (
        409,
        "the game is archived: read and rematched, no longer played or chatted in",
    ),
    "player_exists": (409, "this browser's cookie already names a player (replace: true)"),
    "too_many_webhooks": (409, "the caller has the most webhooks allowed"),
    "too_many_push_subscriptions": (409, "the caller has the most push subscriptions allowed"),
    "too_many_open_games": (409, "the creator already sits in the most open public games allowed"),
    "game_not_over": (409, "a rematch of a game that is not over yet"),
    "game_running": (409, "a game is reviewed once it is over (no figure while it runs)"),
    "rematch_pending": (409, "another request is making the game's rematch: retry"),
    "passkey_exists": (409, "the passkey is registered already"),
    "too_many_passkeys": (409, "the caller has the most passkeys allowed"),
    "vacation_refused": (409, "a vacation is running already, or the year's days are used up"),
    "passkeys_unavailable": (409, "the service's public URL is an IP address: no passkeys"),
    "bad_link": (410, "a mailed link that was used, expired or never was one"),
    "body_too_large": (413, "the body is larger than the server accepts"),
    "uri_too_long": (
        414,
        "the request line (method, path and query) is longer than the server reads",
    ),
    "json_required": (415, "a state-changing request's body must be application/json"),
    "rule_violation": (422, "the rules refuse the command (code: the rule's own code)"),
    "headers_too_large": (431, "a header is larger than the server reads, or there are too many"),
    "rate_limited": (429, "too many requests of this kind: wait Retry-After seconds"),
    "too_many_streams": (429, "the client holds the most live-event streams allowed open"),
    "store_unavailable": (503, "the event store did not answer"),
    "store_degraded": (503, "some shards refuse writes, or some masters have no replica"),
    "streams_full": (503, "the server serves the most live-event streams it may: Retry-After"),
    "internal": (500, "the server failed; nothing was changed"),
}

_HTTP_CODES = {404: "not_found", 405: "method_not_allowed", 413: "body_too_large"}


def problem_response(
    status: int,
    code: str,
    detail: str,
    version: int | None = None,
    params: dict[str, Any] | None = None,
    game: str | None = None,
) -> Response:
    params = params or {}
    _count(status, code)
    if request and _language() != i18n.DEFAULT:
        detail = i18n.refusal(_language(), code, params, game) or detail
    body = encode(status, code, detail, params, version)
    return Response(body, status=status, mimetype=MEDIA_TYPE)


def _count(status: int, code: str) -> None:
    """A 503 counted by code, a store that failed as a store error (``/metrics``)."""
    deps = current_app.extensions.get("omerta") if current_app else None
    if deps is None or status != 503:
        return
    deps.metrics.unavailable.labels(code).inc()
    if code == "store_unavailable":
        deps.metrics.store_errors.labels("web").inc()


def encode(
    status: int, code: str, detail: str, params: dict[str, Any], version: int | None = None
) -> bytes:
    """The problem as JSON (also for what the web server refuses before the app:
    ``api.serving.problemworker``)."""
    problem = Problem(
        type=TYPE_BASE + code,
        title=HTTPStatus(status).phrase,
        status=status,
        detail=detail,
        code=code,
        params=params,
        version=version,
    )
    return msgspec.json.encode(problem)


def _language() -> str:
    """Only what the request asks for: an API client's detail does not follow a page's cookie."""
    return request.accept_languages.best_match(i18n.LANGUAGES) or i18n.DEFAULT


def from_error(exc: ServiceError) -> Response:
    version = exc.version if isinstance(exc, Conflict) else None
    return problem_response(exc.status, exc.code, exc.message, version, exc.params, exc.game)


def install(app: Flask) -> None:
    """Every error leaves as problem+json."""

    @app.errorhandler(ServiceError)
    def _service_error(exc: ServiceError) -> Response:
        return from_error(exc)

    @app.errorhandler(HTTPException)
    def _http_error(exc: HTTPException) -> Response:
        status = exc.code or 500
        code = _HTTP_CODES.get(status, "bad_request" if status < 500 else "internal")
        detail = API_CODES[code][1] if code in API_CODES else exc.description or exc.name
        params = {}
        if status == 413:
            params = {"max": app.config["MAX_CONTENT_LENGTH"]}
            detail = f"the body is larger than {params['max']} bytes"
        response = problem_response(status, code, detail, params=params)
        allow = dict(exc.get_headers()).get("Allow")
        if allow:  # a 405 names the methods the resource has (RFC 9110)
            response.headers["Allow"] = allow
        return response

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception) -> Response:
        log.exception("unhandled error")
        return problem_response(500, "internal", API_CODES["internal"][1])
