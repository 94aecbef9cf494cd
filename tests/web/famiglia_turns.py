"""One Famiglia decision on the game page, as a person makes it by clicking (shared by the
browser tests that play on)."""

from __future__ import annotations

from playwright.sync_api import Page, expect


def recruit(page: Page) -> None:
    """The guided recruit: the Street card, then the pair to show, then which goes to the area."""
    page.locator("[data-action=recruit]").click()
    expect(page.locator("#prompt .ask")).to_have_text("Choose the Street card to recruit.")
    page.locator(".zone-street button.pickable").first.click()
    pair = page.locator("#prompt button.pair")
    if pair.count():
        expect(page.locator("#prompt .ask")).to_have_text("Choose the two cards to show.")
        pair.first.click()
        to_area = page.locator("#prompt button.to-area")
        if to_area.count():
            to_area.first.click()


def brute(page: Page) -> None:
    """The guided Brute: the yellow card, the Street card to lower, then by how much."""
    page.locator("[data-action=play_brute]").click()
    ask = page.locator("#prompt .ask")
    expect(ask).to_have_text("Choose the Brute (yellow) to play from your hand.")
    page.locator(".zone-hand button.pickable").first.click()
    expect(ask).to_have_text("Choose the Street card to lower.")
    page.locator(".zone-street button.pickable").first.click()
    amounts = page.locator("#prompt button[data-amount]")
    if amounts.count():
        expect(ask).to_have_text("Lower it by how much?")
        amounts.last.click()


def exchange(page: Page) -> None:
    """One Accountant exchange: a hand card, then the area card it is exchanged for."""
    page.locator(".zone-hand button.pickable").first.click()
    expect(page.locator("#prompt")).to_contain_text("for which area card?")
    page.locator(".zone-area button.pickable").first.click()


def play_turn(page: Page, done: list[str]) -> str:
    """One decision: each power once when it is offered (an Accountant with one exchange, a
    Brute), then recruit when possible, else pass."""
    if page.locator("[data-action=end_swaps]").count():
        if "exchange" not in done and page.locator(".zone-hand button.pickable").count():
            exchange(page)
            return "exchange"
        page.locator("[data-action=end_swaps]").click()
        return "end_swaps"
    if "accountant" not in done and page.locator("[data-action=play_accountant]").count():
        page.locator("[data-action=play_accountant]").click()
        page.locator(".zone-hand button.pickable").first.click()
        return "accountant"
    if "brute" not in done and page.locator("[data-action=play_brute]").count():
        brute(page)
        return "brute"
    if page.locator("[data-action=recruit]").count():
        recruit(page)
        return "recruit"
    # No rank-0 card on the Street and none recruitable: refresh it, as a person would (a game
    # whose Street stayed that way for every turn of this player used to pass to the end).
    if page.locator("[data-action=refresh]").count():
        page.locator("[data-action=refresh]").click()
        page.locator(".zone-street button.pickable").first.click()
        return "refresh"
    page.locator("[data-action=pass]").click()
    return "pass"
