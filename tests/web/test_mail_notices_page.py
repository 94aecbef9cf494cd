"""The email page tells a player whether notification mails go out to them, and its
button turns them off and back on (by keyboard too)."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import BrowserContext, expect

from tests.smtp import Inbox
from tests.web.signins import wait_for_link

ADDRESS = "sal.notices@example.org"


def test_the_email_page_shows_and_switches_the_notification_mails(
    new_context: Callable[..., BrowserContext], smtp_inbox: Inbox
) -> None:
    page = new_context().new_page()
    page.goto("/")
    page.fill("#name", "Sal")
    page.click("#name-form button")
    expect(page.locator("#hello")).to_be_visible()
    page.goto("/email")
    expect(page.locator("#notices")).to_be_hidden()  # no address: nothing to say
    page.fill("#address", ADDRESS)
    page.click("#email-form button")
    state, toggle = page.locator("#notices-state"), page.locator("#notices-toggle")
    expect(state).to_have_text("Notification mails start once this address is confirmed.")
    expect(page.locator("#notices-switch")).to_be_hidden()
    page.goto(wait_for_link(smtp_inbox, ADDRESS, "/email/verify/", 0)[1])
    page.goto("/email")
    expect(state).to_contain_text("Notification mails are on")
    expect(toggle).to_have_text("Turn notification mails off")
    toggle.click()
    expect(state).to_have_text("Notification mails are off: you unsubscribed.")
    expect(toggle).to_have_text("Turn notification mails back on")
    page.reload()  # the store's state, not the page's
    expect(state).to_have_text("Notification mails are off: you unsubscribed.")
    toggle.focus()
    page.keyboard.press("Enter")
    expect(state).to_contain_text("Notification mails are on")
    assert page.evaluate("() => fetch('/me/email').then(r => r.json())")["unsubscribed"] is False
