"""The pages in Japanese: family, skill, chapter and card names as on the rules pages."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import BrowserContext, expect

from api.web import i18n
from tests.web.conftest import PHONE, screenshot
from tests.web.flows import create_game, my_turn_or_over, sign_up, watch_errors

STATIC = Path(i18n.__file__).parent / "static"


def test_the_language_switch_and_japanese_famiglia(
    new_context: Callable[..., BrowserContext],
) -> None:
    page = new_context().new_page()
    errors = watch_errors(page)
    sign_up(page, "Aiko")
    create_game(page, "Famiglia", ["ai-1"])
    my_turn_or_over(page)
    expect(page.locator("#board")).to_contain_text("The Street")

    page.get_by_role("link", name="日本語").click()
    expect(page.locator("html")).to_have_attribute("lang", "ja")
    expect(page.locator("h1")).to_have_text("ファミリア")
    expect(page.locator("#board")).to_contain_text("ストリート")
    expect(page.locator("#board")).to_contain_text("手札")
    # FAMIGLIA.md's Japanese names of the four families (the user's description).
    for family, name in {
        "red": "ギャング",
        "blue": "インテリ",
        "yellow": "ゴロツキ",
        "green": "チンピラ",
    }.items():
        expect(page.locator(f".zone-hand .fam-{family} .fname")).to_have_text(name)
    ask = page.locator("#prompt .ask")
    expect(ask).to_have_text("あなたの番です。アクションを選んでください。")
    expect(page.locator("[data-action=pass]")).to_have_text("パス")
    # A turn that can recruit nothing can refresh the Street: both ask for a Street card.
    action = page.locator("[data-action=recruit], [data-action=refresh]").first
    first_step = {
        "recruit": "獲得するストリートのカードを選んでください。",
        "refresh": "捨てるストリートのカードを選んでください。そのランクの枚数だけ"
        "オープンされます。",
    }[action.get_attribute("data-action") or ""]
    action.click()
    expect(ask).to_have_text(first_step)
    screenshot(page, "famiglia-ja")

    page.get_by_role("link", name="English").click()
    expect(page.locator("h1")).to_have_text("Famiglia")
    assert errors == []


def test_japanese_gangsta_on_a_phone(new_context: Callable[..., BrowserContext]) -> None:
    """A browser that prefers Japanese gets the Japanese pages without choosing."""
    page = new_context(viewport=PHONE, locale="ja-JP").new_page()
    errors = watch_errors(page)
    page.goto("/")
    page.get_by_label("あなたの名前").fill("健")
    page.get_by_role("button", name="はじめる").click()
    expect(page.locator("#hello-title")).to_have_text("ようこそ、健 さん")
    page.goto("/new")
    page.get_by_label("ギャングスタ!").check()
    expect(page.locator("#options")).to_contain_text("支配の密告の値")
    page.get_by_role("button", name="ゲームを作る").click()
    page.wait_for_url(re.compile(r"/play/[^/]+$"))  # against AI only: the game opens at once
    expect(page.locator(".hcard").first).to_be_visible()
    # GANGSTA.md's names: the six skills, the chapter, the vocabulary.
    legend = page.locator(".legend")
    for name in (
        "リーダー(黄色)",
        "傭兵(グレー)",
        "情報提供者(金色)",
        "スナイパー(赤)",
        "喧嘩屋(紫)",
        "ハッカー(青)",
    ):
        expect(legend).to_contain_text(name)
    expect(page.locator(".info")).to_contain_text("創世記")
    expect(page.locator(".row-box h2").first).to_have_text("強盗")
    expect(page.locator(".gcard.boss .tagline").first).to_have_text("ボス")
    expect(page.locator(".gcard.boss").first).to_contain_text(
        re.compile("ブラトヴァ|カルテル|ストリートギャング|マフィア|三合会")
    )
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"]
    screenshot(page, "gangsta-ja-phone")
    assert errors == []


def test_every_message_the_scripts_name_exists_in_both_languages() -> None:
    table = json.loads((Path(i18n.__file__).parent / "messages.json").read_text("utf-8"))
    assert set(table["en"]) == set(table["ja"])
    named = set()
    for script in STATIC.glob("*.js"):  # whole keys only: t("key") or t("key", {...})
        named |= set(re.findall(r'\btn?\("([a-z_.]+)"\s*[,)]', script.read_text("utf-8")))
    for template in (STATIC.parent / "templates").glob("*.html"):
        named |= set(re.findall(r"\bt\('([a-z_.]+)'\s*[,)]", template.read_text("utf-8")))
    assert len(named) > 100, 'the pages name their messages as t("key")'
    missing = sorted(k for k in named if k not in table["en"])
    assert missing == []
