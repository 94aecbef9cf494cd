"""The web side of each game is found from one registry (``api.web.games.WEB_GAMES``), keyed
like ``domain.GAMES``: a game's pieces (its scripts, card data, rules page) are declared by its
own web module, and nothing else in ``api/`` names a game, so a third game is one domain
package, one web module and one registry line."""

from __future__ import annotations

import ast
import dataclasses
import json
import re
from importlib.resources import files
from pathlib import Path

import fakeredis
import pytest

import api
from api import web
from api.app import create_app
from api.web import i18n
from api.web.games import WEB_GAMES
from bootstrap import bootstrap
from domain import GAMES, table

API = Path(api.__file__).parent
STATIC = files("api.web").joinpath("static")
TEMPLATES = files("api.web").joinpath("templates")
# The per-game pieces live here; the CLI's tournament has a default game to play.
OWNERS = (API / "web" / "games", API / "subcommands")


def test_every_game_has_its_web_module_and_no_other() -> None:
    assert list(WEB_GAMES) == list(GAMES)
    assert all(pages.name == name for name, pages in WEB_GAMES.items())


@pytest.mark.parametrize("name", sorted(WEB_GAMES))
def test_a_games_web_module_names_what_exists(name: str) -> None:
    pages = WEB_GAMES[name]
    for script in (pages.card_script, pages.board_script, pages.help_script):
        assert STATIC.joinpath(script).is_file(), script
    for lang in i18n.LANGUAGES:
        assert TEMPLATES.joinpath(pages.rules_template(lang)).is_file(), lang
    options = GAMES[name].Options.__struct_fields__
    assert pages.rule_options and set(pages.rule_options) <= set(options)
    assert pages.cards(), "the game pages draw their cards from this data"


def _code_strings(path: Path) -> list[str]:
    """The string constants of a module's code (docstrings are prose, not code)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    prose = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in prose
    ]


def _shared(pattern: str) -> list[Path]:
    return [
        path
        for path in sorted(API.rglob(pattern))
        if not any(path.is_relative_to(owner) for owner in OWNERS)
    ]


def test_no_shared_module_names_a_game() -> None:
    word = re.compile(rf"\b({'|'.join(GAMES)})\b")
    named = {
        f"{path.relative_to(API)}: {text!r}"
        for path in _shared("*.py")
        for text in _code_strings(path)
        if word.search(text)
    }
    assert not named


def test_no_shared_template_or_script_names_a_game() -> None:
    """A game's name in quotes in a shared page or script is a branch on that game."""
    quoted = re.compile(rf"""["']({"|".join(GAMES)})["']""")
    own = {
        str(place.joinpath(piece))
        for pages in WEB_GAMES.values()
        for place, piece in (
            (STATIC, pages.card_script),
            (STATIC, pages.board_script),
            (STATIC, pages.help_script),
            *((TEMPLATES, pages.rules_template(lang)) for lang in i18n.LANGUAGES),
        )
    }
    named = {
        f"{path.relative_to(API)}: {found}"
        for pattern in ("*.html", "*.js")
        for path in _shared(pattern)
        if str(path) not in own
        for found in quoted.findall(path.read_text(encoding="utf-8"))
    }
    assert not named


def test_a_new_game_is_played_on_the_pages_with_its_module_and_one_line(
    monkeypatch: pytest.MonkeyPatch, fake_redis: fakeredis.FakeRedis
) -> None:
    """A third game (Famiglia's rules under another name): its registry lines in ``domain.GAMES``
    and ``WEB_GAMES`` are all the pages need to play it, with the scripts and cards its module
    names."""
    third = table.table(GAMES["famiglia"].inner)
    third.name = "third"
    monkeypatch.setitem(GAMES, "third", third)
    own = dataclasses.replace(
        WEB_GAMES["famiglia"],
        name="third",
        card_script="cards_of_third.js",
        board_script="board_of_third.js",
        help_script="help_of_third.js",
        cards=lambda: {"third": True},
    )
    monkeypatch.setitem(WEB_GAMES, "third", own)
    app = create_app(bootstrap(store=fake_redis, queues_client=fake_redis, hooks=[]))
    web.register(app)
    game_id = app.extensions["omerta"].commands.create_game("third", 2)
    with app.test_client() as client:
        for path in (f"/play/{game_id}", f"/play/{game_id}/replay"):
            page = client.get(path)
            assert page.status_code == 200
            assert 'data-kind="third"' in page.text
            assert f'id="cards">{json.dumps(own.cards())}</script>' in page.text
            for script in (own.card_script, own.board_script):
                assert f"/web/static/{script}" in page.text
            assert "/web/static/famiglia" not in page.text
        game_page = client.get(f"/play/{game_id}").text
        assert f"/web/static/{own.help_script}" in game_page
        assert client.get(f"/play/{game_id}/join").status_code == 200
        assert 'href="/rules/third"' in client.get("/").text
