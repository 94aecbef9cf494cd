"""Two people in two browsers: an invite link, a public game in the lobby, and each player
seeing the other's moves arrive live, without reloading the page."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import BrowserContext, Page, expect

from tests.web.conftest import screenshot
from tests.web.flows import create_game, shown_version, sign_up, wait_past, watch_errors


def mark(page: Page) -> None:
    """A flag in the page's window: it survives only as long as the page is not reloaded."""
    page.evaluate("window.__notReloaded = true")


def not_reloaded(page: Page) -> bool:
    return bool(page.evaluate("window.__notReloaded === true"))


def test_each_sees_the_others_move_live(new_context: Callable[..., BrowserContext]) -> None:
    alice = new_context().new_page()
    bob = new_context().new_page()
    errors = watch_errors(alice) + watch_errors(bob)
    sign_up(alice, "Alice")
    game_id, links = create_game(alice, "Famiglia", ["friend"])
    assert len(links) == 1 and f"/play/{game_id}/join#invite=" in links[0]

    # Bob has no name yet: the invite page asks for one and seats him.
    bob.goto(links[0])
    bob.get_by_label("Your name").fill("Bob")
    bob.get_by_role("button", name="Take the seat").click()
    bob.wait_for_url(f"**/play/{game_id}")
    expect(bob.locator("#seats")).to_contain_text("Bob")
    expect(alice.locator("#seats")).to_contain_text("Bob")  # the seat taken shows up too

    for page in (alice, bob):
        page.wait_for_function("() => document.body.dataset.version > 0")
        mark(page)
    first, second = (alice, bob) if alice.locator("#prompt .ask").count() else (bob, alice)
    first_name, second_name = ("Alice", "Bob") if first is alice else ("Bob", "Alice")
    expect(first.locator("#prompt .ask")).to_have_text("Your turn: choose an action.")
    expect(second.locator("#prompt")).to_have_text(f"Waiting for {first_name}…")

    # The first player passes: the second sees it arrive and is asked to move.
    before = shown_version(second)
    first.locator("[data-action=pass]").click()
    wait_past(second, before)
    expect(second.locator("#log")).to_contain_text(f"{first_name} passes.")
    expect(second.locator("#prompt .ask")).to_have_text("Your turn: choose an action.")
    expect(first.locator("#prompt")).to_have_text(f"Waiting for {second_name}…")
    screenshot(second, "two-players-live")

    # The second passes too: two passes in a row end the game, and the first sees it live.
    before = shown_version(first)
    second.locator("[data-action=pass]").click()
    expect(second.locator("dialog.confirm")).to_contain_text("This ends the game, ")
    second.locator("dialog.confirm [data-answer=yes]").click()
    wait_past(first, before)
    expect(first.locator("#log")).to_contain_text(f"{second_name} passes.")
    for page in (alice, bob):
        expect(page.locator("#result")).to_contain_text("Both players passed in a row.")
    assert not_reloaded(alice) and not_reloaded(bob)
    assert errors == []


def test_a_spectator_sees_no_hand(new_context: Callable[..., BrowserContext]) -> None:
    host = new_context().new_page()
    sign_up(host, "Hugo")
    game_id, _ = create_game(host, "Famiglia", ["ai-1"])
    watcher = new_context().new_page()  # no name, no seat
    errors = watch_errors(watcher)
    watcher.goto(f"/play/{game_id}")
    expect(watcher.locator("#prompt")).to_contain_text("You are watching.")
    expect(watcher.locator("#board .zone-street .card").first).to_be_visible()
    # Both hands are face down: a spectator sees only how many cards each holds.
    expect(watcher.locator("#board .backs")).to_have_count(2)
    expect(watcher.locator("#board .zone-hand, #board .zone-other-hand")).to_have_count(0)
    expect(watcher.locator("#board button")).to_have_count(0)
    assert errors == []


def humans_to_act(page: Page, game_id: str) -> set[str]:
    """The names of the people who owe a move, once the AI has made its moves."""
    for _ in range(100):
        game = page.request.get(f"/games/{game_id}").json()
        kinds = {s["seat"]: s for s in game["seats"]}
        if all(kinds[s]["kind"] == "player" for s in game["to_act"]):
            return {kinds[s]["name"] for s in game["to_act"]}
        page.wait_for_timeout(100)
    raise AssertionError("the AI did not move")


def test_a_public_game_in_the_lobby_and_your_turn(
    new_context: Callable[..., BrowserContext],
) -> None:
    host = new_context().new_page()
    guest = new_context().new_page()
    errors = watch_errors(host) + watch_errors(guest)
    sign_up(host, "Hana")
    game_id, links = create_game(host, "Gangsta!", ["ai-0", "friend"], public=True, shot="new-game")
    assert len(links) == 1

    sign_up(guest, "Ivan")
    screenshot(guest, "start")
    guest.goto("/games-open")
    entry = guest.locator(f"li[data-game-id='{game_id}']")
    expect(entry).to_contain_text("Hana")
    expect(entry).to_contain_text("AI · random")
    expect(entry).to_contain_text("open seat")
    screenshot(guest, "lobby")
    entry.get_by_role("button", name="Take a seat").click()
    guest.wait_for_url(f"**/play/{game_id}")
    expect(guest.locator("#seats .seat.you")).to_contain_text("Ivan")
    expect(guest.locator(".player")).to_have_count(3)

    # "Your turn" lists the game for whoever owes a move in it, and only for them.
    owing = humans_to_act(guest, game_id)
    assert len(owing) == 1
    for page, name in ((host, "Hana"), (guest, "Ivan")):
        page.goto("/your-turn")
        listed = page.locator(f"li[data-game-id='{game_id}']")
        if name in owing:
            expect(listed).to_contain_text("your turn")
            screenshot(page, "your-turn")
        else:
            expect(page.locator("#inbox .empty")).to_have_text(
                "Nothing to do: no game waits for you."
            )
    assert errors == []


def test_an_invite_link_pasted_on_the_start_page(
    new_context: Callable[..., BrowserContext],
) -> None:
    host = new_context().new_page()
    guest = new_context().new_page()
    # 409: the second join with a used invite is refused, as the test expects.
    errors = watch_errors(host) + watch_errors(guest, expected="401|409")
    sign_up(host, "Olga")
    game_id, links = create_game(host, "Famiglia", ["friend"])
    sign_up(guest, "Pavel")
    link = guest.get_by_label("Invite link")
    link.fill("https://elsewhere.example/play/x/join#invite=y")
    guest.get_by_role("button", name="Join", exact=True).click()
    expect(guest.locator("#toast")).to_have_text("That is not an invite link of this site.")
    link.fill(links[0])
    guest.get_by_role("button", name="Join", exact=True).click()
    guest.wait_for_url(f"**/play/{game_id}/join#invite=*")
    expect(guest.locator("#name")).to_be_hidden()  # Pavel has a name already
    guest.get_by_role("button", name="Take the seat").click()
    guest.wait_for_url(f"**/play/{game_id}")
    expect(guest.locator("#seats .seat.you")).to_contain_text("Pavel")
    # The invite is used up: following it again takes no second seat.
    guest.goto(links[0])
    guest.get_by_role("button", name="Take the seat").click()
    expect(guest.locator("#toast")).to_have_text("You already sit in this game.")
    assert errors == []
