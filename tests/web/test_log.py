"""The log says what happened: every event type of both games (the table's too), rendered by
the page's own ``TableUI.describe`` or ``GameUI.describe`` in both languages, reads as words (no
raw key, no unfilled placeholder) and names every movement of money, from events of seeded
random games."""

from __future__ import annotations

import contextlib
import typing
from collections.abc import Callable, Iterator
from typing import Any

import msgspec
import pytest
from playwright.sync_api import BrowserContext, Page, expect

from api.web import i18n
from domain import GAMES, table
from domain.core import Game, RuleViolation
from domain.gangsta import game as gangsta
from domain.gangsta.rules import final_scores
from domain.play import play, random_policy, secret_for
from tests.domain.gangsta.helpers import build
from tests.web.flows import sign_up

NAMES = ["Ann", "Bob", "Cy", "Dee"]
LOCALES = {"en": "en-GB", "ja": "ja-JP"}


def tag(event: Any) -> str:
    return str(event.__struct_config__.tag)


# Events worth a sample of their own: a clause of the line appears only then.
VARIANTS: dict[str, Callable[[Any], bool]] = {
    "coop": lambda e: tag(e) == "heist_completed" and any(e.coop_money),
    "snitch_discards": lambda e: tag(e) == "snitch_revealed" and bool(e.discards),
    "war_losers": lambda e: tag(e) == "gang_war" and bool(e.losers),
    "war_chooser": lambda e: tag(e) == "gang_war" and e.chooser is not None,
    "income": lambda e: tag(e) == "chapter_changed" and any(e.income),
    "discard_for": lambda e: tag(e) == "gangster_discarded" and e.chosen_by != e.seat,
    "forced": lambda e: tag(e) == "reward_skipped" and e.forced,
    "fast": lambda e: tag(e) == "gangster_hired" and e.fast,
}


# The table's events (domain.table), rendered by the page's TableUI.describe.
TABLE_SAMPLES: dict[str, Any] = {
    "conceded": table.Conceded(seat=1),
    "timed_out": table.TimedOut(seat=1, forfeit=True),
    "timed_out_takeover": table.TimedOut(seat=2, forfeit=False),
    "draw_offered": table.DrawOffered(seat=0),
    "draw_declined": table.DrawDeclined(seat=1),
    "draw_agreed": table.DrawAgreed(),
    "undone": table.Undone(seat=3),
    "expired": table.Expired(days=14),
}


def option_sets(game: Game) -> list[Any]:
    """The default rules and each option that is off by default turned on (events that only
    an option brings need a game with it), as far as the rules accept them."""
    sets = [game.options({})]
    for field in msgspec.structs.fields(game.Options):
        if field.default is False:
            with contextlib.suppress(RuleViolation):  # an option the rules do not offer yet
                sets.append(game.options({field.name: True}))
    return sets


def samples(game: Game) -> dict[str, Any]:
    """One event of every type (and of every variant above), from seeded random games."""
    tags = {k.__struct_config__.tag for k in typing.get_args(game.Event)}
    wanted = tags | (set(VARIANTS) if game.name == "gangsta" else set())
    found: dict[str, Any] = {}
    seat_counts = range(game.min_seats, game.max_seats + 1)
    rules = option_sets(game)

    def look(event: Any) -> None:
        found.setdefault(tag(event), event)
        for name, test in VARIANTS.items():
            if game.name == "gangsta" and name not in found and test(event):
                found[name] = event

    for n in range(1000):
        if set(found) >= wanted:
            break
        seats = seat_counts[n % len(seat_counts)]
        secret, options = secret_for(n), rules[n % len(rules)]
        for event in game.start(seats, secret, options):
            look(event)
        policies = [random_policy((n * 10 + s).to_bytes(4, "big")) for s in range(seats)]
        for step in play(game, seats, secret, options, policies):
            for event in step.events:
                look(event)
    found.update(TABLE_SAMPLES)  # nobody concedes, offers a draw or undoes in random play
    assert set(found) >= wanted, f"no sample of {sorted(wanted - set(found))}"
    return found


def expected(lang: str, event: Any) -> list[str]:
    """What the line must name: every amount of money with its seat, and the clauses that
    explain a change of money or of gangs."""
    t = lambda key, **params: i18n.translate(lang, key, **params)  # noqa: E731
    paid = lambda amounts: ", ".join(f"{NAMES[s]} ${n}" for s, n in enumerate(amounts) if n)  # noqa: E731
    seats = lambda list_: ", ".join(NAMES[s] for s in list_)  # noqa: E731
    match tag(event):
        case "game_started" if hasattr(event, "money"):
            return [f"{NAMES[s]} ${n}" for s, n in enumerate(event.money)]
        case "snitch_revealed":
            out = [f"{NAMES[s]} ${n}" for s, n in enumerate(event.payments)]
            if event.discards:
                out.append(t("g.ev.snitch_discards", list=seats(event.discards)))
            return out
        case "heist_completed":
            out = [f"${event.money}"]
            if any(event.coop_money):
                out.append(t("g.ev.coop_money", list=paid(event.coop_money)))
            return out
        case "passed" if hasattr(event, "income"):
            return [f"${event.income}"]
        case "gangster_readied" | "gangster_hired":
            return [f"${event.cost}"]
        case "money_stolen":
            return [f"${event.amount}"]
        case "chapter_changed" if any(event.income):
            return [t("g.ev.opportunity", income=paid(event.income))]
        case "gang_war" if event.losers:
            return [t("g.ev.gang_war_losers", list=seats(event.losers))]
        case "gangster_discarded" if event.chosen_by != event.seat:
            return [NAMES[event.chosen_by]]
        case "game_ended" if hasattr(event, "gang_influence"):
            return [t(f"reason.{event.reason}")] + [
                t(
                    "g.ev.score",
                    name=NAMES[s],
                    n=event.scores[s],
                    gang=event.gang_influence[s],
                    heists=event.heist_influence[s],
                    money=event.money_bonus[s],
                    size=event.size_bonus[s],
                )
                for s in range(len(event.scores))
            ]
        case "game_ended":
            scores = [t("fam.ev.score", name=NAMES[s], n=n) for s, n in enumerate(event.scores)]
            return [t(f"reason.{event.reason}"), *scores]
        case "conceded" | "timed_out" | "draw_offered" | "draw_declined" | "undone":
            return [NAMES[event.seat]]
    return []


