"""A finished game's review on its replay page: a bot game played to its end and reviewed by the
worker for real. The chart has one line per seat and a marker per inaccuracy, mistake and
blunder; a marker reached and activated with the keyboard moves the replay to its version and
shows the move played beside the best one, and what the seat could know there; the result shows
each player's accuracy. In Japanese on a phone nothing scrolls sideways and the decision comes
below the chart. A running game has no review: no section on its page, and the API refuses it."""

from __future__ import annotations

import math
import random
import re
import secrets
from collections.abc import Callable
from typing import Any

import msgspec
import pytest
from playwright.sync_api import BrowserContext, Page, expect

from bootstrap import Container
from domain.review import Review
from services.identity.players import Players
from services.readside.reviews import Reviews
from tests.web.conftest import PHONE, SCREENSHOTS, screenshot
from tests.web.flows import reload_until, split_words, watch_errors
from tests.web.test_replay_whole import famiglia_ended_by_two_passes
from tests.workers.helpers import wait
from tests.workers.test_ratings import play_to_the_end
from workers.review import compute

MARKED = ("inaccuracy", "mistake", "blunder")
JAPANESE = {"inaccuracy": "疑問手", "mistake": "悪手", "blunder": "大悪手"}
REVIEWED_S = 300  # a whole game's review by the tests' one worker, on a busy machine


@pytest.fixture(scope="module")
def bot_game(container: Container) -> tuple[str, str]:
    """A Famiglia game of a person (random legal moves) against the greedy bot, played to its
    end: (the game's id, the person's)."""
    players = Players(container.commands.store.redis)
    person = players.create(f"Rita {secrets.token_hex(2)}")[0].id
    game_id = container.commands.create_game("famiglia", 2, ai={1: "greedy"})
    players.open_table(game_id, 0, [0], person, 0, public=False)
    play_to_the_end(container.commands, game_id, random.Random(7), prefix="review-")
    container.commands.notify(game_id, container.commands.load(game_id).version)
    return game_id, person


def gangsta_conceded(container: Container, moves: int, seed: int) -> str:
    """A short finished Gangsta! game (a whole one takes minutes to review): random legal moves,
    then the seat to act concedes."""
    game_id = container.commands.create_game("gangsta", 2)
    rng = random.Random(seed)
    for n in range(moves + 1):
        game, state, _, _ = container.commands.load(game_id)
        seat = min(game.to_act(state))
        move = rng.choice(game.legal(state, seat)) if n < moves else {"type": "concede"}
        container.commands.handle(game_id, seat, move, f"move-{n}")
    return game_id


def reviewed(page: Page, game_id: str) -> dict[str, Any]:
    """The game's review, asked for and done by the worker (the suite's games are not reviewed
    at their end: tests/conftest.py)."""
    page.goto("/")  # the origin, for the API's cookie
    if not page.request.get("/me").ok:  # asked by a player: the page's, or a new one
        assert page.request.post("/players", data={"name": "Reviewer"}).ok
    assert page.request.post(f"/games/{game_id}/review").ok
    answers: list[dict[str, Any]] = []

    def done() -> bool:
        answers.append(page.request.get(f"/games/{game_id}/review").json())
        return answers[-1]["state"] == "done"

    wait(done, REVIEWED_S, f"the review of {game_id}")
    return answers[-1]["review"]


def marked(review: dict[str, Any]) -> list[dict[str, Any]]:
    return [d for d in review["decisions"] if d["grade"] in MARKED]


def percent(accuracy: float) -> str:
    """An accuracy of the review's answer as every page shows it: to the whole percent, a half
    rounded up (Python's ``round`` would take 86.5 to 86, the pages show 87)."""
    return f"{math.floor(accuracy + 0.5)}%"


