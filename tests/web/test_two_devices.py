"""One player, two devices, every way of signing in, end to end in the browser: the
laptop makes the player and a game against the AI and a sign-in link; the phone signs in with
the link and makes a move; signed out, it signs in with a link mailed to the address the laptop
added and verified, and moves again; there it adds a passkey (its own built-in authenticator),
signs out, signs in with the passkey alone, and moves again. Then the laptop revokes the link,
and the phone, signed out, can no longer sign in with it."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import BrowserContext, Page, expect

from tests.smtp import Inbox
from tests.web.conftest import PHONE
from tests.web.famiglia_turns import play_turn
from tests.web.flows import (
    create_game,
    my_turn_or_over,
    shown_version,
    sign_up,
    wait_past,
    watch_errors,
)
from tests.web.signins import (
    add_passkey,
    add_verified_email,
    make_signin_link,
    open_signin_link,
    sign_in_by_mail,
    sign_in_with_passkey,
    sign_out_here,
    virtual_authenticator,
)

ADDRESS = "mara.two-devices@example.org"


def move_on(page: Page, game_id: str, done: list[str]) -> int:
    """This device makes the player's next decision in the game; the version it led to."""
    page.goto(f"/play/{game_id}")
    assert my_turn_or_over(page) == "turn"
    before = shown_version(page)
    done.append(play_turn(page, done))
    wait_past(page, before)
    return shown_version(page)


def test_the_phone_signs_in_every_way_and_plays_on(
    new_context: Callable[..., BrowserContext], smtp_inbox: Inbox
) -> None:
    laptop = new_context().new_page()
    errors = watch_errors(laptop)
    sign_up(laptop, "Mara")
    game_id, _ = create_game(laptop, "Famiglia", ["ai-0"])
    add_verified_email(laptop, smtp_inbox, ADDRESS)
    link, _ = make_signin_link(laptop)

    phone = new_context(viewport=PHONE).new_page()
    errors += watch_errors(phone)
    virtual_authenticator(phone)  # the phone's own, for the whole test
    done: list[str] = []

    # 1. The sign-in link: the phone sees the game and moves; the laptop sees the move.
    open_signin_link(phone, link, "Mara")
    phone.goto("/")
    expect(phone.locator(f"#my-games a[href='/play/{game_id}']").first).to_be_visible()
    laptop.goto(f"/play/{game_id}")
    moved = move_on(phone, game_id, done)
    laptop.wait_for_function("v => Number(document.body.dataset.version || 0) >= v", arg=moved)
    sign_out_here(phone)

    # 2. A link mailed to the verified address.
    sign_in_by_mail(phone, smtp_inbox, ADDRESS)
    expect(phone.locator("#me-name")).to_have_text("Mara")
    move_on(phone, game_id, done)

    # 3. A passkey the phone adds while signed in, used after it signed out.
    add_passkey(phone)
    sign_out_here(phone)
    sign_in_with_passkey(phone, "Mara")
    move_on(phone, game_id, done)
    assert len(done) == 3

    # The laptop sees three sign-ins of the phone (the two signed out are gone) and the passkey.
    laptop.goto("/devices")
    expect(laptop.locator("#devices li")).to_have_count(2)  # the laptop and the phone now
    expect(laptop.locator("#passkeys li")).to_contain_text("last used")

    # The laptop revokes the link: the phone, signed out, cannot sign in with it any more.
    laptop.get_by_role("button", name="Revoke the link and the code").click()
    laptop.locator("dialog.confirm [data-answer=yes]").click()
    expect(laptop.locator("#link-state")).to_have_text("You have no sign-in link yet.")
    sign_out_here(phone)
    phone.goto(link)
    expect(phone.locator("#toast")).to_contain_text("signs nobody in")
    phone.goto("/")
    expect(phone.get_by_label("Your name")).to_be_visible()
    assert errors == []
