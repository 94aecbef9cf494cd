"""Passkeys in Chromium, with virtual authenticators (the DevTools protocol's
WebAuthn domain): a passkey added on the laptop and synced to the phone (as a password manager
does: the same credential in the phone's authenticator) signs the phone in with no link and no
name; deleted on the laptop, it signs nobody in. At an address other than the service's own
(``127.0.0.1`` for ``localhost``) the pages say where passkeys work."""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import urlsplit

from playwright.sync_api import BrowserContext, expect

from tests.web.conftest import PHONE, screenshot
from tests.web.flows import create_game, sign_up, watch_errors
from tests.web.signins import add_passkey, sign_in_with_passkey, virtual_authenticator


def test_a_passkey_made_on_the_laptop_signs_the_phone_in(
    new_context: Callable[..., BrowserContext],
) -> None:
    laptop = new_context().new_page()
    errors = watch_errors(laptop)
    laptop_keys, laptop_id = virtual_authenticator(laptop)
    sign_up(laptop, "Nico")
    game_id, _ = create_game(laptop, "Famiglia", ["ai-0"])
    add_passkey(laptop)
    passkey = laptop.locator("#passkeys li")
    expect(passkey).to_contain_text("Chrome on Linux")  # the device's label
    expect(passkey).to_contain_text("not used yet")
    screenshot(laptop, "devices-passkeys")
    laptop.get_by_role("button", name="Add a passkey").click()  # one per authenticator
    expect(laptop.locator("#toast")).to_contain_text("This device already has a passkey of yours.")
    expect(passkey).to_have_count(1)
    (credential,) = laptop_keys.send("WebAuthn.getCredentials", {"authenticatorId": laptop_id})[
        "credentials"
    ]
    assert credential["isResidentCredential"] and credential["rpId"] == "localhost"

    phone = new_context(viewport=PHONE).new_page()
    errors += watch_errors(phone)
    phone_keys, phone_id = virtual_authenticator(phone)
    phone_keys.send(
        "WebAuthn.addCredential", {"authenticatorId": phone_id, "credential": credential}
    )
    sign_in_with_passkey(phone, "Nico")
    screenshot(phone, "signin-passkey-phone")
    phone.get_by_role("link", name="Go to your games").click()
    expect(phone.locator("#me-name")).to_have_text("Nico")
    expect(phone.locator(f"#my-games a[href='/play/{game_id}']").first).to_be_visible()

    laptop.reload()
    expect(passkey).to_contain_text("last used")
    passkey.get_by_role("button", name="Delete").click()
    laptop.locator("dialog.confirm [data-answer=yes]").click()
    expect(laptop.locator("#passkeys-none")).to_be_visible()

    tablet = new_context().new_page()
    errors += watch_errors(tablet, expected="401")
    tablet_keys, tablet_id = virtual_authenticator(tablet)
    tablet_keys.send(
        "WebAuthn.addCredential", {"authenticatorId": tablet_id, "credential": credential}
    )
    tablet.goto("/signin")
    tablet.get_by_role("button", name="Sign in with a passkey").click()
    expect(tablet.locator("#toast")).to_contain_text("That passkey signs nobody in here")
    assert errors == []


def test_at_another_address_the_pages_say_where_passkeys_work(
    new_context: Callable[..., BrowserContext], live_server: str
) -> None:
    here = urlsplit(live_server)
    page = new_context(locale="ja-JP").new_page()
    page.goto(f"http://127.0.0.1:{here.port}/signin")
    note = page.locator("#passkey-signin .passkeys-why")
    expect(note).to_contain_text("パスキーはこのサービス本来のアドレスで使えます")
    expect(note.locator("a")).to_have_attribute("href", f"{live_server}/signin")
    expect(page.locator("#passkey-go")).to_be_hidden()
    page.goto(f"http://127.0.0.1:{here.port}/")
    page.locator("#name").fill("Ida")
    page.locator("#name-form button").click()
    expect(page.locator("#hello")).to_be_visible()
    page.goto(f"http://127.0.0.1:{here.port}/devices")
    note = page.locator("#passkeys-panel .passkeys-why")
    expect(note.locator("a")).to_have_attribute("href", f"{live_server}/devices")
    expect(page.locator("#passkey-add")).to_be_hidden()
    expect(page.locator("#signin-panel")).to_be_visible()  # the sign-in link takes her there