def test_a_marker_activated_by_keyboard_shows_the_decision(
    bot_game: tuple[str, str], page: Page
) -> None:
    game_id, _ = bot_game
    errors = watch_errors(page)
    review = reviewed(page, game_id)
    decisions = marked(review)
    assert len(decisions) >= 2, "random moves are mistakes a search sees"
    page.goto(f"/play/{game_id}/replay")
    chart = page.locator("#review .review-chart")
    expect(chart.locator(".seat-line")).to_have_count(2)
    # The win chance's scale: 0, 50 and 100 %, each with a grid line across the chart.
    expect(chart.locator("text.tick", has_text="%")).to_have_text(["0%", "50%", "100%"])
    grid = chart.locator("line.grid")
    expect(grid).to_have_count(3)
    chart_box = chart.bounding_box()
    for line in grid.all():
        drawn = line.bounding_box()
        assert chart_box and drawn and drawn["width"] > chart_box["width"] * 0.8
    expect(chart.get_by_role("button")).to_have_count(len(decisions))
    for grade in MARKED:
        expect(chart.locator(f".marker.grade-{grade}")).to_have_count(
            sum(d["grade"] == grade for d in decisions)
        )
    # The markers follow the replay's controls in the tab order.
    page.get_by_role("button", name="Last step").focus()
    page.keyboard.press("Tab")
    first = decisions[0]
    expect(chart.get_by_role("button").first).to_be_focused()
    expect(page.locator(":focus")).to_have_attribute("data-version", str(first["version"]))
    expect(page.locator(":focus .ring")).to_have_css("stroke", "rgb(255, 213, 79)")  # visible
    # The arrow keys go from marker to marker (the replay does not step meanwhile).
    page.keyboard.press("ArrowRight")
    second = decisions[1]
    expect(page.locator(":focus")).to_have_attribute("data-version", str(second["version"]))
    page.keyboard.press("Enter")
    page.wait_for_function("v => document.body.dataset.step === String(v)", arg=second["version"])
    expect(page.locator("#step-label")).to_contain_text(f"Step {second['version']} of")
    panel = page.locator("#review-panel")
    expect(panel.locator("h3").first).to_contain_text(f"Step {second['version']}")
    expect(panel).to_contain_text("Move played")
    expect(panel).to_contain_text("Best move found")
    expect(panel.locator(".review-move")).to_have_count(2)
    hand = second["knowledge"]["opponent_hand"]  # one chip per card, its copies counted
    expect(panel.locator(".knowledge dd").first.locator(".chip")).to_have_count(len(set(hand)))
    deck = second["knowledge"]["deck_size"]
    expect(panel.locator(".knowledge")).to_contain_text(f"The deck: {deck} cards")
    # Space activates too.
    page.keyboard.press("ArrowLeft")
    page.keyboard.press(" ")
    page.wait_for_function("v => document.body.dataset.step === String(v)", arg=first["version"])
    screenshot(page, "review-desktop")
    # The review alone, as docs/review-page.png shows it (from the whole page: on screen the
    # replay's sticky controls would cover its top).
    page.evaluate("window.scrollTo(0, 0)")
    section = page.locator("#review").bounding_box()
    assert section is not None
    page.screenshot(path=str(SCREENSHOTS / "review-section.png"), full_page=True, clip=section)
    # The result at the last step: each player's accuracy.
    page.get_by_role("button", name="Last step").click()
    scores = page.locator("#result table.scores")
    expect(scores.locator("thead")).to_contain_text("Accuracy")
    for player in review["players"]:
        expect(scores.locator("tbody tr").nth(player["seat"]).locator("td.accuracy")).to_have_text(
            percent(player["accuracy"])
        )
    assert errors == []


def test_the_accuracy_on_the_game_page_and_the_players_page(
    bot_game: tuple[str, str], page: Page
) -> None:
    game_id, person = bot_game
    errors = watch_errors(page)
    review = reviewed(page, game_id)
    accuracies = [percent(p["accuracy"]) for p in review["players"]]
    page.goto(f"/play/{game_id}")
    scores = page.locator("#result table.scores")
    expect(scores.locator("thead")).to_contain_text("Accuracy")
    expect(scores.locator("td.accuracy")).to_have_text(accuracies)
    # The person's games in the API and on their page: their accuracy, a link to the review.
    games = page.request.get(f"/players/{person}").json()["games"]
    assert [g["accuracy"] for g in games if g["game_id"] == game_id] == [
        round(review["players"][0]["accuracy"], 1)
    ]
    row = page.locator("#games tr", has=page.locator(f"a[href='/play/{game_id}']"))
    reload_until(page, f"/profile/{person}", row)
    expect(row.locator("td.num a")).to_have_text(accuracies[0])
    row.locator("td.num a").click()
    expect(page.locator("#review .review-chart")).to_be_visible()
    assert errors == []


def test_the_review_in_japanese_on_a_phone(
    bot_game: tuple[str, str], new_context: Callable[..., BrowserContext]
) -> None:
    game_id, _ = bot_game
    page = new_context(viewport=PHONE, locale="ja-JP").new_page()
    errors = watch_errors(page)
    review = reviewed(page, game_id)
    page.goto(f"/play/{game_id}/replay")
    section = page.locator("#review")
    expect(section.locator("h2")).to_have_text("検討")
    # The last marker: drawn over any other (close ones overlap on a narrow chart).
    marker = section.get_by_role("button").last
    grade = marked(review)[-1]["grade"]
    expect(marker).to_have_attribute("aria-label", re.compile(JAPANESE[grade]))
    marker.click()
    panel = page.locator("#review-panel")
    expect(panel).to_contain_text("実際の手")
    expect(panel).to_contain_text("見つかった最善手")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    words, split = split_words(page, "#review .review-summary :is(th, td)")
    assert words >= {f"{int(p['accuracy'] + 0.5)}%" for p in review["players"]}  # Math.round
    assert split == []  # no number broken ("97 / %")
    chart_box = section.locator(".review-chart").bounding_box()
    panel_box = panel.bounding_box()
    assert chart_box and panel_box and panel_box["y"] >= chart_box["y"] + chart_box["height"]
    screenshot(page, "review-phone-ja")
    assert errors == []


