"""Delivery (``services.notify.mail``): ``OMERTA_SMTP_URL`` read, and a mail sent with SMTP AUTH to
a
real SMTP server (aiosmtpd) on a free port."""

from __future__ import annotations

import mailbox
import re
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

from services.notify import mail, mailtexts
from services.platform import config
from services.platform.config import ConfigError
from services.platform.embedded import HOST, free_port
from tests.smtp import smtp_server


def test_the_smtp_url() -> None:
    assert mail.smtp_settings("smtp://mail.example:2525") == mail.Smtp("mail.example", 2525, False)
    assert mail.smtp_settings("smtps://u%40x:p%3As@mail.example") == mail.Smtp(
        "mail.example", 465, True, "u@x", "p:s"
    )
    assert mail.smtp_settings("smtp://mail.example").port == 25


@pytest.mark.parametrize("url", ["http://u:hunter2@host", "smtp://u:hunter2@host:99999", "smtp://"])
def test_a_bad_smtp_url_is_refused_without_repeating_it(url: str) -> None:
    with pytest.raises(ConfigError) as refused:
        mail.smtp_settings(url)
    assert "hunter2" not in str(refused.value) and "OMERTA_SMTP_URL" in str(refused.value)


class Received:
    def __init__(self) -> None:
        self.logins: list[tuple[bytes, bytes]] = []
        self.contents: list[bytes] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.contents.append(envelope.content)
        return "250 OK"

    def authenticate(
        self, server: Any, session: Any, envelope: Any, mechanism: str, data: Any
    ) -> AuthResult:
        assert isinstance(data, LoginPassword)
        self.logins.append((data.login, data.password))
        return AuthResult(success=data.password == b"p@ss")


def test_a_mail_goes_over_smtp_with_the_urls_login(tmp_path: Path) -> None:
    received = Received()
    port = free_port()
    controller = Controller(
        received,
        hostname=HOST,
        port=port,
        authenticator=received.authenticate,
        auth_require_tls=False,  # no certificate here: smtps is the deployments' (README)
    )
    controller.start()
    try:
        message = EmailMessage()
        message["From"], message["To"], message["Subject"] = "a@example.net", "b@example.org", "hi"
        message.set_content("hello")
        env = {
            "OMERTA_SMTP_URL": f"smtp://omerta:p%40ss@{HOST}:{port}",
            "OMERTA_VAR": str(tmp_path),
        }
        mail.deliver(message, config.settings(env))
    finally:
        controller.stop()
    assert received.logins == [(b"omerta", b"p@ss")]
    [content] = received.contents
    assert b"Subject: hi" in content
    assert not (tmp_path / "mail").exists()  # not the maildir


def test_the_digest_period_and_the_smtp_timeout_are_settings() -> None:
    default = config.settings({})
    assert (default.mail_digest_seconds, default.smtp_timeout) == (3600, 30.0)
    chosen = config.settings({"OMERTA_MAIL_DIGEST_SECONDS": "60", "OMERTA_SMTP_TIMEOUT": "5"})
    assert (chosen.mail_digest_seconds, chosen.smtp_timeout) == (60, 5.0)
    with pytest.raises(ConfigError, match="OMERTA_MAIL_DIGEST_SECONDS"):
        config.settings({"OMERTA_MAIL_DIGEST_SECONDS": "0"})


def test_every_path_writes_the_same_bytes_with_a_bare_list_unsubscribe(tmp_path: Path) -> None:
    """A mail sent over SMTP and one written to the maildir (no SMTP server) are the same
    bytes (the maildir's lines end as a file's do): ``List-Unsubscribe`` on one line of bare
    ASCII URLs however long, never an RFC 2047 encoded word (the maildir's copy was folded at
    78 columns, and so encoded)."""
    player = "p" * 22
    message = mailtexts.message(
        sender="Omerta Café <omerta@example.net>",
        to="ann@example.org",
        lang="ja",
        subject="オメルタ: あなたの番です",
        body="本文",
        unsubscribe_url=f"http://omértà.example/mail/unsubscribe/{player}/{'s' * 43}",
        unsubscribe_mailto=mailtexts.mailto("omerta@example.net", player, "s" * 43),
    )
    with smtp_server() as inbox:
        mail.deliver(message, config.settings({"OMERTA_SMTP_URL": inbox.url}))
    [sent] = inbox.raw
    mail.deliver(message, config.settings({"OMERTA_VAR": str(tmp_path)}))
    box = mailbox.Maildir(tmp_path / "mail", create=False)
    [key] = box.keys()
    with box.get_file(key) as stored:
        written = stored.read()
    for raw, end in ((sent, b"\r\n"), (written, b"\n")):
        [header] = [line for line in raw.split(end) if line.startswith(b"List-Unsubscribe:")]
        assert re.fullmatch(rb"List-Unsubscribe: <mailto:[!-~]+>, <http://[!-~]+>", header), raw
    assert written == sent.replace(b"\r\n", b"\n")
