"""Presence on every page, in real browsers with the real worker: the header's count and the
tab's title follow an opponent's move without a reload (the player's one stream); the inbox says
how long each game has waited and who is to move (English and Japanese); the game page marks
what happened since the player last looked; on a wide screen the log sits beside the board, on a
phone below it."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from playwright.sync_api import BrowserContext, Page, expect

from tests.web.conftest import PHONE, screenshot
from tests.web.flows import shown_version, wait_past, watch_errors
from tests.web.test_live_lists import call, mark, not_reloaded

WIDE = {"width": 1400, "height": 900}
HOUR_MS = 3600 * 1000


def player(page: Page, name: str) -> dict[str, Any]:
    page.goto("/")
    return call(page, "POST", "/players", {"name": name})


def game_for(alice: Page, bob: Page, first: int, made: list[str] | None = None) -> str:
    """A Famiglia game of Alice (seat 0) and Bob (seat 1) where seat ``first`` begins (the deal
    decides: the games made on the way stay, and those Alice begins wait for her); every game
    made is added to ``made``."""
    for _ in range(40):
        made_now = call(alice, "POST", "/games", {"game": "famiglia", "seats": 2})
        if made is not None:
            made.append(made_now["game_id"])
        game = call(alice, "GET", f"/games/{made_now['game_id']}")
        if game["to_act"] == [first]:
            invite = made_now["invites"][0]["code"]
            call(bob, "POST", f"/games/{made_now['game_id']}/join", {"invite": invite})
            return made_now["game_id"]
    raise AssertionError(f"seat {first} never began")


def owed_by_alice(alice: Page, made: list[str]) -> int:
    """How many of the games ``made`` wait for Alice, read from the games themselves, once her
    inbox says so too: the worker projects each game into it in its own time (a test once read
    the inbox before one of them, and the page then counted one more)."""
    owed = sum(call(alice, "GET", f"/games/{g}")["to_act"] == [0] for g in made)
    deadline = time.monotonic() + 30
    while waiting_for(alice) != owed:
        assert time.monotonic() < deadline, f"Alice's inbox never counted {owed} games"
        time.sleep(0.2)
    return owed


def pass_turn(page: Page, game_id: str) -> None:
    version = call(page, "GET", f"/games/{game_id}")["version"]
    body = {"command": {"type": "pass"}, "expected_version": version}
    call(page, "POST", f"/games/{game_id}/commands", body)


def bob_plays_cards(bob: Page, game_id: str) -> None:
    """Bob's turn, naming a card in each command where one may be named (more lines in the
    log than a pass), until Alice's turn."""
    for _ in range(30):
        legal = call(bob, "GET", f"/games/{game_id}/legal")
        if not legal["commands"]:
            return
        command = next((c for c in legal["commands"] if "card" in c), legal["commands"][0])
        body = {"command": command, "expected_version": legal["version"]}
        call(bob, "POST", f"/games/{game_id}/commands", body)
    raise AssertionError("Bob's turn never ended")


def waiting_for(page: Page) -> int:
    return len(call(page, "GET", "/me/inbox")["games"])


def test_the_badge_and_the_title_follow_the_opponents_move(
    new_context: Callable[..., BrowserContext],
) -> None:
    alice, bob = new_context().new_page(), new_context().new_page()
    errors = watch_errors(alice) + watch_errors(bob)
    player(alice, "Alice")
    player(bob, "Bob")
    made: list[str] = []
    game_id = game_for(alice, bob, first=1, made=made)
    deadline = time.monotonic() + 30
    while call(bob, "GET", "/me/inbox")["games"] == []:  # the worker projects the join
        assert time.monotonic() < deadline
        time.sleep(0.2)
    before = owed_by_alice(alice, made)
    alice.goto("/games-open")
    mark(alice)
    badge = alice.locator("#inbox-count")
    if before:
        expect(badge).to_have_text(str(before))
        expect(alice).to_have_title(f"({before}) Open games · Omerta")
    else:
        expect(badge).to_be_hidden()
        expect(alice).to_have_title("Open games · Omerta")
    pass_turn(bob, game_id)  # Alice's turn now
    expect(badge).to_have_text(str(before + 1))
    expect(alice).to_have_title(f"({before + 1}) Open games · Omerta")
    assert not_reloaded(alice)
    # A game page shows both: the count, and its own mark for the move owed here.
    alice.goto(f"/play/{game_id}")
    expect(alice).to_have_title(f"({before + 1}) ● Famiglia · Omerta")
    assert errors == []