def test_a_running_game_has_no_review(container: Container, page: Page) -> None:
    errors = watch_errors(page, expected="401|409")
    game_id = container.commands.create_game("famiglia", 2)
    page.goto(f"/play/{game_id}/replay")
    expect(page.locator("#board section").first).to_be_visible()
    page.wait_for_function("() => document.body.dataset.step === '1'")
    expect(page.locator("#review")).to_be_hidden()
    assert page.request.get(f"/games/{game_id}/review").status == 409
    page.request.post("/players", data={"name": "Curious"})
    assert page.request.post(f"/games/{game_id}/review").status == 409
    assert errors == []


def test_asking_for_the_review_of_a_game_without_one(container: Container, page: Page) -> None:
    """As for a game that ended while reviews were off (as they are in the suite)."""
    errors = watch_errors(page)
    game_id = famiglia_ended_by_two_passes(container)
    page.goto("/")  # the origin, for the API's cookie
    assert page.request.post("/players", data={"name": "Asker"}).ok
    page.goto(f"/play/{game_id}/replay")
    ask = page.get_by_role("button", name="Ask for a review")
    ask.click()
    section = page.locator("#review")
    expect(section.locator(".review-chart")).to_be_visible(timeout=REVIEWED_S * 1000)
    expect(section.locator(".review-summary tbody tr")).to_have_count(2)
    expect(ask).to_have_count(0)
    page.set_viewport_size(PHONE)  # the summary's headers and figures whole, not split mid-word
    words, split = split_words(page, "#review .review-summary :is(th, td)")
    assert words >= {"Accuracy", "Decisions", "Inaccuracy", "Mistake", "Blunder"}
    assert split == []
    assert errors == []


def test_a_gangsta_decision_shows_the_unseen_cards_and_the_opponents_bounds(
    container: Container, page: Page
) -> None:
    """The page follows a review under way, and draws it once done."""
    errors = watch_errors(page)
    game_id = gangsta_conceded(container, 40, seed=4)
    page.goto("/")  # the origin, for the API's cookie
    assert page.request.post("/players", data={"name": "Reviewer"}).ok
    assert page.request.post(f"/games/{game_id}/review").status == 202
    page.goto(f"/play/{game_id}/replay")
    expect(page.locator("#review-progress")).to_be_visible()
    expect(page.locator("#review .review-chart")).to_be_visible(timeout=REVIEWED_S * 1000)
    review = page.request.get(f"/games/{game_id}/review").json()["review"]
    decision = marked(review)[0]
    known = decision["knowledge"]
    page.locator(f"#review .marker[data-version='{decision['version']}']").focus()
    page.keyboard.press("Enter")  # (a click may land on a close marker drawn over it)
    page.wait_for_function("v => document.body.dataset.step === String(v)", arg=decision["version"])
    panel = page.locator("#review-panel")
    expect(panel.locator(".review-move")).to_have_count(2)
    knowledge = panel.locator(".knowledge")
    expect(knowledge).to_contain_text(f"Gangsters not seen yet ({len(known['gangster_deck'])})")
    expect(knowledge.locator("dd").first.locator(".chip")).to_have_count(
        len(known["gangster_deck"])
    )
    [opponent] = known["opponents"]
    expect(knowledge.locator("dd").last).to_have_text(
        f"{opponent['heists']} heist(s) completed, worth {opponent['influence']} influence"
        f" (from what the table shows alone: {opponent['low']} to {opponent['high']})"
    )
    assert errors == []


def test_every_page_shows_an_accuracy_alike(container: Container, page: Page) -> None:
    """A half percent is rounded up everywhere: the game page, the replay's result and review,
    and the player's page (a stored review whose figures end in .5)."""
    errors = watch_errors(page)
    players = Players(container.commands.store.redis)
    person = players.create(f"Hal {secrets.token_hex(2)}")[0].id
    game_id = container.commands.create_game("famiglia", 2)
    players.open_table(game_id, 0, [0], person, 0, public=False)
    for n in range(2):
        loaded = container.commands.load(game_id)
        [seat] = loaded.game.to_act(loaded.state)
        container.commands.handle(game_id, seat, {"type": "pass"}, f"pass-{n}")
    found = msgspec.json.decode(
        compute(container.commands, container.secret, game_id, 5), type=Review
    )
    halves = [
        msgspec.structs.replace(p, accuracy=a)
        for p, a in zip(found.players, (86.5, 42.5), strict=True)
    ]
    Reviews.of(container.commands.store).write(
        game_id, msgspec.json.encode(msgspec.structs.replace(found, players=halves))
    )
    shown = ["87%", "43%"]
    page.goto(f"/play/{game_id}")
    expect(page.locator("#result table.scores td.accuracy")).to_have_text(shown)
    page.goto(f"/play/{game_id}/replay")
    expect(page.locator("#review .review-summary tbody tr")).to_have_count(2)
    for seat, text in enumerate(shown):
        expect(page.locator("#review .review-summary tbody tr").nth(seat)).to_contain_text(text)
    page.get_by_role("button", name="Last step").click()
    expect(page.locator("#result table.scores td.accuracy")).to_have_text(shown)
    row = page.locator("#games tr", has=page.locator(f"a[href='/play/{game_id}']"))
    reload_until(page, f"/profile/{person}", row)
    expect(row.locator("td.num a")).to_have_text(shown[0])
    assert errors == []
