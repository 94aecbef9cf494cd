"""Two devices (issue 14): on the first, a player adds an email address and opens the mailed
link, which confirms it; on the second, they ask for a sign-in link on the email page, open it
from the mail (read from the test SMTP server), press the button, and are that player there."""

from __future__ import annotations

import time
from collections.abc import Callable
from email.message import EmailMessage

from playwright.sync_api import BrowserContext, expect

from tests.smtp import Inbox, link_in

ADDRESS = "vito.devices@example.org"


def wait_for_mail(inbox: Inbox, address: str, count: int) -> EmailMessage:
    deadline = time.monotonic() + 30
    while len(inbox.to(address)) < count:
        assert time.monotonic() < deadline, f"no mail number {count}"
        time.sleep(0.1)
    return inbox.to(address)[count - 1]


def test_sign_in_on_a_second_device_by_a_mailed_link(
    new_context: Callable[..., BrowserContext], smtp_inbox: Inbox
) -> None:
    laptop = new_context().new_page()
    laptop.goto("/")
    laptop.fill("#name", "Vito")
    laptop.click("#name-form button")
    expect(laptop.locator("#hello")).to_be_visible()
    laptop.goto("/email")
    laptop.fill("#address", ADDRESS)
    laptop.click("#email-form button")
    expect(laptop.locator("#email-state")).to_contain_text("not confirmed yet")
    verify = link_in(wait_for_mail(smtp_inbox, ADDRESS, 1), "/email/verify/")
    laptop.goto(verify)
    expect(laptop.locator("h1")).to_have_text("Email address confirmed")
    laptop.goto("/email")
    expect(laptop.locator("#email-state")).to_contain_text("confirmed.")

    phone = new_context(locale="ja-JP").new_page()
    phone.goto("/email")
    expect(phone.locator("#signin")).to_be_visible()
    phone.fill("#signin-address", ADDRESS)
    phone.click("#signin-form button")
    expect(phone.locator("#signin-sent")).to_be_visible()
    mail = wait_for_mail(smtp_inbox, ADDRESS, 2)
    assert mail["Subject"] == "Omerta: your sign-in link"  # the player's language, not the phone's
    phone.goto(link_in(mail, "/signin/email/"))
    phone.click("form button")
    expect(phone.locator("#me-name")).to_have_text("Vito")
    assert phone.evaluate("() => fetch('/me').then(r => r.json())")["name"] == "Vito"