def test_the_tabs_of_one_browser_share_one_stream(
    new_context: Callable[..., BrowserContext],
) -> None:
    context = new_context()
    alice, bob = context.new_page(), new_context().new_page()
    errors = watch_errors(alice) + watch_errors(bob)
    player(alice, "Alice")
    player(bob, "Bob")
    made: list[str] = []
    games = [game_for(alice, bob, first=1, made=made) for _ in range(2)]
    deadline = time.monotonic() + 30
    while len(call(bob, "GET", "/me/inbox")["games"]) < 2:  # the worker projects the joins
        assert time.monotonic() < deadline
        time.sleep(0.2)
    before = owed_by_alice(alice, made)
    streams: list[Page] = []
    context.on("request", lambda r: streams.append(r.frame.page) if "/me/events" in r.url else None)
    first, second = context.new_page(), context.new_page()
    errors += watch_errors(first) + watch_errors(second)
    first.goto("/games-open")
    expect(first).to_have_title(
        f"({before}) Open games · Omerta" if before else "Open games · Omerta"
    )
    second.goto("/new")
    pass_turn(bob, games[0])
    for tab in (first, second):
        expect(tab.locator("#inbox-count")).to_have_text(str(before + 1))
    assert set(streams) == {first}  # the first tab's stream serves both
    # The tab with the stream goes: the other takes it over.
    first.close()
    alice.close()
    pass_turn(bob, games[1])
    expect(second.locator("#inbox-count")).to_have_text(str(before + 2))
    expect(second).to_have_title(f"({before + 2}) New game · Omerta")
    assert second in streams
    assert errors == []


def test_a_page_without_a_player_shows_no_count(page: Page) -> None:
    errors = watch_errors(page)
    page.goto("/games-open")
    expect(page.locator("#me-name")).to_have_text("")
    page.wait_for_timeout(500)
    expect(page.locator("#inbox-count")).to_be_hidden()
    expect(page).to_have_title("Open games · Omerta")
    assert errors == []


def test_the_inbox_says_how_long_and_who_is_to_move(
    new_context: Callable[..., BrowserContext],
) -> None:
    alice, bob = new_context().new_page(), new_context().new_page()
    player(alice, "Alice")
    player(bob, "Bob")
    game_id = game_for(alice, bob, first=0)
    deadline = time.monotonic() + 30
    while not [g for g in call(alice, "GET", "/me/inbox")["games"] if g["game_id"] == game_id]:
        assert time.monotonic() < deadline
        time.sleep(0.2)
    [since] = [
        g["waiting_since"]
        for g in call(alice, "GET", "/me/inbox")["games"]
        if g["game_id"] == game_id
    ]
    entry = alice.locator(f"li[data-game-id='{game_id}']")
    alice.goto("/your-turn")
    expect(entry).to_contain_text("to move: Alice")
    expect(entry).to_contain_text("waiting under a minute")

    # The page's clock hours and days later: the waited time in hours, then in days.
    cookies = alice.context.cookies()
    for later, shown in ((3 * HOUR_MS + 60_000, "waiting 3 h"), (50 * HOUR_MS, "waiting 2 d")):
        later_page = new_context().new_page()
        later_page.context.add_cookies(cookies)  # (cookies: Alice's, in a context of its own)
        later_page.clock.set_fixed_time((since + later) / 1000)  # in seconds
        later_page.goto("/your-turn")
        expect(later_page.locator(f"li[data-game-id='{game_id}']")).to_contain_text(shown)
    japanese = new_context(locale="ja-JP").new_page()
    japanese.context.add_cookies(cookies)
    japanese.clock.set_fixed_time((since + 3 * HOUR_MS + 60_000) / 1000)
    japanese.goto("/your-turn")
    ja_entry = japanese.locator(f"li[data-game-id='{game_id}']")
    expect(ja_entry).to_contain_text("手番: Alice")
    expect(ja_entry).to_contain_text("3時間待ち")
    screenshot(japanese, "inbox-ja")


