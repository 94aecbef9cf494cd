"""The chat panel and the rematch offer in the browser: a message written in one
context appears live in the other, as text; a spectator reads but has no box to write in; after
the end, the chat stays live and a rematch offered in one context is joined from the other."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import BrowserContext, Page, expect

from tests.web.conftest import PHONE, screenshot
from tests.web.flows import create_game, shown_version, sign_up, wait_past, watch_errors

HOSTILE = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">'


def two_players(new_context: Callable[..., BrowserContext]) -> tuple[str, Page, Page]:
    """Alice (desktop) and Bob (a phone) at a Famiglia table, both pages open."""
    alice = new_context().new_page()
    bob = new_context(viewport=PHONE).new_page()
    sign_up(alice, "Alice")
    game_id, links = create_game(alice, "Famiglia", ["friend"])
    bob.goto(links[0])
    bob.get_by_label("Your name").fill("Bob")
    bob.get_by_role("button", name="Take the seat").click()
    bob.wait_for_url(f"**/play/{game_id}")
    for page in (alice, bob):
        expect(page.locator("#seats")).to_contain_text("Bob")
        page.wait_for_function("() => document.body.dataset.version > 0")
    return game_id, alice, bob


def say(page: Page, text: str) -> None:
    """Typed and sent with the keyboard."""
    page.locator("#chat-text").fill(text)
    page.locator("#chat-text").press("Enter")
    expect(page.locator("#chat-text")).to_have_value("")


def test_a_message_appears_live_in_the_other_context_as_text(
    new_context: Callable[..., BrowserContext],
) -> None:
    game_id, alice, bob = two_players(new_context)
    errors = watch_errors(alice) + watch_errors(bob)
    for page in (alice, bob):
        page.evaluate("window.__notReloaded = true")
        expect(page.locator("#chat-empty")).to_be_visible()

    say(alice, HOSTILE)
    line = bob.locator("#chat-log li").last
    expect(line.locator(".who")).to_have_text("Alice")
    expect(line.locator(".text")).to_have_text(HOSTILE)  # the markup as text, nothing run
    say(bob, "good luck")
    expect(alice.locator("#chat-log li .text")).to_have_text([HOSTILE, "good luck"])
    screenshot(bob, "chat-phone")
    for page in (alice, bob):
        assert page.evaluate("() => window.__pwned === undefined && window.__notReloaded")
        expect(page.locator("#chat-log script, #chat-log img")).to_have_count(0)

    # A spectator reads along, and has no box to write in.
    watcher = new_context().new_page()
    watcher.goto(f"/play/{game_id}")
    expect(watcher.locator("#chat-log li .text")).to_have_text([HOSTILE, "good luck"])
    expect(watcher.locator("#chat-note")).to_be_visible()
    expect(watcher.locator("#chat-form")).to_be_hidden()
    assert errors == []


def pass_to_the_end(alice: Page, bob: Page) -> None:
    """Both players pass in a row: the game is over on both pages."""
    first, second = (alice, bob) if alice.locator("#prompt .ask").count() else (bob, alice)
    before = shown_version(second)
    first.locator("[data-action=pass]").click()
    wait_past(second, before)
    second.locator("[data-action=pass]").click()
    second.locator("dialog.confirm [data-answer=yes]").click()
    for page in (alice, bob):
        expect(page.locator("#result")).to_contain_text("Both players passed in a row.")
        expect(page.locator("#rematch")).to_contain_text("Rematch")


def test_after_the_end_the_chat_stays_live_and_the_rematch_is_joined(
    new_context: Callable[..., BrowserContext],
) -> None:
    game_id, alice, bob = two_players(new_context)
    errors = watch_errors(alice) + watch_errors(bob)
    pass_to_the_end(alice, bob)

    say(bob, "good game")
    expect(alice.locator("#chat-log li .text")).to_have_text(["good game"])

    alice.get_by_role("button", name="Rematch").click()
    alice.wait_for_url(lambda url: "/play/" in url and not url.endswith(game_id))
    rematch_id = alice.url.rsplit("/", 1)[1]
    expect(alice.locator("#seats")).to_contain_text("Bob (invited)")
    expect(bob.locator("#rematch")).to_contain_text("Rematch offered by Alice")  # live
    screenshot(bob, "rematch-offered")
    bob.get_by_role("button", name="Join").click()
    bob.wait_for_url(f"**/play/{rematch_id}")
    for page in (alice, bob):
        expect(page.locator("#seats")).not_to_contain_text("invited")
        page.wait_for_function("() => document.body.dataset.version > 0")
    assert errors == []
