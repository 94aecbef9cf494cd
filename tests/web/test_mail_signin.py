"""Two devices: on the first, a player adds an email address and opens the mailed
link, which confirms it; on the second, they ask for a sign-in link on the email page, open it
from the mail (read from the test SMTP server), press the button, and are that player there."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import BrowserContext, expect

from tests.smtp import Inbox
from tests.web.signins import add_verified_email, sign_in_by_mail

ADDRESS = "vito.devices@example.org"


def test_sign_in_on_a_second_device_by_a_mailed_link(
    new_context: Callable[..., BrowserContext], smtp_inbox: Inbox
) -> None:
    laptop = new_context().new_page()
    laptop.goto("/")
    laptop.fill("#name", "Vito")
    laptop.click("#name-form button")
    expect(laptop.locator("#hello")).to_be_visible()
    add_verified_email(laptop, smtp_inbox, ADDRESS)

    phone = new_context(locale="ja-JP").new_page()
    mail = sign_in_by_mail(phone, smtp_inbox, ADDRESS)
    assert mail["Subject"] == "Omerta: your sign-in link"  # the player's language, not the phone's
    expect(phone.locator("#me-name")).to_have_text("Vito")
    assert phone.evaluate("() => fetch('/me').then(r => r.json())")["name"] == "Vito"
