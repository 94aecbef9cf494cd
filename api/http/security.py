"""What keeps other websites from acting as the browser's player, and the headers every
response carries.

A browser sends the player's cookie with requests that another page starts: a form on another
site, or on the same host at another port (same-site: the ``SameSite`` cookie goes along).
Forms can send only ``text/plain``, ``multipart/form-data`` and urlencoded bodies, and
cross-origin scripts cannot send JSON without a CORS preflight this service never grants, so:

- every state-changing request must have a JSON body (or none): 415 ``json_required``;
- a state-changing request without a bearer token (the cookie, or about to get one from
  ``POST /players``) must come from the service's own origin, by ``Sec-Fetch-Site`` or else
  ``Origin``: 403 ``cross_origin``. A client that sends neither header is no browser (curl, a
  bot): it has no ambient cookie to abuse. Bearer-token clients are never checked: a page on
  another site cannot read or send the token.
- the mailed links' POSTs (``api.routes.mail``) take forms too: a link's page posts one, and a
  mail client posts RFC 8058's one-click unsubscribe, from anywhere (its signed URL is its right).

The headers come from Flask-Talisman: a Content-Security-Policy that allows scripts only from
the service's files (no inline script), framing by nobody, ``nosniff`` and a Referrer-Policy.
Answers that depend on the caller are never stored by a cache (``no-store``) and name the
cookie in ``Vary``.
"""

from __future__ import annotations

import base64
import hashlib
from urllib.parse import urlsplit

from flask import Flask, Response, request
from flask_talisman import Talisman

from api.http import docs
from api.http.problems import ApiError

WRITES = frozenset({"POST", "PUT", "PATCH", "DELETE"})
JSON = "application/json"
# Browsers' Sec-Fetch-Site values of a request the service's own pages make (or a typed URL).
OWN_SITE = frozenset({"same-origin", "none"})
# Posted as forms too, by the pages of mailed links and by mail clients (RFC 8058's one-click
# unsubscribe, ``api.routes.mail``): their tokens are in the path, not in a cookie, and the
# origin check still applies.
FORM = "application/x-www-form-urlencoded"
FORM_ENDPOINTS = frozenset({"mail.redeem", "mail.unsubscribe"})
# The one-click unsubscribe may come from anywhere (a webmail's page): the signed URL is all the
# right it needs, and it acts on no cookie.
ANY_ORIGIN_ENDPOINTS = frozenset({"mail.unsubscribe"})
# Answers that are the same for every caller: they may be cached.
PUBLIC_ENDPOINTS = frozenset({"web.static", "meta.document", "meta.page", "games.kinds"})


def _style_hash(style: str) -> str:
    digest = hashlib.sha256(style.encode()).digest()
    return f"'sha256-{base64.b64encode(digest).decode()}'"


CSP = {
    "default-src": "'self'",
    "script-src": "'self'",
    # The API page's one <style> block, by its hash; the pages use site.css only.
    "style-src": ["'self'", _style_hash(docs.STYLE)],
    "img-src": "'self'",
    "connect-src": "'self'",
    "object-src": "'none'",
    "base-uri": "'none'",
    "form-action": "'self'",
    "frame-ancestors": "'none'",
}


def _bearer() -> bool:
    scheme, _, value = request.headers.get("Authorization", "").partition(" ")
    return scheme.lower() == "bearer" and bool(value.strip())


def _same_origin() -> bool:
    site = request.headers.get("Sec-Fetch-Site")
    if site is not None:
        return site in OWN_SITE
    origin = request.headers.get("Origin")
    if origin is None:
        return True  # no browser: nothing ambient to abuse
    # The host as the browser reached it; a proxy in front keeps Host (deploy/), whatever the
    # scheme behind it, so the scheme is not compared.
    return urlsplit(origin).netloc == request.host


def _has_body() -> bool:
    chunked = "chunked" in request.headers.get("Transfer-Encoding", "").lower()
    return bool(request.content_length) or chunked


def _check_write() -> None:
    if request.method not in WRITES:
        return
    if not _bearer() and not _same_origin() and request.endpoint not in ANY_ORIGIN_ENDPOINTS:
        raise ApiError(
            403,
            "cross_origin",
            "a request with the player's cookie must come from this site's own pages",
        )
    if request.endpoint in FORM_ENDPOINTS and request.mimetype == FORM:
        return
    if (request.mimetype or _has_body()) and request.mimetype != JSON:
        raise ApiError(
            415,
            "json_required",
            f"the body must be {JSON}, not {request.mimetype or 'untyped'}",
            sent=request.mimetype,
        )


def _caching(response: Response) -> Response:
    if request.endpoint in PUBLIC_ENDPOINTS:
        return response
    response.headers["Cache-Control"] = "no-store"
    response.vary.add("Cookie")  # the token, or the page's language
    return response


def install(app: Flask) -> None:
    app.before_request(_check_write)
    app.after_request(_caching)
    Talisman(
        app,
        force_https=False,  # TLS ends at the proxy in front (deploy/); HSTS is sent over HTTPS
        frame_options="DENY",
        content_security_policy=CSP,
        referrer_policy="same-origin",
        session_cookie_secure=False,  # no Flask session; the token cookie is set by the API
    )
