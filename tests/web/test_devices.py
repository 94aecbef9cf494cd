"""Two browser contexts stand for two devices of one player: the second signs in with
the personal sign-in link and continues the same game; the devices page signs the first one out,
and a revoked link signs nobody in."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import BrowserContext, expect

from tests.web.conftest import PHONE, screenshot
from tests.web.flows import (
    create_game,
    my_turn_or_over,
    shown_version,
    sign_up,
    wait_past,
    watch_errors,
)
from tests.web.signins import make_signin_link, open_signin_link


def test_a_second_device_signs_in_with_the_link_and_plays_on(
    new_context: Callable[..., BrowserContext],
) -> None:
    laptop = new_context().new_page()
    errors = watch_errors(laptop)
    sign_up(laptop, "Vera")
    game_id, _ = create_game(laptop, "Famiglia", ["ai-0"])

    laptop.goto("/")
    laptop.get_by_role("link", name="Sign in on another device").click()
    laptop.wait_for_url("**/devices")
    expect(laptop.locator("#link-state")).to_have_text("You have no sign-in link yet.")
    link, code = make_signin_link(laptop)
    expect(laptop.locator("#signin-qr svg path")).to_have_count(1)
    screenshot(laptop, "devices-link")

    # The phone opens the link: the same player, the same game, the same seat.
    phone = new_context(viewport=PHONE).new_page()
    errors += watch_errors(phone)
    open_signin_link(phone, link, "Vera")
    phone.get_by_role("link", name="Go to your games").click()
    expect(phone.locator("#me-name")).to_have_text("Vera")
    expect(phone.locator(f"#my-games a[href='/play/{game_id}']").first).to_be_visible()
    phone.goto(f"/play/{game_id}")
    laptop.goto(f"/play/{game_id}")
    assert my_turn_or_over(phone) == "turn"
    now = shown_version(phone)
    laptop.wait_for_function("v => Number(document.body.dataset.version || 0) >= v", arg=now)
    before = shown_version(laptop)
    phone.locator("[data-action=pass]").click()
    if phone.locator("dialog.confirm[open]").count():
        phone.locator("dialog.confirm [data-answer=yes]").click()
    wait_past(laptop, before)  # the laptop sees the phone's move: one player, two devices
    expect(laptop.locator("#log")).to_contain_text("Vera passes.")

    # The phone lists both devices and signs the laptop out. The laptop leaves its game page
    # first: a page open while its device is signed out learns it from a 401 (that case is
    # test_a_page_signed_out_meanwhile_...'s), which a loaded run once counted here.
    laptop.goto("about:blank")
    phone.goto("/devices")
    expect(phone.locator("#devices li")).to_have_count(2)
    expect(phone.locator("#devices li", has_text="this device")).to_have_count(1)
    other = phone.locator("#devices li").filter(has_not_text="this device")
    other.get_by_role("button", name="Sign out").click()
    expect(phone.locator("#devices li")).to_have_count(1)
    screenshot(phone, "devices-phone")
    laptop.goto("/")
    expect(laptop.get_by_label("Your name")).to_be_visible()  # no player here any more

    # The phone revokes the link: opening it again signs nobody in.
    phone.get_by_role("button", name="Revoke the link and the code").click()
    phone.locator("dialog.confirm [data-answer=yes]").click()
    expect(phone.locator("#link-state")).to_have_text("You have no sign-in link yet.")
    tablet = new_context().new_page()
    tablet.goto(link)
    expect(tablet.locator("#toast")).to_contain_text("signs nobody in")
    tablet.get_by_label("Recovery code").fill(code)
    tablet.get_by_role("button", name="Sign in", exact=True).click()
    expect(tablet.locator("#toast")).to_contain_text("signs nobody in")
    assert errors == []


def test_a_page_signed_out_meanwhile_shows_the_next_move_without_an_error(
    new_context: Callable[..., BrowserContext],
) -> None:
    """A move that arrives on a game page after its device was signed out elsewhere: the page
    says so (a toast), and logs no error (a CI run under load saw the AI's late move do that)."""
    laptop = new_context().new_page()
    # The page learns it was signed out from a 401 (the browser logs the failed request itself).
    errors = watch_errors(laptop, expected="401")
    sign_up(laptop, "Vera")
    game_id, invites = create_game(laptop, "Famiglia", ["friend"])
    bob = new_context().new_page()
    bob.goto(invites[0])
    bob.get_by_label("Your name").fill("Bob")
    bob.get_by_role("button", name="Take the seat").click()
    bob.wait_for_url(f"**/play/{game_id}")
    link, _ = make_signin_link(laptop)
    laptop.goto(f"/play/{game_id}")
    laptop.wait_for_function(
        "() => document.querySelector('#prompt .ask') !== null"
        " || document.getElementById('prompt').textContent.includes('Waiting for Bob')"
    )
    if laptop.locator("#prompt .ask").count():
        laptop.locator("[data-action=pass]").click()
    assert my_turn_or_over(bob) == "turn"
    before = shown_version(laptop)

    phone = new_context().new_page()
    open_signin_link(phone, link, "Vera")
    phone.goto("/devices")
    phone.locator("#devices li").filter(has_not_text="this device").get_by_role(
        "button", name="Sign out"
    ).click()
    expect(phone.locator("#devices li")).to_have_count(1)

    bob_before = shown_version(bob)
    bob.locator("[data-action=pass]").click()
    wait_past(bob, bob_before)
    if bob.locator("dialog.confirm[open]").count():
        bob.locator("dialog.confirm [data-answer=yes]").click()
    expect(laptop.locator("#toast")).to_contain_text("This device is not signed in any more")
    assert shown_version(laptop) == before  # nothing of the game for a signed-out device
    laptop.evaluate("0")  # a round trip: the page's console messages before it have arrived
    assert errors == []
