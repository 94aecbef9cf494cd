"""The email page (``/email``: a player's address; without a player, sign-in by mail), the pages
of mailed links, and the operator's list of the mails in the maildir.

A mailed link is opened with a GET. The verification link's page verifies at once: whoever
opens it reads that mailbox, which is all it proves. The sign-in and unsubscribe links' pages
only show a button that posts the form (``api.routes.mail``): mail scanners that fetch every
link must not use up a sign-in link or unsubscribe anybody. A link that no longer works
(used, expired) shows the same "this link does not work" page on GET and from its button.

``/operator/mail`` lists the maildir's mails, newest first. It holds sign-in links, so it
answers only the operator: with ``OMERTA_OPERATOR_TOKEN`` set, to HTTP Basic (any user, the
token as password; the browser asks for it) or a bearer token; without it, only while no SMTP
server is set and the public URL is a loopback address, ``omerta run``'s local default. Else
it is 404, as if it did not exist.
"""

from __future__ import annotations

import hmac
from typing import Any
from urllib.parse import urlsplit

from flask import Blueprint, Flask, Response, current_app, make_response, request
from flask.typing import ResponseReturnValue

from api.context import deps
from api.http.problems import ApiError
from api.web import _page
from services.identity.emails import SIGNIN, VERIFY, Emails, unsubscribe_valid
from services.notify import mail

bp = Blueprint("mailpages", __name__)

LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})


def register(app: Flask) -> None:
    app.register_blueprint(bp)


def _link_page(status: int = 200, **context: Any) -> Response:
    context.setdefault("action", None)
    return make_response(_page("mail_link.html", context["title"], **context), status)


@bp.get("/email")
def email_page() -> str:
    return _page("email.html", "page.email")


@bp.get("/email/verify/<token>")
def verify(token: str) -> Response:
    if Emails(deps().store).redeem(VERIFY, token) is None:
        return bad_link_page()
    return _link_page(title="mail.verified.title", text="mail.verified.text")


@bp.get("/signin/email/<token>")
def signin(token: str) -> Response:
    if not Emails(deps().store).usable(SIGNIN, token):
        return bad_link_page()
    return _link_page(
        title="mail.signin.title",
        text="mail.signin.text",
        action=request.path,
        button="mail.signin.button",
    )


@bp.get("/mail/unsubscribe/<player_id>/<signature>")
def unsubscribe(player_id: str, signature: str) -> Response:
    if not unsubscribe_valid(deps().secret.key(), player_id, signature):
        return bad_link_page()
    return _link_page(
        title="mail.unsubscribe.title",
        text="mail.unsubscribe.text",
        action=request.path,
        button="mail.unsubscribe.button",
    )


@bp.get("/mail/unsubscribed")
def unsubscribed() -> Response:
    return _link_page(title="mail.unsubscribe.title", text="mail.unsubscribed.text")


def bad_link_page() -> Response:
    """What a mailed link that does not work shows (used, expired or incomplete)."""
    return _link_page(410, title="mail.bad_link.title", text="mail.bad_link.text")


@bp.get("/operator/mail")
def operator_mail() -> ResponseReturnValue:
    settings = deps().settings
    if settings.operator_token is not None:
        if not _operator(settings.operator_token):
            response = make_response("operator only\n", 401)
            response.headers["WWW-Authenticate"] = 'Basic realm="omerta operator"'
            return response
    elif settings.smtp_url is not None or not _local(current_app.config["OMERTA_PUBLIC_URL"]):
        raise ApiError(404, "not_found", "no such resource")
    return _page("operator_mail.html", "operator.mail.title", mails=mail.stored(settings))


def _operator(expected: str) -> bool:
    auth = request.authorization
    sent = (auth.password if auth.type == "basic" else auth.token) if auth else None
    return sent is not None and hmac.compare_digest(sent.encode(), expected.encode())


def _local(public_url: str) -> bool:
    return urlsplit(public_url).hostname in LOOPBACK
