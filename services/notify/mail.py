"""Sending mail: over SMTP when ``OMERTA_SMTP_URL`` is set, else into a maildir.

``OMERTA_SMTP_URL`` is ``smtp://user:pass@host:port`` (plain SMTP, upgraded with STARTTLS when
the server offers it) or ``smtps://...`` (TLS from the first byte; port 465 by default). User
and password are optional and percent-decoded. Without it (``make run``'s default) every mail
is a file in the maildir ``<OMERTA_VAR>/mail/`` (the standard library's ``mailbox.Maildir``),
which ``/operator/mail`` lists for the operator (``api.routes.mail``). Either way the mail is
the same bytes (``wire``; the maildir's lines end in LF, as a file's).

Mails are sent by RQ jobs (``workers.mailer``), never while a request waits: an SMTP server that
is slow or down must not slow the pages.
"""

from __future__ import annotations

import mailbox
import smtplib
import ssl
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import getaddresses
from pathlib import Path
from typing import NamedTuple
from urllib.parse import unquote, urlsplit

import msgspec

from services.notify import mailtexts
from services.platform import config
from services.platform.config import ConfigError


class Smtp(msgspec.Struct, frozen=True):
    host: str
    port: int
    tls: bool  # smtps: TLS from the start
    user: str | None = None
    password: str | None = None


def smtp_settings(url: str) -> Smtp:
    """``OMERTA_SMTP_URL`` read; the message of a bad one never repeats the URL (a password)."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        raise ConfigError("OMERTA_SMTP_URL is not a URL") from None
    scheme = parts.scheme.lower()
    if scheme not in ("smtp", "smtps") or not parts.hostname:
        raise ConfigError("OMERTA_SMTP_URL must be smtp://[user:pass@]host[:port] or smtps://...")
    return Smtp(
        host=parts.hostname,
        port=port or (465 if scheme == "smtps" else 25),
        tls=scheme == "smtps",
        user=unquote(parts.username) if parts.username else None,
        password=unquote(parts.password) if parts.password else None,
    )


def maildir_path(settings: config.Settings) -> Path:
    return settings.var / "mail"


class Wire(NamedTuple):
    """A mail as every way of sending it writes it (``wire``)."""

    sender: str  # the envelope's
    recipients: list[str]
    data: bytes  # lines end in CRLF
    international: bool  # an address is not ASCII: SMTPUTF8, headers in UTF-8


def wire(message: EmailMessage) -> Wire:
    """``message`` (it names its recipients in ``To`` and ``Cc``) serialised once, with the
    mails' policy (``mailtexts.POLICY``: no folding of a long bare URL into an encoded word):
    the maildir and SMTP take the same bytes."""
    sender = getaddresses([str(message["From"])])[0][1]
    fields = [str(v) for name in ("To", "Cc") for v in message.get_all(name, [])]
    recipients = [address for _, address in getaddresses(fields)]
    international = not "".join([sender, *recipients]).isascii()
    data = message.as_bytes(policy=mailtexts.POLICY.clone(utf8=international))
    return Wire(sender, recipients, data, international)


def deliver(message: EmailMessage, settings: config.Settings) -> None:
    """Send ``message`` (it names its recipients in ``To``) the configured way."""
    sent = wire(message)
    if settings.smtp_url is None:
        box = mailbox.Maildir(maildir_path(settings), create=True)
        box.add(sent.data.replace(b"\r\n", b"\n"))  # a file's lines end as the system's
        return
    smtp = smtp_settings(settings.smtp_url)
    context = ssl.create_default_context()
    timeout = settings.smtp_timeout  # each step's: a job's whole budget is longer
    if smtp.tls:
        client: smtplib.SMTP = smtplib.SMTP_SSL(
            smtp.host, smtp.port, timeout=timeout, context=context
        )
    else:
        client = smtplib.SMTP(smtp.host, smtp.port, timeout=timeout)
    with client:
        if not smtp.tls:
            client.ehlo()
            if client.has_extn("starttls"):
                client.starttls(context=context)
                client.ehlo()
        if smtp.user is not None:
            client.login(smtp.user, smtp.password or "")
        if sent.international and not client.has_extn("smtputf8"):
            raise smtplib.SMTPNotSupportedError("an address needs SMTPUTF8, not offered")
        options = ["SMTPUTF8", "BODY=8BITMIME"] if sent.international else []
        client.sendmail(sent.sender, sent.recipients, sent.data, options)


class Stored(msgspec.Struct, frozen=True):
    """A mail of the maildir, as the operator's page shows it."""

    key: str
    date: str
    to: str
    subject: str
    body: str
    delivered: float  # the file's time: the order of the list


def stored(settings: config.Settings) -> list[Stored]:
    """The maildir's mails, newest first (none if there is no maildir yet)."""
    path = maildir_path(settings)
    if not path.exists():
        return []
    box = mailbox.Maildir(path, create=False)
    found = []
    for key in box.iterkeys():
        with box.get_file(key) as raw:
            # typeshed types a Maildir file as _ProxyFile, not the binary file it is
            parsed = BytesParser(policy=policy.default).parse(raw)  # type: ignore[arg-type]
        assert isinstance(parsed, EmailMessage)
        text = parsed.get_body(("plain",))
        found.append(
            Stored(
                key=key,
                date=str(parsed.get("Date", "")),
                to=str(parsed.get("To", "")),
                subject=str(parsed.get("Subject", "")),
                body=text.get_content() if text is not None else "",
                delivered=box.get_message(key).get_date(),
            )
        )
    found.sort(key=lambda m: m.delivered, reverse=True)
    return found
