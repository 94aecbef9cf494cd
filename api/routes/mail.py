"""Email: add and verify an address, sign in by a mailed one-time link, unsubscribe in one click.

``POST /me/email`` sets the caller's address and has a verification link mailed (by a job,
``workers.mailer``); the link's page (``api.web.mailpages``: a mailed link is a GET) or
``POST /email/verify/{token}`` verifies it. ``POST /signin/email`` with an address mails a
sign-in link if the address is a player's verified one, and always answers the same 202: nobody
learns whether an address is known. ``POST /signin/email/{token}`` redeems the link once and
signs the browser in (the cookie; the token is in the body too, for API clients).
``PUT /me/email/subscription`` turns the caller's notification mails off or back on (the
email page). ``POST /mail/unsubscribe/{player}/{sig}`` is RFC 8058's one-click unsubscribe;
mail providers post ``List-Unsubscribe=One-Click`` as a form, and the links' pages post forms,
so these two take form bodies too (``api.http.security.FORM_ENDPOINTS``). No answer or log names an
address except the caller's own, to the caller.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from flask import Blueprint, Response, current_app, redirect, request
from werkzeug.wrappers import Response as BaseResponse

from api.context import caller, deps, device_label
from api.http.jsonio import body, reply
from api.http.problems import ApiError
from api.routes.players import with_cookie
from api.schemas.players import SignedIn
from api.web import i18n, mailpages
from services.eventstore.store import unavailable
from services.identity.emails import (
    SIGNIN,
    VERIFY,
    Email,
    Emails,
    address_hash,
    normalize,
    unsubscribe_valid,
)
from workers import mailer

bp = Blueprint("mail", __name__)

FORM = "application/x-www-form-urlencoded"


# An address as the service takes it (else 400 bad_email): the schema only says so.
Address = Annotated[str, msgspec.Meta(extra_json_schema={"format": "email"})]


class NewEmail(msgspec.Struct, forbid_unknown_fields=True):
    address: Address


class EmailOut(msgspec.Struct):
    address: str | None  # None: no address yet (GET /me/email)
    verified: bool
    unsubscribed: bool


class Subscription(msgspec.Struct, forbid_unknown_fields=True):
    subscribed: bool


class SignInByMail(msgspec.Struct, forbid_unknown_fields=True):
    address: Address


class MailSent(msgspec.Struct, frozen=True):
    """The same answer whether or not the address is a player's."""

    status: Literal["accepted"]
    detail: str


class Verified(msgspec.Struct, frozen=True):
    verified: bool


class Unsubscribed(msgspec.Struct, frozen=True):
    unsubscribed: bool


NO_ADDRESS = EmailOut(None, verified=False, unsubscribed=False)
SENT = MailSent("accepted", "if that address is verified, a sign-in link is on its way")


def _emails() -> Emails:
    return Emails(deps().store)


def _out(email: Email) -> EmailOut:
    return EmailOut(email.address, email.verified, email.unsubscribed)


@bp.post("/me/email")
def add_email() -> Response:
    player = caller()
    new = body(NewEmail)
    emails = _emails()
    emails.set_address(player.id, new.address, i18n.language())
    _enqueue(VERIFY, player.id)
    email = emails.get(player.id)
    assert email is not None  # just set
    return reply(_out(email), 202)


@bp.get("/me/email")
def my_email() -> Response:
    email = _emails().get(caller().id)
    return reply(NO_ADDRESS if email is None else _out(email))


@bp.put("/me/email/subscription")
def subscription() -> Response:
    player = caller()
    wanted = body(Subscription)
    emails = _emails()
    _mine(emails, player.id)
    if wanted.subscribed:
        emails.resubscribe(player.id)
    else:
        emails.unsubscribe(player.id)
    return reply(_out(_mine(emails, player.id)))


def _mine(emails: Emails, player_id: str) -> Email:
    email = emails.get(player_id)
    if email is None:
        raise ApiError(404, "no_email", "you have no email address")
    return email


@bp.post("/email/verify/<token>")
def verify(token: str) -> Response:
    link = _emails().redeem(VERIFY, token)
    if link is None:
        raise _bad_link()
    return reply(Verified(verified=True))


@bp.post("/signin/email")
def signin() -> Response:
    # The same work for any address (a job looks it up): the time tells nobody whose it is.
    hashed = address_hash(normalize(body(SignInByMail).address))
    with unavailable():
        mailer.enqueue_signin(deps().queues, hashed, current_app.config["OMERTA_PUBLIC_URL"])
    return reply(SENT, 202)


@bp.post("/signin/email/<token>")
def redeem(token: str) -> BaseResponse:
    link = _emails().redeem(SIGNIN, token)
    player = deps().players.get(link.player_id) if link is not None else None
    if player is None:
        # The link page's button: a page again, not JSON (where the app has its pages).
        if request.mimetype == FORM and mailpages.bp.name in current_app.blueprints:
            return mailpages.bad_link_page()
        raise _bad_link()
    d = deps()
    device, session = d.players.devices.add(player.id, device_label(), d.players.clock())
    if request.mimetype == FORM:
        response = redirect(f"{request.script_root}/", 303)
    else:
        response = reply(SignedIn(player.id, player.name, session, device))
    return with_cookie(response, session)


@bp.post("/mail/unsubscribe/<player_id>/<signature>")
def unsubscribe(player_id: str, signature: str) -> BaseResponse:
    if not unsubscribe_valid(deps().secret.key(), player_id, signature):
        raise _bad_link()
    _emails().unsubscribe(player_id)
    if request.mimetype == FORM and request.form.get("List-Unsubscribe") != "One-Click":
        # The page's own button (api.web.mailpages).
        return redirect(f"{request.script_root}/mail/unsubscribed", 303)
    return reply(Unsubscribed(unsubscribed=True))


def _bad_link() -> ApiError:
    return ApiError(
        410, "bad_link", "this link is not valid: it was used, it expired, or it never was one"
    )


def _enqueue(purpose: str, player_id: str) -> None:
    with unavailable():
        mailer.enqueue_link(
            deps().queues, purpose, player_id, current_app.config["OMERTA_PUBLIC_URL"]
        )