@pytest.fixture(scope="module")
def events() -> dict[str, dict[str, Any]]:
    return {name: samples(game) for name, game in GAMES.items()}


@pytest.fixture
def game_page(new_context: Callable[..., BrowserContext]) -> Iterator[Callable[[str, str], Page]]:
    def open_game(game: str, lang: str) -> Page:
        page = new_context(locale=LOCALES[lang]).new_page()
        if lang == "en":
            sign_up(page, "Ann")
        else:
            _sign_up_ja(page)
        made = page.evaluate(
            "g => Omerta.api('POST', '/games', {game: g, seats: 2, ai: {1: 0}})", game
        )
        page.goto(f"/play/{made['game_id']}")
        page.wait_for_function("() => document.body.dataset.version > 0")
        return page

    yield open_game


def _sign_up_ja(page: Page) -> None:
    page.goto("/")
    page.get_by_label("あなたの名前").fill("Ann")
    page.get_by_role("button", name="はじめる").click()
    expect(page.locator("#hello-title")).to_have_text("ようこそ、Ann さん")


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize("game", ["famiglia", "gangsta"])
def test_every_event_reads_as_words(
    game_page: Callable[[str, str], Page],
    events: dict[str, dict[str, Any]],
    game: str,
    lang: str,
) -> None:
    page = game_page(game, lang)
    sent = {k: msgspec.to_builtins(e) for k, e in events[game].items()}
    lines: dict[str, str] = page.evaluate(
        """([events, names]) => Object.fromEntries(Object.entries(events).map(([k, e]) =>
             [k, Omerta.el("li", {}, TableUI.describe(e, names) || GameUI.describe(e, names)
               || "").textContent]))""",
        [sent, NAMES],
    )
    problems = []
    for key, line in lines.items():
        event = events[game][key]
        if not line.strip() or line.strip() == tag(event):
            problems.append(f"{key}: no caption")
        for bad in ("{", "}", "undefined", "[object", "NaN", ".ev.", ", ,", ",,"):
            if bad in line:
                problems.append(f"{key}: {bad!r} in {line!r}")
        for part in expected(lang, event):
            if part not in line:
                problems.append(f"{key}: {part!r} missing from {line!r}")
    assert problems == []


def test_a_cooperative_heist_names_the_cooperation_money(
    game_page: Callable[[str, str], Page], events: dict[str, dict[str, Any]]
) -> None:
    page = game_page("gangsta", "en")
    coop = events["gangsta"]["coop"]
    line = page.evaluate(
        "([e, names]) => Omerta.el('li', {}, GameUI.describe(e, names)).textContent",
        [msgspec.to_builtins(coop), NAMES],
    )
    shares = [f"{NAMES[s]} ${n}" for s, n in enumerate(coop.coop_money) if n]
    assert f"Cooperation reward: {', '.join(shares)}." in line


def test_a_tie_broken_by_the_most_gangsters_says_so_with_the_counts(
    game_page: Callable[[str, str], Page],
) -> None:
    state = build([[101, 152, 141], [102, 125]], [0, 3], heists=[[], [210]])  # 6 to 6
    result = gangsta.evolve(state, final_scores(state, "nine_gangsters")).result
    page = game_page("gangsta", "en")
    shown = page.evaluate(
        """([result, names]) => {
             const box = Omerta.el("div", {}, resultParts(result, names, null));
             return { text: box.textContent, row: [...box.querySelectorAll("tbody tr")].map(
               (tr) => [...tr.children].map((cell) => cell.textContent)) };
           }""",
        [msgspec.to_builtins(result), NAMES[:2]],
    )
    assert "Tied on influence: the most gangsters decides." in shown["text"]
    assert "Gangsters" in shown["text"]
    assert [row[-2:] for row in shown["row"]] == [["3", "6"], ["2", "6"]]  # count, influence


def test_replay_step_1_of_gangsta_does_not_call_the_deck_used_up(
    game_page: Callable[[str, str], Page],
) -> None:
    """Before the first deal the market is empty and the deck full."""
    page = game_page("gangsta", "en")
    page.goto(page.url + "/replay#v=1")
    page.wait_for_function("() => document.body.dataset.step === '1'")
    expect(page.locator("#board")).to_contain_text("Gangsters for hire")
    expect(page.locator("#board")).not_to_contain_text("used up")
