"""A real SMTP server for the tests (aiosmtpd, on a free port), keeping what it receives."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from typing import Any

from aiosmtpd.controller import Controller

from services.platform.embedded import HOST, free_port


class Inbox:
    def __init__(self) -> None:
        self.url = ""  # OMERTA_SMTP_URL of the server, once started
        self.mails: list[EmailMessage] = []
        self.recipients: list[list[str]] = []
        self.raw: list[bytes] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        parsed = BytesParser(policy=policy.default).parsebytes(envelope.content)
        assert isinstance(parsed, EmailMessage)
        self.mails.append(parsed)
        self.recipients.append(list(envelope.rcpt_tos))
        self.raw.append(envelope.content)
        return "250 OK"

    def to(self, address: str) -> list[EmailMessage]:
        return [m for m in list(self.mails) if m["To"] == address]


@contextmanager
def smtp_server(inbox: Inbox | None = None) -> Iterator[Inbox]:
    """Serve ``inbox`` (a new one if not given: a subclass may add handlers)."""
    inbox = inbox or Inbox()
    port = free_port()
    controller = Controller(inbox, hostname=HOST, port=port)
    controller.start()
    inbox.url = f"smtp://{HOST}:{port}"
    try:
        yield inbox
    finally:
        controller.stop()


def find_link(mail: EmailMessage, path: str) -> str | None:
    """The path (from ``path`` on, with its token) of the link the mail's text carries; None
    when it carries none (another mail to the same address: a notice of a move)."""
    body = mail.get_body(("plain",))
    assert body is not None
    found = re.search(rf"http://[^/\s]+({re.escape(path)}[A-Za-z0-9_-]+)", body.get_content())
    return found.group(1) if found else None


def link_in(mail: EmailMessage, path: str) -> str:
    """The path (from ``path`` on, with its token) of the link the mail's text carries."""
    link = find_link(mail, path)
    assert link, mail.get_body(("plain",))
    return link