def test_the_game_page_marks_what_happened_since_the_player_last_looked(
    new_context: Callable[..., BrowserContext],
) -> None:
    alice, bob = new_context().new_page(), new_context().new_page()
    errors = watch_errors(alice) + watch_errors(bob)
    player(alice, "Alice")
    player(bob, "Bob")
    game_id = game_for(alice, bob, first=0)
    alice.goto(f"/play/{game_id}")
    expect(alice.locator("#log li").first).to_be_visible()
    seen = shown_version(alice)
    expect(alice.locator(".since-marker")).to_have_count(0)  # a first look: nothing is new
    alice.locator("[data-action=pass]").click()  # Alice's own move, seen as she makes it
    wait_past(alice, seen)
    # The whole of her command (its last events come a moment after the first), on her page.
    shown = call(alice, "GET", f"/games/{game_id}")["version"]
    alice.wait_for_function("v => Number(document.body.dataset.version || 0) >= v", arg=shown)
    deadline = time.monotonic() + 30
    while call(alice, "PUT", f"/games/{game_id}/seen", {"version": 0})["version"] < shown:
        assert time.monotonic() < deadline, "the page never said what it showed"
        time.sleep(0.2)
    alice.goto("/your-turn")  # Alice leaves the game's page; Bob moves meanwhile
    bob_plays_cards(bob, game_id)

    alice.goto(f"/play/{game_id}")
    marker = alice.locator("#log .since-marker")
    expect(marker).to_have_text("New since you last looked")
    new_lines = alice.locator("#log li.since")
    expect(new_lines.first).to_be_visible()
    versions = [int(v) for v in new_lines.evaluate_all("ls => ls.map(l => l.dataset.version)")]
    # Alice's own pass, which she saw happen, is old: only Bob's move and what followed it are new.
    assert versions and min(versions) > shown
    old = alice.locator("#log li:not(.since)").evaluate_all(
        "ls => ls.map(l => Number(l.dataset.version))"
    )
    assert max(old) <= shown
    expect(alice.locator("#since-note")).to_contain_text("new since you last looked")
    screenshot(alice, "since-you-last-looked")

    # Seen now: the next look marks nothing.
    alice.reload()
    expect(alice.locator("#log li").first).to_be_visible()
    alice.wait_for_timeout(500)
    expect(alice.locator("#log .since-marker")).to_have_count(0)
    assert errors == []


def boxes(page: Page) -> tuple[dict[str, float], dict[str, float]]:
    board = page.locator("#board").bounding_box()
    log = page.locator(".log-box").bounding_box()
    assert board is not None and log is not None
    return board, log


def beside(page: Page) -> None:
    board, log = boxes(page)
    assert log["x"] >= board["x"] + board["width"], (board, log)
    assert log["y"] < board["y"] + board["height"], (board, log)  # in the same rows


def below(page: Page) -> None:
    board, log = boxes(page)
    assert log["y"] >= board["y"] + board["height"], (board, log)
    assert abs(log["x"] - board["x"]) < 2, (board, log)


def test_the_log_sits_beside_the_board_on_a_wide_screen(
    new_context: Callable[..., BrowserContext],
) -> None:
    wide = new_context(viewport=WIDE).new_page()
    errors = watch_errors(wide)
    player(wide, "Alice")
    pages = []
    for spec in ({"game": "famiglia", "seats": 2, "ai": {"1": 1}},
                 {"game": "gangsta", "seats": 3, "ai": {"1": 1, "2": 1}}):  # fmt: skip
        game_id = call(wide, "POST", "/games", spec)["game_id"]
        name = str(spec["game"])
        pages += [(f"/play/{game_id}", name), (f"/play/{game_id}/replay", f"{name}-replay")]
    phone = new_context(viewport=PHONE).new_page()
    phone.context.add_cookies(wide.context.cookies())
    for path, name in pages:
        for page, check in ((wide, beside), (phone, below)):
            page.goto(path)
            expect(page.locator("#board section").first).to_be_visible()
            expect(page.locator("#log li").first).to_be_visible()
            check(page)
        screenshot(wide, f"wide-{name}")
    assert errors == []
