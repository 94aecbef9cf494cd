"""Signing in on another device, step by step on the pages: the sign-in link, a
mailed link, a passkey (Chromium's virtual authenticator through the DevTools protocol), and
signing out. Shared by the browser tests of devices, mail and passkeys."""

from __future__ import annotations

import time
from email.message import EmailMessage
from urllib.parse import urlsplit

from playwright.sync_api import CDPSession, Page, expect

from tests.smtp import Inbox, find_link


def make_signin_link(page: Page) -> tuple[str, str]:
    """Makes the player's sign-in link and recovery code on the devices page: (the link's path
    and fragment, to open on another device's origin; the code)."""
    page.goto("/devices")
    page.get_by_role("button", name="Make a sign-in link").click()
    expect(page.locator("#link-shown")).to_be_visible()
    link = page.locator("#signin-link").input_value()
    code = page.locator("#signin-code").input_value()
    assert "/signin#" in link and len(code) == 19
    where = urlsplit(link)
    return f"{where.path}#{where.fragment}", code


def open_signin_link(page: Page, link: str, name: str) -> None:
    page.goto(link)
    expect(page.locator("#signin-status")).to_have_text(
        f"Signed in as {name}. Your games are here now."
    )
    assert "#" not in page.url  # the secret left the address bar


def wait_for_link(inbox: Inbox, address: str, path: str, after: int) -> tuple[EmailMessage, str]:
    """The first mail to ``address`` after its ``after`` first ones that holds a link to
    ``path``, and that link. The worker sends it soon after the request; other mails may come
    first (notices of moves), and a loaded machine delays it: a test that read the next mail
    read a notice."""
    deadline = time.monotonic() + 100
    while True:
        for mail in inbox.to(address)[after:]:
            if link := find_link(mail, path):
                return mail, link
        assert time.monotonic() < deadline, f"no mail with a link to {path} for {address}"
        time.sleep(0.1)


def add_verified_email(page: Page, inbox: Inbox, address: str) -> None:
    """Adds the address on the email page and opens the mailed verification link."""
    already = len(inbox.to(address))
    page.goto("/email")
    page.fill("#address", address)
    page.click("#email-form button")
    expect(page.locator("#email-state")).to_contain_text("not confirmed yet")
    page.goto(wait_for_link(inbox, address, "/email/verify/", already)[1])
    expect(page.locator("h1")).to_have_text("Email address confirmed")
    page.goto("/email")
    expect(page.locator("#email-state")).to_contain_text("confirmed.")


def sign_in_by_mail(page: Page, inbox: Inbox, address: str) -> EmailMessage:
    """Asks for a sign-in link on the email page and opens it from the mail; the mail."""
    already = len(inbox.to(address))
    page.goto("/email")
    expect(page.locator("#signin")).to_be_visible()
    page.fill("#signin-address", address)
    page.click("#signin-form button")
    expect(page.locator("#signin-sent")).to_be_visible()
    mail, link = wait_for_link(inbox, address, "/signin/email/", already)
    page.goto(link)
    page.click("form button")
    return mail


def virtual_authenticator(page: Page) -> tuple[CDPSession, str]:
    """A platform authenticator with discoverable credentials and user verification (a phone's
    or laptop's built-in one) for the page's tab: (its DevTools session, its id)."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    options = {
        "protocol": "ctap2",
        "transport": "internal",
        "hasResidentKey": True,
        "hasUserVerification": True,
        "isUserVerified": True,
        "automaticPresenceSimulation": True,
    }
    made = cdp.send("WebAuthn.addVirtualAuthenticator", {"options": options})
    return cdp, made["authenticatorId"]


def add_passkey(page: Page) -> None:
    """Adds a passkey on the devices page (the tab's authenticator answers)."""
    page.goto("/devices")
    before = page.locator("#passkeys li").count()
    page.get_by_role("button", name="Add a passkey").click()
    expect(page.locator("#toast")).to_contain_text("Passkey added.")
    expect(page.locator("#passkeys li")).to_have_count(before + 1)


def sign_in_with_passkey(page: Page, name: str) -> None:
    page.goto("/signin")
    page.get_by_role("button", name="Sign in with a passkey").click()
    expect(page.locator("#signin-status")).to_have_text(
        f"Signed in as {name}. Your games are here now."
    )


def sign_out_here(page: Page) -> None:
    """Signs this device out on the devices page: the start page asks for a name again."""
    page.goto("/devices")
    here = page.locator("#devices li", has_text="this device")
    here.get_by_role("button", name="Sign out").click()
    page.wait_for_url("**/")
    expect(page.get_by_label("Your name")).to_be_visible()
